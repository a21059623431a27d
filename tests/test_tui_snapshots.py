"""Every screen at 80×24 and 120×40, compared with accepted SVG snapshots (pytest-textual-snapshot).

Textual is pinned to one minor series in pyproject.toml, so a rendering change arrives only with a
deliberate upgrade; review it with `pytest --snapshot-update` and the report it writes. Nothing on
these screens depends on the time of day or on how fast the bank loads: the clock is frozen, the
store's clock too, and each step waits for its screen and for every worker.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from perfdrill.engine.practice.plan import Plan
from perfdrill.engine.practice.progress import ProgressStore
from perfdrill.engine.practice.records import Attempt
from perfdrill.engine.practice.schedule import AGAIN, EASY, GOOD
from perfdrill.tui.app import PerfdrillApp
from tests.helpers import hand_checked_bank

SIZES = [(80, 24), (120, 40)]
SESSION = Plan(items=(("matmul/h100-4096", 1), ("roofline/l4-ridge", 1)), seed=3)
DAY = 86400.0
THURSDAY = datetime(2025, 3, 6, 12).timestamp()  # noon local time: no day boundary nearby


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


# Three days of practice before Thursday: (days before, question, family, difficulty, score, hints, rating)
HISTORY = [
    (3, "roofline/l4-ridge", "roofline", "easy", 1.0, 0, EASY),
    (3, "matmul/h100-4096", "matmul", "easy", 2 / 3, 0, AGAIN),
    (2, "roofline/l4-ridge", "roofline", "easy", 1.0, 0, GOOD),
    (2, "roofline/ridge-point", "roofline", "easy", 1.0, 1, GOOD),
    (1, "roofline/l4-ridge", "roofline", "easy", 1.0, 0, GOOD),
    (1, "matmul/h100-4096", "matmul", "easy", 1.0, 0, GOOD),
    (1, "kv_cache/max-batch", "kv_cache", "hard", 0.0, 2, AGAIN),
]


def _practised(store: ProgressStore, clock: Clock) -> None:
    session = store.start_session(Plan())
    for position, (days, question, family, difficulty, score, hints, rating) in enumerate(HISTORY):
        clock.now = THURSDAY - days * DAY
        attempt = Attempt(
            position, question, question, family, difficulty, 1, {}, {"a": {}}, score, hints, 60.0
        )
        store.record_attempt(session, attempt, rating)
    store.finish(session)
    clock.now = THURSDAY


def _app(tmp_path: Path, history: bool = False, **options: object) -> PerfdrillApp:
    clock = Clock(THURSDAY)
    store = ProgressStore(tmp_path / "progress.sqlite3", now=clock)
    if history:
        _practised(store, clock)
    questions = hand_checked_bank(tmp_path / "questions")
    return PerfdrillApp(store, questions=[questions], clock=lambda: 0.0, **options)  # type: ignore[arg-type]


async def _settle(pilot: Pilot[None], screen_name: str) -> None:
    for _ in range(400):
        if type(pilot.app.screen).__name__ == screen_name and getattr(pilot.app.screen, "ready", True):
            break
        await pilot.pause(0.05)
    else:
        raise AssertionError(f"{screen_name} never showed; on {type(pilot.app.screen).__name__}")
    await pilot.app.workers.wait_for_complete()
    for field in pilot.app.screen.query(Input):
        field.cursor_blink = False  # a blinking cursor would make the picture depend on timing
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


def _after(*steps: tuple[str, tuple[str, ...]]) -> Callable[[Pilot[None]], Awaitable[None]]:
    """Wait for each named screen (the start screen: and for its bank), then press its keys."""

    async def run(pilot: Pilot[None]) -> None:
        for screen_name, keys in steps:
            await _settle(pilot, screen_name)
            await pilot.press(*keys)
        await pilot.app.workers.wait_for_complete()
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()

    return run


WRONG = ("QuestionScreen", (*"68.7 GFLOP", "enter", *"139 us", "enter", *"compute", "enter"))
STARTED = dict(plan=SESSION, start=True)
SCREENS: dict[str, tuple[dict[str, object], Callable[[Pilot[None]], Awaitable[None]]]] = {
    "start": (dict(plan=Plan(seed=42)), _after(("StartScreen", ()))),
    "question": (STARTED, _after(("QuestionScreen", (*"137 GFLOP", "enter", "1")))),
    "question-specs": (STARTED, _after(("QuestionScreen", ("ctrl+b", "ctrl+t")))),
    "feedback": (STARTED, _after(WRONG, ("FeedbackScreen", ()))),
    "second-try": (STARTED, _after(WRONG, ("FeedbackScreen", ("t",)), ("QuestionScreen", ()))),
    "answers-shown": (STARTED, _after(WRONG, ("FeedbackScreen", ("s",)))),
    "explanation": (STARTED, _after(WRONG, ("FeedbackScreen", ("s", "x")))),
    "confirm-end": (STARTED, _after(("QuestionScreen", ("escape",)), ("ConfirmScreen", ()))),
    "summary": (
        STARTED,
        _after(
            WRONG,
            ("FeedbackScreen", ("n",)),
            ("QuestionScreen", (*"403", "enter")),
            ("FeedbackScreen", ("n",)),
        ),
    ),
    "help": (STARTED, _after(("QuestionScreen", ("f1",)), ("HelpScreen", ()))),
    "progress": (dict(history=True), _after(("StartScreen", ("ctrl+p",)), ("ProgressScreen", ()))),
}


@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
@pytest.mark.parametrize("name", list(SCREENS))
def test_screen(name: str, size: tuple[int, int], snap_compare, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    options, run_before = SCREENS[name]
    assert snap_compare(_app(tmp_path, **options), terminal_size=size, run_before=run_before)
