"""The smaller traps issue 15 found in the practice app, and the store failing under it, each
driven through Textual's pilot.

Hand-checked numbers come from tests/helpers.py: the H100 matmul's 2·4096³ = 137.4 GFLOP (68.7
when the 2 is forgotten) and 138.97 µs; the L4 ridge of 121 TFLOP/s / 300 GB/s = 403 FLOP/byte.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Button, Input, Static

from perfdrill.engine.practice.plan import Plan
from perfdrill.engine.problems.templates import FAMILIES
from perfdrill.tui.app import PerfdrillApp
from perfdrill.tui.screens.feedback import FeedbackScreen
from perfdrill.tui.screens.question import QuestionScreen
from perfdrill.tui.screens.start import StartScreen
from perfdrill.tui.screens.summary import SummaryScreen
from perfdrill.tui.widgets import TickBox, TickList
from tests.pilot import (
    RIGHT,
    app_factory,
    flip_table,
    screen_text,
    settle,
    start_screen_ready,
    submit,
    until,
    wait_for,
)


@pytest.fixture
def make_app(tmp_path: Path) -> Callable[..., PerfdrillApp]:
    return app_factory(tmp_path)


# Smaller traps ------------------------------------------------------------------------------


async def test_a_not_submitted_notice_stays_on_its_question(make_app: Callable[..., PerfdrillApp]) -> None:
    app = make_app(start=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, QuestionScreen)
        await pilot.press(*"137 GFLOP", "enter", *"139 GB", "ctrl+s")
        notice = app.screen.query_one("#not-submitted", Static)
        await until(pilot, lambda: "Not submitted" in str(notice.render()), "the notice")
        field = app.screen.query_one("#answer-runtime", Input)
        field.value = "139 us"
        await pilot.press("enter", *"compute", "enter")
        await wait_for(pilot, FeedbackScreen)
        assert "Not submitted" not in screen_text(pilot)
        assert all("Not submitted" not in (n.title + n.message) for n in app._notifications)


async def test_sixty_by_twenty_keeps_the_count_and_the_continue_button(
    make_app: Callable[..., PerfdrillApp],
) -> None:
    app = make_app(start=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await submit(pilot, *RIGHT)  # leaves a session to continue
    small = make_app()
    async with small.run_test(size=(60, 20)) as pilot:
        await start_screen_ready(pilot)
        await settle(pilot)
        count = small.screen.query_one("#count", Input)
        assert count.value == "10" and count.content_region.width >= len("10") + 1
        resume = small.screen.query_one("#resume-button", Button)
        screen = small.screen.region
        assert resume.display and resume.region.width > 0 and screen.contains_region(resume.region)


@pytest.mark.parametrize("size", [(80, 24), (160, 40)])
async def test_family_names_are_never_cut_off(
    make_app: Callable[..., PerfdrillApp], size: tuple[int, int]
) -> None:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await start_screen_ready(pilot)
        families = app.screen.query_one("#families", TickList)
        lines = [families.render_line(y).text for y in range(len(FAMILIES))]
        for label in FAMILIES.values():
            assert any(label in line for line in lines), label


async def test_no_color_ticked_and_empty_boxes_differ_in_glyph(
    make_app: Callable[..., PerfdrillApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(plan=Plan(families=("matmul",)))
    async with app.run_test(size=(100, 30)) as pilot:
        await start_screen_ready(pilot)
        families = app.screen.query_one("#families", TickList)
        lines = {
            line.split("▌")[-1].strip(): line for line in (families.render_line(y).text for y in range(13))
        }
        assert "✓" in lines["Matmul"] and "✓" not in lines["Roofline reading"]
        endless = app.screen.query_one("#endless", TickBox)
        assert "✓" not in endless.render().plain
        endless.value = True
        await settle(pilot)
        assert "✓" in endless.render().plain


# The store failing under the app ---------------------------------------------------------------


class FullDisk:
    """A connection on a full disk: reads work, every write fails as SQLite reports it."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __getattr__(self, name: str) -> Any:
        return getattr(self._db, name)

    def execute(self, sql: str, *args: Any) -> Any:
        if sql.startswith("BEGIN"):
            raise sqlite3.OperationalError("database or disk is full")
        return self._db.execute(sql, *args)


async def test_a_full_disk_is_one_notice_and_the_session_goes_on(
    make_app: Callable[..., PerfdrillApp],
) -> None:
    app = make_app(start=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, QuestionScreen)
        app.store._db = FullDisk(app.store._db)  # type: ignore[assignment]
        await submit(pilot, *RIGHT)
        await until(
            pilot, lambda: any(n.title == "Progress not saved" for n in app._notifications), "a notice"
        )
        (notice,) = [n for n in app._notifications if n.title == "Progress not saved"]
        assert "disk is full" in notice.message and "\n" not in notice.message
        await pilot.press("n")  # advancing cannot be saved either: still no traceback
        await wait_for(pilot, QuestionScreen)
        assert app.screen.problem.id == "roofline/l4-ridge"
        await submit(pilot, "403")
        await pilot.press("n")
        await wait_for(pilot, SummaryScreen)
        assert "2/2 answered fully right" in screen_text(pilot)
    assert app.return_code in (None, 0)


async def test_a_damaged_store_is_one_line_on_the_start_screen(tmp_path: Path) -> None:
    path = tmp_path / "progress.sqlite3"
    make = app_factory(tmp_path)
    app = make(start=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await submit(pilot, *RIGHT)
        await until(pilot, lambda: app.store.cards(), "the answer being saved")
    app.store.close()
    flip_table(path, "attempts")
    damaged = path.read_bytes()
    again = make()
    async with again.run_test(size=(100, 40)) as pilot:
        await start_screen_ready(pilot)
        history = str(again.screen.query_one("#history", Static).render())
        assert "cannot read the progress store" in history and "malformed" in history
        assert "\n" not in history.strip()
        assert isinstance(again.screen, StartScreen)
    again.store.close()
    assert path.read_bytes() == damaged
