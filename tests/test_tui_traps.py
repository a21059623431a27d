"""The traps issue 15 found in the practice app, each driven through Textual's pilot.

Hand-checked numbers come from tests/helpers.py: the H100 matmul's 2·4096³ = 137.4 GFLOP (68.7
when the 2 is forgotten) and 138.97 µs; the L4 ridge of 121 TFLOP/s / 300 GB/s = 403 FLOP/byte.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.containers import VerticalScroll
from textual.widgets import Button, Input, Static

from perfdrill.engine.practice.plan import Plan
from perfdrill.engine.practice.progress import ProgressStore
from perfdrill.engine.practice.schedule import AGAIN, EASY, HARD
from perfdrill.tui.app import PerfdrillApp
from perfdrill.tui.screens.confirm import ConfirmScreen
from perfdrill.tui.screens.feedback import FeedbackScreen
from perfdrill.tui.screens.question import QuestionScreen
from perfdrill.tui.screens.summary import SummaryScreen
from perfdrill.tui.widgets import PartInput, RooflineChart, SpecPanel
from tests.helpers import write_template
from tests.pilot import (
    MISSING_2,
    RIGHT,
    app_factory,
    screen_text,
    settle,
    start_screen_ready,
    submit,
    until,
    wait_for,
)

DAY = 86400.0


@pytest.fixture
def make_app(tmp_path: Path) -> Callable[..., PerfdrillApp]:
    return app_factory(tmp_path)


def visible(widget: Any, scroller: VerticalScroll) -> bool:
    """Whether `widget` is entirely inside what `scroller` shows."""
    return scroller.content_region.contains_region(widget.region)


# A question whose prompt fills an 80×24 screen, with four fields below it and two hints.
LONG = """
id: roofline/long-read
title: A long read about the L4
family: roofline
difficulty: easy
workload: roofline
parameters:
  chip: {chip: {ids: [l4]}}
scenario: {chip: chip, dtype: bf16}
parts:
  - {name: ridge, kind: numeric, prompt: Ridge?, answer: ridge_point, unit: FLOP/B}
  - {name: peak, kind: numeric, prompt: Peak?, answer: system_flops, unit: TFLOP/s}
  - {name: bandwidth, kind: numeric, prompt: Bandwidth?, answer: system_bandwidth, unit: GB/s}
  - {name: memory, kind: numeric, prompt: Memory?, answer: system_memory, unit: GB}
hints:
  - The ridge is peak FLOP/s over bandwidth.
  - Read the figures off the spec panel.
