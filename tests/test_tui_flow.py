"""The practice TUI driven by keystrokes through Textual's pilot, on hand-checked questions.

The H100 matmul: 2·4096³ = 137.4 GFLOP, 138.97 µs at 989 TFLOP/s, compute-bound. Forgetting the
2 gives 68.7 GFLOP. The L4 ridge is 121 TFLOP/s / 300 GB/s = 403 FLOP/byte.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Console
from rich.markdown import Markdown
from textual.widgets import Button, Static

from perfdrill.engine.practice.plan import Plan
from perfdrill.engine.practice.progress import ProgressStore
from perfdrill.engine.practice.schedule import AGAIN
from perfdrill.engine.problems.mistakes import CATALOGUE
from perfdrill.tui.app import PerfdrillApp
from perfdrill.tui.screens.confirm import ConfirmScreen
from perfdrill.tui.screens.feedback import FeedbackScreen
from perfdrill.tui.screens.help import HelpScreen
from perfdrill.tui.screens.progress import ProgressScreen
from perfdrill.tui.screens.question import QuestionScreen
from perfdrill.tui.screens.start import StartScreen
from perfdrill.tui.screens.summary import SummaryScreen
from tests.pilot import (
    MISSING_2,
    RIGHT,
    answer,
    app_factory,
    screen_text,
    start_screen_ready,
    submit,
    until,
    wait_for,
)


@pytest.fixture
def make_app(tmp_path: Path) -> Callable[..., PerfdrillApp]:
    return app_factory(tmp_path)


def _markup(widget: Static) -> str:
    content = widget.content
    assert isinstance(content, Markdown)
    return content.markup


async def test_correct_answers_score_full_marks_and_are_saved(make_app: Callable[..., PerfdrillApp]) -> None:
    app = make_app(start=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await submit(pilot, "137 GFLOP", "139 us", "compute")
        assert app.screen.grade.score == 1.0
        assert screen_text(pilot).count("✓ correct") == 3
    (attempt,) = app.store.session(1).attempts
    assert (attempt.question, attempt.score) == ("matmul/h100-4096", 1.0)
    assert attempt.answers == {"flops": "137 GFLOP", "runtime": "139 us", "bound": "compute"}


async def test_a_wrong_answer_names_the_mistake(make_app: Callable[..., PerfdrillApp]) -> None:
    app = make_app(start=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await submit(pilot, "68.7 GFLOP", "139 us", "compute")
        assert app.screen.grade.parts["flops"].mistake == "matmul-missing-2"
        assert CATALOGUE["matmul-missing-2"].title in screen_text(pilot)
    (attempt,) = app.store.session(1).attempts
    assert attempt.mistakes == ("matmul-missing-2",)


async def test_invalid_input_is_flagged_as_typed_and_costs_no_attempt(
    make_app: Callable[..., PerfdrillApp],
) -> None:
    app = make_app(start=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, QuestionScreen)
        await pilot.press(*"137 GFLOP", "enter", *"139 GB")
        reading = app.screen.query(".reading").results(Static)
        texts = [str(widget.render()) for widget in reading]
        assert texts[0].startswith("✓ read as 137\u00a0GFLOP")
        assert texts[1].startswith("✗") and "time" in texts[1]
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, QuestionScreen)
    assert app.store.session(1).attempts == ()


async def test_hints_come_one_at_a_time(make_app: Callable[..., PerfdrillApp]) -> None:
    app = make_app(start=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, QuestionScreen)
        await pilot.press("ctrl+t")
        await pilot.pause()
        hints = _markup(app.screen.query_one("#hints", Static))
        assert "one multiply and one add" in hints and "Compare the time" not in hints
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert "Compare the time" in _markup(app.screen.query_one("#hints", Static))
        await answer(pilot, "137 GFLOP", "139 us", "compute")
        await wait_for(pilot, FeedbackScreen)
    assert app.store.session(1).attempts[0].hints == 2


async def test_the_worked_explanation_expands(make_app: Callable[..., PerfdrillApp]) -> None:
    app = make_app(start=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await submit(pilot, "137 GFLOP", "139 us", "compute")
        explanation = app.screen.query_one("#explanation", Static)
        assert not explanation.display
        await pilot.press("x")
        await pilot.pause()
        assert explanation.display
        console = Console(width=100, record=True, file=io.StringIO(), color_system=None)
        console.print(explanation.content)
        text = console.export_text().replace("\u00a0", " ")
        assert "137 GFLOP" in text and "989 TFLOP/s" in text and "compute-bound" in text


async def test_a_whole_session_ends_in_a_summary_with_the_missed_question(
    make_app: Callable[..., PerfdrillApp],
) -> None:
    app = make_app(start=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await submit(pilot, "137 GFLOP", "139 us", "compute")
        await pilot.press("n")
        await wait_for(pilot, QuestionScreen)
        assert app.screen.problem.id == "roofline/l4-ridge"
        await answer(pilot, "806")  # the 2:4-sparse peak doubles the ridge
        await wait_for(pilot, FeedbackScreen)
        assert app.screen.grade.parts["ridge"].mistake == "sparse-peak"
        await pilot.press("n")
        await wait_for(pilot, SummaryScreen)
        summary = app.screen.summary
        by_family = [(family, count, right) for family, count, right, _ in summary.by_family]
        assert by_family == [("matmul", 1, 1), ("roofline", 1, 0)]
        assert [a.question for a in summary.missed] == ["roofline/l4-ridge"]
        await pilot.press("r")  # retry the missed one, as a fresh variant
        await wait_for(pilot, QuestionScreen)
        assert app.screen.problem.id == "roofline/l4-ridge"
        await answer(pilot, "403")
        await wait_for(pilot, FeedbackScreen)
        assert app.screen.grade.score == 1.0


async def test_quit_mid_session_and_continue_where_it_stopped(make_app: Callable[..., PerfdrillApp]) -> None:
    app = make_app(start=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await submit(pilot, "137 GFLOP", "139 us", "compute")
        await pilot.press("ctrl+q")  # quit on the feedback, before moving on
    assert app.return_code == 0

    again = make_app()
    async with again.run_test(size=(100, 40)) as pilot:
        await start_screen_ready(pilot)
        assert "Continue 1/2" in str(again.screen.query_one("#resume-button").label)
        await pilot.press("ctrl+r")
        await wait_for(pilot, QuestionScreen)
        assert again.screen.problem.id == "roofline/l4-ridge"  # the answered question is not asked again
        assert "2/2" in again.screen.progress


async def test_escape_asks_before_ending_and_help_opens_anywhere(
    make_app: Callable[..., PerfdrillApp],
) -> None:
    app = make_app(start=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, QuestionScreen)
        await pilot.press("question_mark")  # help, from the answer field too: "?" is never an answer
        await wait_for(pilot, HelpScreen)
        await pilot.press("escape")
        await wait_for(pilot, QuestionScreen)
        assert app.focused.value == ""  # type: ignore[union-attr]
        await pilot.press("f1")
        await wait_for(pilot, HelpScreen)
        await pilot.press("escape")
        await wait_for(pilot, QuestionScreen)
        await pilot.press("escape")
        await wait_for(pilot, ConfirmScreen)
        await pilot.press("y")
        await wait_for(pilot, SummaryScreen)
        assert "No question was answered" in screen_text(pilot)
        await pilot.press("question_mark")
        await wait_for(pilot, HelpScreen)
        await pilot.press("question_mark")
        await wait_for(pilot, SummaryScreen)
        await pilot.press("escape")
        await wait_for(pilot, StartScreen)


async def test_start_screen_rejects_unknown_chips_in_one_line(make_app: Callable[..., PerfdrillApp]) -> None:
    app = make_app(plan=Plan(chips=("h100",)))
    async with app.run_test(size=(100, 40)) as pilot:
        await start_screen_ready(pilot)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, StartScreen)
        (notice,) = app._notifications
        assert "unknown chip 'h100'" in notice.message and "\n" not in notice.message


async def test_no_color_keeps_every_verdict_readable(
    make_app: Callable[..., PerfdrillApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(start=True)
    assert app.no_color
    async with app.run_test(size=(100, 40)) as pilot:
        await submit(pilot, "68.7 GFLOP", "139 us", "memory")
        text = screen_text(pilot)
        assert text.count("✓ correct") == 1 and text.count("✗ wrong") == 2


async def test_review_from_the_start_screen_then_progress(tmp_path: Path) -> None:
    make = app_factory(tmp_path)
    store = ProgressStore(tmp_path / "progress.sqlite3")
    store.set_setting("new_per_day", 1)  # one new template today: the queue is that one question
    store.close()
    app = make()
    async with app.run_test(size=(100, 40)) as pilot:
        await start_screen_ready(pilot)
        assert str(app.screen.query_one("#review-button", Button).label) == "Review · 1 new"
        await pilot.press("ctrl+e")
        await wait_for(pilot, QuestionScreen)
        assert app.screen.progress == "review 1/1"
        template = app.screen.problem.id
        await pilot.press("ctrl+s")  # nothing typed: not graded
        await pilot.press("escape")
        await wait_for(pilot, ConfirmScreen)
        await pilot.press("y")
        await wait_for(pilot, SummaryScreen)
        await pilot.press("escape")
        await wait_for(pilot, StartScreen)
        await pilot.press("ctrl+p")
        await wait_for(pilot, ProgressScreen)
        assert "Practised on" not in screen_text(pilot)  # nothing was answered
        await pilot.press("escape")
        await wait_for(pilot, StartScreen)
    assert template in app.store.session(1).plan.items[0]


async def test_review_with_nothing_due_says_so_on_the_start_screen(tmp_path: Path) -> None:
    make = app_factory(tmp_path)
    store = ProgressStore(tmp_path / "progress.sqlite3")
    store.set_setting("new_per_day", 0)
    store.close()
    app = make(review=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await start_screen_ready(pilot)
        await until(pilot, lambda: app._notifications, "a notice")
        (notice,) = app._notifications
        assert "Nothing is due today" in notice.message
        assert app.screen.query_one("#review-button", Button).disabled


async def test_quitting_after_a_wrong_first_try_reviews_it_as_forgotten(
    make_app: Callable[..., PerfdrillApp],
) -> None:
    app = make_app(start=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await submit(pilot, *MISSING_2)
        await until(pilot, lambda: app.store.session(1).attempts, "the try being saved")
        assert "matmul/h100-4096" not in app.store.cards()  # a second try may still come
        await pilot.press("ctrl+q")
    assert app.store.cards()["matmul/h100-4096"].last_rating == AGAIN


async def test_quitting_before_the_feedback_is_painted_still_saves_the_attempt(
    make_app: Callable[..., PerfdrillApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The save waits for the feedback to be on screen; a Ctrl+Q that comes first must not lose it."""
    app = make_app(start=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, QuestionScreen)
        monkeypatch.setattr(app, "call_after_refresh", lambda *args, **kwargs: None)  # never painted
        await answer(pilot, *RIGHT)
        await wait_for(pilot, FeedbackScreen)
        assert not app.store.session(1).attempts
        await pilot.press("ctrl+q")
    assert [a.question for a in app.store.session(1).attempts] == ["matmul/h100-4096"]
