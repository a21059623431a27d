"""The smaller traps of issue 24 §1, each driven through Textual's pilot (or, for what has no
screen of its own, through the engine the screen reads).

Hand-checked numbers come from tests/helpers.py: the H100 matmul's 2·4096³ = 137.4 GFLOP and
138.97 µs; the L4 ridge of 121 TFLOP/s / 300 GB/s = 403 FLOP/byte.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Console
from textual.widgets import Button, Footer, Input, Static

from perfdrill.engine.model import load_specs
from perfdrill.engine.practice import Plan, ReviewQueue, summarize
from perfdrill.engine.practice.records import Attempt
from perfdrill.engine.problems import generate, grade, load_bank
from perfdrill.tui.app import PerfdrillApp
from perfdrill.tui.screens.confirm import ConfirmScreen
from perfdrill.tui.screens.feedback import mistake_paragraphs
from perfdrill.tui.screens.help import HelpScreen
from perfdrill.tui.screens.question import QuestionScreen
from perfdrill.tui.screens.start import StartScreen
from perfdrill.tui.widgets import TickList
from tests.pilot import RIGHT, app_factory, settle, start_screen_ready, submit, until, wait_for


@pytest.fixture
def make_app(tmp_path: Path) -> Callable[..., PerfdrillApp]:
    return app_factory(tmp_path)


async def test_escape_on_the_start_screen_asks_before_quitting(make_app: Callable[..., PerfdrillApp]) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await start_screen_ready(pilot)
        await pilot.press("question_mark")
        await wait_for(pilot, HelpScreen)
        await pilot.press("escape", "escape")  # help closed, then the question: nothing ends yet
        await wait_for(pilot, ConfirmScreen)
        await pilot.press("escape")  # "Stay"
        await wait_for(pilot, StartScreen)
        assert app.is_running
        await pilot.press("escape")
        await wait_for(pilot, ConfirmScreen)
        await pilot.press("y")
        await until(pilot, lambda: not app.is_running, "the app quitting")


async def test_question_mark_opens_help_from_an_answer_field_and_the_footer_says_so(
    make_app: Callable[..., PerfdrillApp],
) -> None:
    app = make_app(start=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, QuestionScreen)
        field = app.focused
        assert isinstance(field, Input)
        assert "question_mark" in app.screen.active_bindings  # what the footer lists
        await pilot.press("question_mark")
        await wait_for(pilot, HelpScreen)
        assert field.value == ""  # not typed into the answer
        await pilot.press("escape")
        await wait_for(pilot, QuestionScreen)


def _fits(notice: Static, width: int) -> bool:
    lines = Console(width=width, file=None).render_lines(notice.render(), pad=False)  # type: ignore[arg-type]
    return len(lines) <= notice.region.height


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_not_submitted_notice_is_above_the_footer_and_whole(
    make_app: Callable[..., PerfdrillApp], size: tuple[int, int]
) -> None:
    app = make_app(start=True)
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, QuestionScreen)
        notice = app.screen.query_one("#not-submitted", Static)
        footer = app.screen.query_one(Footer)
        await pilot.press("ctrl+s")  # every part empty
        await until(pilot, lambda: "no answer yet" in str(notice.render()), "the notice")
        await settle(pilot)
        assert notice.region.height >= 1 and notice.region.bottom <= footer.region.y
        await pilot.press(*"12 parsecs", "ctrl+s")  # the longest kind of notice
        await until(pilot, lambda: "parsecs" in str(notice.render()), "the unit notice")
        await settle(pilot)
        assert notice.region.bottom <= footer.region.y
        assert _fits(notice, notice.content_region.width)
        assert str(notice.render()).endswith("No try used.")


async def test_a_typed_number_is_echoed_with_its_figures(make_app: Callable[..., PerfdrillApp]) -> None:
    app = make_app(start=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, QuestionScreen)
        await pilot.press(*"137 GFLOP", "enter", *"4.125 ms")
        field = app.screen.query_one("#answer-runtime", Input)
        assert field.parent is not None
        reading = field.parent.query_one(".reading", Static)
        await until(pilot, lambda: "read as" in str(reading.render()), "the reading")
        # the part asks µs, so the reading is in µs (issue 21): 4.125 ms = 4,125 µs, every typed
        # figure kept (not 4,120 µs)
        assert str(reading.render()).replace("\u00a0", " ") == "✓ read as 4,125 µs"


def test_a_question_missed_then_redone_stays_in_the_missed_list() -> None:
    problem = generate(load_bank().get("matmul/gemv"), 1, load_specs())
    right = {part.name: part.shown_answer for part in problem.parts}
    wrong = dict(right, **{problem.parts[0].name: "1000"})  # a GEMV does about 1 FLOP per byte

    def first_try(answers: dict[str, str]) -> Attempt:
        return Attempt.of(0, problem, answers, grade(problem, answers), 0, 10.0, plan=Plan())

    # Question 1 missed, then `r`: a fresh variant at the same position, right this time.
    summary = summarize((first_try(wrong), first_try(right)))
    assert summary.answered == 2  # the header counts both first tries
    assert [attempt.answers for attempt in summary.missed] == [wrong]  # and the list keeps the miss


def test_a_slip_made_in_two_parts_is_explained_once() -> None:
    problem = generate(load_bank().get("parallelism/all-reduce-link"), 241807, load_specs())
    # All-reduce as one pass halves both ring times: 53.3 → 26.7 ms and 381 → 190 ms.
    result = grade(problem, {"bandwidth": "450 GB/s", "fast": "26.7 ms", "slow": "190.5 ms"})
    paragraphs = [str(p) for p in mistake_paragraphs(problem, result)]
    assert paragraphs == [
        "Likely mistake (b), (c): All-reduce as a single pass. A ring all-reduce is a reduce-scatter"
        " plus an all-gather: the data crosses the ring twice."
    ]


async def test_the_start_buttons_keep_their_labels_at_sixty_columns(
    make_app: Callable[..., PerfdrillApp],
) -> None:
    app = make_app(start=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await submit(pilot, *RIGHT)  # a session to continue
    small = make_app()
    async with small.run_test(size=(60, 20)) as pilot:
        await start_screen_ready(pilot)
        screen = small.screen
        assert isinstance(screen, StartScreen)
        screen.show_queue(ReviewQueue(due=("a/b", "c/d", "e/f"), new=("g/h", "i/j"), next_due=None))
        await settle(pilot)
        for button in screen.query(Button):
            if button.display:
                label = str(button.label)
                assert button.content_region.width >= len(label), label
                assert screen.region.contains_region(button.region), label


async def test_typing_brings_a_scrolled_away_field_back_into_view(tmp_path: Path) -> None:
    plan = Plan(items=(("quantization/w8a8-compute", 866410),), seed=1)
    app = app_factory(tmp_path)(start=True, plan=plan)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, QuestionScreen)
        await pilot.press("pagedown", "pagedown", "pagedown")
        await settle(pilot)
        await pilot.press(*"560")
        await settle(pilot)
        field = app.focused
        assert isinstance(field, Input) and field.value == "560"
        scroller = app.screen.query_one("#question")
        assert scroller.content_region.contains_region(field.region)


async def test_a_second_try_opens_with_its_field_in_view(tmp_path: Path) -> None:
    plan = Plan(items=(("parallelism/alpha-beta", 277840),), seed=1)
    app = app_factory(tmp_path)(start=True, plan=plan)
    async with app.run_test(size=(60, 20)) as pilot:
        await wait_for(pilot, QuestionScreen)
        for field in app.screen.query(Input):
            field.value = "1"  # wrong everywhere (a ring of 1 µs; choice 1)
        await pilot.press("ctrl+s")
        await until(pilot, lambda: not isinstance(app.screen, QuestionScreen), "the feedback")
        await pilot.press("t")
        await wait_for(pilot, QuestionScreen)
        await settle(pilot)
        field = app.focused
        assert isinstance(field, Input) and field.id == "answer-ring"
        scroller = app.screen.query_one("#question")
        assert scroller.content_region.contains_region(field.region)


async def test_family_names_wrap_whole_at_sixty_columns_and_ticks_stay_on_their_own(
    make_app: Callable[..., PerfdrillApp],
) -> None:
    app = make_app()
    async with app.run_test(size=(60, 20)) as pilot:
        await start_screen_ready(pilot)
        families = app.screen.query_one("#families", TickList)
        await pilot.press("down", "space")  # tick the second family, "Performance modelling"
        await settle(pilot)
        lines = [families.render_line(y).text for y in range(families.content_region.height)]
        text = " ".join(line[4:].strip() for line in lines)
        for title in ("Does my runtime make sense?", "Performance modelling", "Prefill vs decode"):
            assert title in text  # whole, over two lines where it must be, no ellipsis
        assert "…" not in text
        ticked = [line for line in lines if line[:4].strip() and "✓" in line[:4]]
        assert len(ticked) == 1 and ticked[0][4:].startswith("Performance")
        assert families.selected == ["performance_model"]
