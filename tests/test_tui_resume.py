"""Continue resumes exactly (issue 24 §1): a graded variant is never graded again as a first try,
and a second try still owed when the app was left stays a second try, whatever ran in between.

The issue's repro, on the hand-checked bank of tests/helpers.py: a wrong first try, Ctrl+Q on its
feedback, another session finished in between, then Continue, twice over.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Input

from perfdrill.engine.practice.plan import Plan
from perfdrill.tui.app import PerfdrillApp
from perfdrill.tui.screens.question import QuestionScreen
from perfdrill.tui.screens.summary import SummaryScreen
from tests.pilot import MISSING_2, app_factory, screen_text, start_screen_ready, submit, until, wait_for

OTHER = Plan(items=(("roofline/l4-ridge", 7),), seed=7)  # the session run in between


async def _quit_on_a_wrong_first_try(app: PerfdrillApp, *texts: str) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await submit(pilot, *texts)
        await until(pilot, lambda: app.store.session(1).attempts, "the try being saved")
        await pilot.press("ctrl+q")


async def _another_session(make: Callable[..., PerfdrillApp]) -> None:
    app = make(start=True, plan=OTHER)
    async with app.run_test(size=(80, 24)) as pilot:
        await submit(pilot, "403")  # the L4 ridge: 121 TFLOP/s / 300 GB/s = 403 FLOP/byte
        await pilot.press("n")
        await wait_for(pilot, SummaryScreen)
        await pilot.press("ctrl+q")


async def _continue(pilot: Pilot[None], named: str) -> None:
    """On the start screen, which must name what Continue opens, press Ctrl+R."""
    await start_screen_ready(pilot)
    assert named in screen_text(pilot)
    await pilot.press("ctrl+r")
    await wait_for(pilot, QuestionScreen)


def _count(path: Path, sql: str, *args: object) -> int:
    db = sqlite3.connect(path)
    try:
        return int(db.execute(sql, args).fetchone()[0])
    finally:
        db.close()


async def test_continue_never_grades_a_graded_variant_again(tmp_path: Path) -> None:
    make = app_factory(tmp_path)
    store = tmp_path / "progress.sqlite3"
    await _quit_on_a_wrong_first_try(make(start=True), *MISSING_2)
    await _another_session(make)

    resumed = make()
    async with resumed.run_test(size=(80, 24)) as pilot:
        await _continue(pilot, "question 1/2, the second try at matmul/h100-4096 #1")
        screen = resumed.screen
        assert isinstance(screen, QuestionScreen)
        assert screen.problem.id == "matmul/h100-4096" and screen.first_try  # a second try, same numbers
        assert screen.query_one("#answer-flops", Input).value == "68.7 GFLOP"
        await pilot.press("ctrl+s")  # the first answers again: the second try, graded
        await until(pilot, lambda: len(resumed.store.session(1).attempts) == 2, "the second try saved")
        await pilot.press("ctrl+q")
    attempts = resumed.store.session(1).attempts
    assert [a.try_number for a in attempts] == [1, 2]
    # One review of the template in session 1: the one the quit recorded; the settled second try adds none.
    assert _count(store, "SELECT COUNT(*) FROM reviews WHERE session = 1") == 1

    await _another_session(make)
    again = make()
    async with again.run_test(size=(80, 24)) as pilot:
        await _continue(pilot, "question 2/2, not yet shown")
        assert again.screen.problem.id == "roofline/l4-ridge"  # type: ignore[attr-defined]
        assert not again.screen.first_try  # type: ignore[attr-defined]
        assert "2/2" in again.screen.progress  # type: ignore[attr-defined]
        await submit(pilot, "1")  # wrong: a first try of question 2, then quit on its feedback
        await until(pilot, lambda: len(again.store.session(1).attempts) == 3, "the try saved")
        await pilot.press("ctrl+q")

    await _another_session(make)
    last = make()
    async with last.run_test(size=(80, 24)) as pilot:
        await start_screen_ready(pilot)
        await pilot.press("ctrl+r")
        await wait_for(pilot, QuestionScreen)
        assert last.screen.problem.id == "roofline/l4-ridge" and last.screen.first_try  # type: ignore[attr-defined]
    first_tries = _count(store, "SELECT COUNT(*) FROM attempts WHERE session = 1 AND try_number = 1")
    assert first_tries == 2  # one per question: nothing was graded twice as a first try


async def test_a_killed_session_reviews_its_owed_second_try_once(tmp_path: Path) -> None:
    """No quit handler ran (a kill): the second try after Continue settles the review itself."""
    make = app_factory(tmp_path)
    app = make(start=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await submit(pilot, *MISSING_2)
        await until(pilot, lambda: app.store.session(1).attempts, "the try being saved")
        app.state = None  # what a kill leaves: the try saved, no review
        app.exit()
    assert _count(tmp_path / "progress.sqlite3", "SELECT COUNT(*) FROM reviews") == 0
    resumed = make()
    async with resumed.run_test(size=(80, 24)) as pilot:
        await start_screen_ready(pilot)
        await pilot.press("ctrl+r")
        await wait_for(pilot, QuestionScreen)
        await pilot.press("ctrl+s")
        await until(pilot, lambda: len(resumed.store.session(1).attempts) == 2, "the second try saved")
    assert _count(tmp_path / "progress.sqlite3", "SELECT COUNT(*) FROM reviews") == 1


async def test_answers_shown_then_quit_continues_at_the_next_question(tmp_path: Path) -> None:
    make = app_factory(tmp_path)
    app = make(start=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await submit(pilot, *MISSING_2)
        await pilot.press("s")  # the answers shown: the question is over
        await until(pilot, lambda: app.store.session(1).position == 1, "the position saved")
        await pilot.press("ctrl+q")
    resumed = make()
    async with resumed.run_test(size=(80, 24)) as pilot:
        await start_screen_ready(pilot)
        await pilot.press("ctrl+r")
        await wait_for(pilot, QuestionScreen)
        assert resumed.screen.problem.id == "roofline/l4-ridge"  # type: ignore[attr-defined]