"""
LONG_PROMPT = "\n\n".join(f"Paragraph {i} about the **L4** and its roofline." for i in range(1, 13)) + "\n"


@pytest.fixture
def long_app(tmp_path: Path) -> Callable[..., PerfdrillApp]:
    write_template(tmp_path / "questions", "roofline/long-read", LONG, LONG_PROMPT)
    make = app_factory(tmp_path)
    return lambda **options: make(plan=Plan(items=(("roofline/long-read", 1),)), start=True, **options)


# The question opens at its top ---------------------------------------------------------------


async def test_the_issues_first_question_opens_at_its_top(tmp_path: Path) -> None:
    """`--count 3 --seed 209 --start` at 80×24 opened on the (a) input box, title and prompt gone."""
    app = PerfdrillApp(ProgressStore(tmp_path / "p.sqlite3"), plan=Plan(count=3, seed=209), start=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, QuestionScreen)
        await settle(pilot)
        screen = app.screen
        scroller = screen.query_one("#question", VerticalScroll)
        assert scroller.scroll_y == 0
        assert visible(screen.query_one("#question-title"), scroller)
        assert app.focused is screen.query(Input).first()


async def test_a_long_prompt_stays_in_view_with_the_first_field_focused(
    long_app: Callable[..., PerfdrillApp],
) -> None:
    app = long_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, QuestionScreen)
        await settle(pilot)
        scroller = app.screen.query_one("#question", VerticalScroll)
        assert scroller.scroll_y == 0 and scroller.max_scroll_y > 0  # the fields are below the fold
        assert app.focused is app.screen.query_one("#answer-ridge", Input)
        assert "Paragraph 1 about" in screen_text(pilot)


async def test_a_hint_never_scrolls_the_field_being_typed_in_off_screen(
    long_app: Callable[..., PerfdrillApp],
) -> None:
    app = long_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, QuestionScreen)
        field = app.screen.query_one("#answer-ridge", Input)
        field.focus()  # now scrolled into view, as a person typing there sees it
        await settle(pilot)
        await pilot.press("4", "0", "3", "ctrl+t")
        await settle(pilot)
        scroller = app.screen.query_one("#question", VerticalScroll)
        assert app.focused is field and visible(field, scroller)
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert app.focused is field and visible(field, scroller)
        assert field.value == "403"


# Esc closes the innermost thing, and ending a session asks -----------------------------------


async def test_escape_closes_the_spec_panel_before_anything_else(
    make_app: Callable[..., PerfdrillApp],
) -> None:
    app = make_app(start=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, QuestionScreen)
        await pilot.press("ctrl+b")
        panel = app.screen.query_one(SpecPanel)
        await until(pilot, lambda: panel.display, "the spec panel opening")
        await pilot.press("escape")
        await until(pilot, lambda: not panel.display, "the spec panel closing")
        assert isinstance(app.screen, QuestionScreen)


async def test_escape_on_a_question_asks_and_keeps_the_typed_answer(
    make_app: Callable[..., PerfdrillApp],
) -> None:
    app = make_app(start=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, QuestionScreen)
        await pilot.press(*"137 GFLOP", "escape")
        await wait_for(pilot, ConfirmScreen)
        await pilot.press("escape")  # no: back to the question as it was
        await wait_for(pilot, QuestionScreen)
        assert app.screen.query_one("#answer-flops", Input).value == "137 GFLOP"
        await pilot.press("escape")
        await wait_for(pilot, ConfirmScreen)
        await pilot.press("enter")  # the focused button is "Keep practising"
        await wait_for(pilot, QuestionScreen)
        await pilot.press("escape")
        await wait_for(pilot, ConfirmScreen)
        await pilot.press("y")
        await wait_for(pilot, SummaryScreen)
        text = screen_text(pilot)
        assert "No question was answered" in text and "Missed" not in text and "nothing" not in text


async def test_ending_a_session_early_keeps_it_to_continue(make_app: Callable[..., PerfdrillApp]) -> None:
    app = make_app(start=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await submit(pilot, *RIGHT)
        await pilot.press("escape")
        await wait_for(pilot, ConfirmScreen)
        await pilot.press("y")
        await wait_for(pilot, SummaryScreen)
        assert "Continue on the start screen" in screen_text(pilot)
    assert app.store.unfinished() is not None

    again = make_app()
    async with again.run_test(size=(100, 40)) as pilot:
        await start_screen_ready(pilot)
        assert "Continue 1/2" in str(again.screen.query_one("#resume-button", Button).label)
        await pilot.press("ctrl+r")
        await wait_for(pilot, QuestionScreen)
        assert again.screen.problem.id == "roofline/l4-ridge"


async def test_escape_folds_the_explanation_before_asking(make_app: Callable[..., PerfdrillApp]) -> None:
    app = make_app(start=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await submit(pilot, *RIGHT)
        explanation = app.screen.query_one("#explanation", Static)
        await pilot.press("x")
        await until(pilot, lambda: explanation.display, "the explanation opening")
        await pilot.press("escape")
        await until(pilot, lambda: not explanation.display, "the explanation folding")
        assert isinstance(app.screen, FeedbackScreen)
        await pilot.press("escape")
        await wait_for(pilot, ConfirmScreen)
        await pilot.press("n")
        await wait_for(pilot, FeedbackScreen)


# A second try before the answer is shown -----------------------------------------------------


async def test_a_wrong_first_try_hides_the_answer_and_allows_a_second(
    make_app: Callable[..., PerfdrillApp],
) -> None:
    app = make_app(start=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await submit(pilot, *MISSING_2)
        text = screen_text(pilot)
        assert "137 GFLOP" not in text and "try again" in text  # the expected value stays hidden
        assert not app.screen.query(RooflineChart) and not app.screen.query("#explanation")
        await pilot.press("t")
        await wait_for(pilot, QuestionScreen)
        values = [field.value for field in app.screen.query(Input)]
        assert values == list(MISSING_2)
        assert [w.was_right for w in app.screen.query(PartInput)] == [False, True, True]
        assert app.focused is app.screen.query_one("#answer-flops", Input)  # the wrong one
        await pilot.press(*"137 GFLOP", "ctrl+s")  # typing replaces the selected first answer
        await wait_for(pilot, FeedbackScreen)
        text = screen_text(pilot)
        assert "3/3 parts right at the second try" in text and "scored 67%" in text
        assert "137 GFLOP" in text  # shown now
    tries = [(a.try_number, round(a.score, 2)) for a in app.store.session(1).attempts]
    assert tries == [(1, 0.67), (2, 1.0)]
    assert app.store.cards()["matmul/h100-4096"].last_rating == HARD  # right only at the second try


async def test_enter_on_a_wrong_first_try_tries_again(make_app: Callable[..., PerfdrillApp]) -> None:
    app = make_app(start=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await submit(pilot, *MISSING_2)
        await pilot.press("enter")
        await wait_for(pilot, QuestionScreen)
        assert app.screen.query_one("#second-try")


async def test_showing_the_answer_ends_the_question_as_not_recalled(
    make_app: Callable[..., PerfdrillApp],
) -> None:
    app = make_app(start=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await submit(pilot, *MISSING_2)
        await pilot.press("s")
        await until(pilot, lambda: app.screen.query(RooflineChart), "the answers showing")
        assert "137 GFLOP" in screen_text(pilot)
        await pilot.press("t")  # no second try once the answer is out
        await settle(pilot)
        assert isinstance(app.screen, FeedbackScreen)
    assert app.store.cards()["matmul/h100-4096"].last_rating == AGAIN
    assert [a.try_number for a in app.store.session(1).attempts] == [1]


async def test_a_right_first_try_is_shown_at_once_and_scheduled(
    make_app: Callable[..., PerfdrillApp],
) -> None:
    app = make_app(start=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await submit(pilot, *RIGHT)
        assert app.screen.query(RooflineChart) and "137 GFLOP" in screen_text(pilot)
        await until(pilot, lambda: "matmul/h100-4096" in app.store.cards(), "the review being saved")
    card = app.store.cards()["matmul/h100-4096"]
    # The frozen clock makes it instant: EASY. FSRS-6's default initial stability for EASY is
    # w[3] = 8.2956 days, which at 90% retention is an interval of round(8.2956) = 8 days.
    assert card.last_rating == EASY
    assert card.due - card.created == pytest.approx(8 * DAY)


# The shown reference regenerates the variant -------------------------------------------------


async def test_the_title_and_the_summary_carry_the_chip_and_model_restriction(tmp_path: Path) -> None:
    plan = Plan(items=(("performance_model/fits-sweep", 648145),), chips=("l4",), models=("llama-3.1-8b",))
    app = PerfdrillApp(ProgressStore(tmp_path / "p.sqlite3"), plan=plan, start=True, clock=lambda: 0.0)
    reference = "performance_model/fits-sweep #648145 --chip l4 --model llama-3.1-8b"
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, QuestionScreen)
        assert reference in " ".join(screen_text(pilot).split())
        await pilot.press(*"a", "enter", *"1", "enter")  # surely wrong: one sequence, one batch
        await wait_for(pilot, FeedbackScreen)
        await pilot.press("n")
        await wait_for(pilot, SummaryScreen)
        assert reference in " ".join(screen_text(pilot).split())
