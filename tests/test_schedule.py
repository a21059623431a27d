"""Spaced repetition and mastery: ratings derived from what happened, FSRS driven over simulated
days, today's queue, the mastery grid, streaks and accuracy.

Expected intervals come from FSRS-6's published default parameters (py-fsrs `DEFAULT_PARAMETERS`):
a first review sets stability w[0..3] = 0.212 / 1.2931 / 2.3065 / 8.2956 days for again / hard /
good / easy, and at 90% desired retention the interval is the stability rounded, at least a day.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from perfdrill.engine.practice.mastery import progress_report, streak
from perfdrill.engine.practice.plan import Plan
from perfdrill.engine.practice.progress import ProgressStore
from perfdrill.engine.practice.records import HistoryRow
from perfdrill.engine.practice.schedule import (
    AGAIN,
    EASY,
    GOOD,
    HARD,
    CardRow,
    Try,
    rating_for,
    review,
    review_queue,
)
from perfdrill.engine.problems.bank import load_bank

DAY = 86400.0
MONDAY = datetime(2025, 3, 3, 12).timestamp()  # noon local time, far from any day boundary


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(
    ("first", "second", "rating"),
    [
        (Try(1.0, 0, 40.0, 2), None, EASY),  # 20 s a part
        (Try(1.0, 0, 200.0, 2), None, GOOD),  # 100 s a part
        (Try(1.0, 0, 400.0, 2), None, HARD),  # 200 s a part: recalled with difficulty
        (Try(1.0, 1, 10.0, 1), None, HARD),  # a hint was needed
        (Try(0.5, 0, 10.0, 2), Try(1.0, 0, 30.0, 2), HARD),  # fixed at the second try
        (Try(0.5, 0, 10.0, 2), Try(0.5, 0, 30.0, 2), AGAIN),
        (Try(0.0, 0, 10.0, 1), None, AGAIN),  # the answer was shown, or the user moved on
    ],
)
def test_the_rating_comes_from_grade_tries_hints_and_time(
    first: Try, second: Try | None, rating: int
) -> None:
    assert rating_for(first, second) == rating


@pytest.mark.parametrize(("rating", "days"), [(AGAIN, 1), (HARD, 1), (GOOD, 2), (EASY, 8)])
def test_a_first_review_is_due_after_the_fsrs_default_interval(rating: int, days: int) -> None:
    _, due = review(None, rating, MONDAY)
    assert due == pytest.approx(MONDAY + days * DAY)


def test_over_simulated_days_a_failure_comes_back_sooner_than_a_success(tmp_path: Path) -> None:
    clock = Clock(MONDAY)
    store = ProgressStore(tmp_path / "p.sqlite3", now=clock)
    session = store.start_session(Plan())
    for template in ("a/forgotten", "b/remembered"):
        store.record_review(template, GOOD, session)  # both learnt on Monday: due on Wednesday
    cards = store.cards()
    assert cards["a/forgotten"].due == cards["b/remembered"].due == pytest.approx(MONDAY + 2 * DAY)
    clock.now = MONDAY + 2 * DAY  # Wednesday: both due, one is failed and one recalled
    failed = store.record_review("a/forgotten", AGAIN, session)
    recalled = store.record_review("b/remembered", GOOD, session)
    assert failed < recalled
    assert failed == pytest.approx(clock.now + DAY)  # relearning: back the next day
    assert recalled - clock.now > 2 * DAY  # the interval grew
    clock.now = failed  # Thursday: the failed one is recalled again
    relearnt = store.record_review("a/forgotten", GOOD, session)
    # A lapse costs stability: even recalled, it comes back sooner than the one never forgotten.
    assert relearnt - clock.now < recalled - (MONDAY + 2 * DAY)
    assert store.cards()["a/forgotten"].reviews == 3


def _templates():  # type: ignore[no-untyped-def]
    return list(load_bank().templates.values())


def test_the_queue_puts_due_templates_first_then_new_ones_up_to_the_daily_limit() -> None:
    templates = _templates()
    ids = [t.id for t in templates]
    cards = {
        ids[0]: CardRow(ids[0], MONDAY - DAY, MONDAY - 5 * DAY, 3, GOOD),  # overdue since Sunday
        ids[1]: CardRow(ids[1], MONDAY + 3600, MONDAY - 5 * DAY, 2, GOOD),  # due this afternoon
        ids[2]: CardRow(ids[2], MONDAY + 3 * DAY, MONDAY - 5 * DAY, 2, EASY),  # due Thursday
        ids[3]: CardRow(ids[3], MONDAY + DAY, MONDAY - 3600, 1, AGAIN),  # introduced this morning
        "gone/from-the-bank": CardRow("gone/from-the-bank", MONDAY - DAY, MONDAY - 9 * DAY, 1, AGAIN),
    }
    queue = review_queue(cards, templates, now=MONDAY, new_per_day=3)
    assert queue.due == (ids[0], ids[1])
    assert len(queue.new) == 2  # three a day, and one was introduced today already
    assert not set(queue.new) & set(cards)
    assert queue.next_due == MONDAY + DAY
    assert queue.label() == "Review · 2 due + 2 new"
    plan = queue.plan(seed=7)
    assert plan.review and [q for q, _ in plan.items] == [*queue.due, *queue.new]
    assert len({seed for _, seed in plan.items}) == 4  # a fresh variant each
    nothing = review_queue({}, templates, now=MONDAY, new_per_day=0)
    assert nothing.size == 0 and nothing.label() == "Review · nothing due"


def test_new_templates_start_easy_and_take_turns_across_families() -> None:
    queue = review_queue({}, _templates(), now=MONDAY, new_per_day=8)
    by_id = {t.id: t for t in _templates()}
    assert {by_id[t].difficulty for t in queue.new} == {"easy"}
    assert len({by_id[t].family for t in queue.new}) == 8


def _row(question: str, when: float, score: float = 1.0, hints: int = 0) -> HistoryRow:
    template = {t.id: t for t in _templates()}[question]
    return HistoryRow(question, template.family, template.difficulty, when, score, hints)


def test_mastery_needs_clean_first_tries_on_different_days() -> None:
    ridge, attainable = "roofline/ridge-point", "roofline/attainable"
    history = [
        _row(ridge, MONDAY),
        _row(ridge, MONDAY + 600),  # the same day again: still one day
        _row(ridge, MONDAY + DAY, hints=1),  # with a hint: does not count
        _row(ridge, MONDAY + 2 * DAY),
        _row(ridge, MONDAY + 3 * DAY, score=0.5),  # half right: does not count
        _row(ridge, MONDAY + 4 * DAY),
        _row(attainable, MONDAY),
        _row(attainable, MONDAY + DAY),
    ]
    report = progress_report(history, {}, _templates(), now=MONDAY + 4 * DAY, mastery_after=3)
    progress = {t.id: t for t in report.templates}
    assert (progress[ridge].clean_days, progress[ridge].mastered) == (3, True)
    assert (progress[attainable].clean_days, progress[attainable].mastered) == (2, False)
    assert progress[ridge].first_tries == 6 and progress[ridge].right == 5
    cells = report.cells_of("roofline")
    difficulty = {t.id: t.difficulty for t in _templates()}
    assert cells[difficulty[ridge]].mastered == 1
    assert sum(cell.started for cell in cells.values()) == 2
    assert sum(cell.templates for cell in cells.values()) == 5  # the bank's five roofline templates
    weeks, accuracy = report.recent_accuracy(4)
    assert weeks == ["2025-W10"]  # 3-7 March 2025 is ISO week 10
    assert (accuracy["roofline"]["2025-W10"].first_tries, accuracy["roofline"]["2025-W10"].right) == (8, 7)


def test_streaks_count_consecutive_days_up_to_today_or_yesterday() -> None:
    today = datetime(2025, 3, 10).date()
    days = {today - timedelta(days=n) for n in (1, 2, 3, 6, 7)}
    result = streak(days, today)
    assert (result.days_practised, result.current, result.longest, result.practised_today) == (5, 3, 3, False)
    assert streak(days | {today}, today).current == 4
    assert streak({today - timedelta(days=2)}, today).current == 0
    assert streak(set(), today).days_practised == 0
