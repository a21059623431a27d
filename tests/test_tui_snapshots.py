"""Every screen at 80×24 and 120×40, compared with accepted SVG snapshots (pytest-textual-snapshot).

Textual is pinned to one minor series in pyproject.toml, so a rendering change arrives only with a
deliberate upgrade; review it with `pytest --snapshot-update` and the report it writes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from perfdrill.engine.practice.plan import Plan
from perfdrill.engine.practice.progress import ProgressStore
from perfdrill.tui.app import PerfdrillApp
from tests.helpers import hand_checked_bank

SIZES = [(80, 24), (120, 40)]
SESSION = Plan(items=(("matmul/h100-4096", 1), ("roofline/l4-ridge", 1)), seed=3)


def _app(tmp_path: Path, **options: object) -> PerfdrillApp:
    store = ProgressStore(tmp_path / "progress.sqlite3")
    questions = hand_checked_bank(tmp_path / "questions")
    return PerfdrillApp(store, questions=[questions], clock=lambda: 0.0, **options)  # type: ignore[arg-type]


async def _settle(pilot: Pilot[None], screen_name: str) -> None:
    for _ in range(300):
        if type(pilot.app.screen).__name__ == screen_name:
            break
        await pilot.pause(0.05)
    await pilot.app.workers.wait_for_complete()
    for field in pilot.app.screen.query(Input):
        field.cursor_blink = False  # a blinking cursor would make the picture depend on timing
    await pilot.pause()


def _after(*steps: tuple[str, tuple[str, ...]]) -> Callable[[Pilot[None]], Awaitable[None]]:
    """Wait for each named screen, then press its keys."""

    async def run(pilot: Pilot[None]) -> None:
        for screen_name, keys in steps:
            await _settle(pilot, screen_name)
            await pilot.press(*keys)
        await pilot.app.workers.wait_for_complete()
        await pilot.pause(0.1)

    return run


ANSWERED = ("QuestionScreen", (*"68.7 GFLOP", "enter", *"139 us", "enter", *"compute", "enter"))
SCREENS = {
    "start": (dict(plan=Plan(seed=42)), _after(("StartScreen", ()))),
    "question": (dict(plan=SESSION, start=True), _after(("QuestionScreen", (*"137 GFLOP", "enter", "1")))),
    "question-specs": (dict(plan=SESSION, start=True), _after(("QuestionScreen", ("ctrl+b", "ctrl+t")))),
    "feedback": (dict(plan=SESSION, start=True), _after(ANSWERED, ("FeedbackScreen", ()))),
    "explanation": (dict(plan=SESSION, start=True), _after(ANSWERED, ("FeedbackScreen", ("x",)))),
    "summary": (
        dict(plan=SESSION, start=True),
        _after(ANSWERED, ("FeedbackScreen", ("escape",)), ("SummaryScreen", ())),
    ),
    "help": (dict(plan=SESSION, start=True), _after(("QuestionScreen", ("f1",)), ("HelpScreen", ()))),
}


@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
@pytest.mark.parametrize("name", list(SCREENS))
def test_screen(name: str, size: tuple[int, int], snap_compare, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    options, run_before = SCREENS[name]
    assert snap_compare(_app(tmp_path, **options), terminal_size=size, run_before=run_before)
