"""Driving the practice app through Textual's pilot: waiting for screens, typing answers, reading
what is on screen, damaging its store. Every wait is on a condition, never a fixed sleep."""

from __future__ import annotations

import io
import sqlite3
from collections.abc import Callable
from pathlib import Path

from rich.console import Console, ConsoleRenderable
from textual.pilot import Pilot
from textual.widgets import Input, Static

from perfdrill.engine.practice.plan import Plan
from perfdrill.engine.practice.progress import ProgressStore
from perfdrill.tui.app import PerfdrillApp
from perfdrill.tui.screens.feedback import FeedbackScreen
from perfdrill.tui.screens.question import QuestionScreen
from perfdrill.tui.screens.start import StartScreen
from tests.helpers import hand_checked_bank

TWO_QUESTIONS = Plan(items=(("matmul/h100-4096", 1), ("roofline/l4-ridge", 1)), seed=3)
RIGHT = ("137 GFLOP", "139 us", "compute")  # the H100 matmul, worked in tests/helpers.py
MISSING_2 = ("68.7 GFLOP", "139 us", "compute")  # forgot the 2 in 2·m·k·n


def app_factory(tmp_path: Path, **store_options: object) -> Callable[..., PerfdrillApp]:
    """Apps over the hand-checked bank and one store in `tmp_path`, with a clock frozen at 0."""
    questions = hand_checked_bank(tmp_path / "questions")

    def make(**options: object) -> PerfdrillApp:
        store = ProgressStore(tmp_path / "progress.sqlite3", **store_options)  # type: ignore[arg-type]
        options.setdefault("plan", TWO_QUESTIONS)
        return PerfdrillApp(store, questions=[questions], clock=lambda: 0.0, **options)  # type: ignore[arg-type]

    return make


async def until(
    pilot: Pilot[None], condition: Callable[[], object], what: str, timeout: float = 20.0
) -> None:
    for _ in range(int(timeout / 0.05)):
        if condition():
            await pilot.pause()
            return
        await pilot.pause(0.05)
    raise AssertionError(f"{what} never happened; on {type(pilot.app.screen).__name__}")


async def settle(pilot: Pilot[None]) -> None:
    """Let scheduled callbacks (focus, scrolling) run: a few idle rounds, no fixed sleep."""
    await pilot.wait_for_scheduled_animations()
    for _ in range(3):
        await pilot.pause()


async def wait_for(pilot: Pilot[None], screen: type, timeout: float = 20.0) -> None:
    await until(
        pilot,
        lambda: isinstance(pilot.app.screen, screen) and pilot.app.screen.is_mounted,
        f"{screen.__name__} showing",
        timeout,
    )


async def start_screen_ready(pilot: Pilot[None]) -> None:
    """Wait for the start screen, and for the bank behind it to load."""
    await wait_for(pilot, StartScreen)
    await until(pilot, lambda: pilot.app.screen.ready, "the question bank loading")  # type: ignore[attr-defined]


async def answer(pilot: Pilot[None], *texts: str) -> None:
    """Type each answer into its field and press Enter, as a person would."""
    for text in texts:
        assert isinstance(pilot.app.focused, Input)
        await pilot.press(*text, "enter")


async def submit(pilot: Pilot[None], *texts: str) -> FeedbackScreen:
    """Answer the question on screen; the feedback screen that follows."""
    await wait_for(pilot, QuestionScreen)
    await answer(pilot, *texts)
    await wait_for(pilot, FeedbackScreen)
    assert isinstance(pilot.app.screen, FeedbackScreen)
    return pilot.app.screen


def screen_text(pilot: Pilot[None]) -> str:
    """The plain text of every Static on screen, tables included; the no-break spaces that tie
    numbers to units read as spaces."""
    console = Console(width=120, record=True, file=io.StringIO(), color_system=None)
    for widget in pilot.app.screen.query(Static):
        content = widget.content
        console.print(content if isinstance(content, ConsoleRenderable) else str(content))
    return console.export_text().replace("\u00a0", " ")


def flip_table(path: Path, table: str) -> None:
    """Turn the first bytes of `table`'s root page to garbage, as a flipped disk block would."""
    db = sqlite3.connect(path)
    page_size = db.execute("PRAGMA page_size").fetchone()[0]
    (root,) = db.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()
    db.close()
    data = bytearray(path.read_bytes())
    start = (root - 1) * page_size
    data[start : start + 16] = bytes(b ^ 0xFF for b in data[start : start + 16])
    path.write_bytes(bytes(data))
