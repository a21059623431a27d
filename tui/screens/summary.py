"""The end of a session: score by family, time taken, and the questions missed."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from perfdrill.engine.practice import SessionSummary
from perfdrill.engine.problems import FAMILIES
from perfdrill.tui.messages import BackToStart, StartSession
from perfdrill.tui.widgets import TitleBar


def duration(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes}m {rest:02d}s" if minutes else f"{rest}s"


class SummaryScreen(Screen[None]):
    BINDINGS = [
        Binding("r", "retry_missed", "Retry missed"),
        Binding("enter", "back", "New session"),
        Binding("escape", "back", "Back"),
    ]
    AUTO_FOCUS = "#summary"

    def __init__(self, summary: SessionSummary, seed: int) -> None:
        super().__init__()
        self.summary = summary
        self.seed = seed

    def compose(self) -> ComposeResult:
        summary = self.summary
        attempts = sum(row[1] for row in summary.by_family)
        correct = sum(row[2] for row in summary.by_family)
        yield TitleBar()
        with VerticalScroll(id="summary"):
            headline = (
                f"{correct}/{attempts} answered fully right · {duration(summary.seconds)} on questions"
                if attempts
                else "No question was answered in this session."
            )
            yield Static(Text(headline, style="bold"), id="headline")
            if attempts:
                table = Table(title="By family", expand=True, title_justify="left", header_style="bold")
                for column in ("family", "attempts", "right", "score"):
                    table.add_column(column, justify="left" if column == "family" else "right")
                for family, count, right, score in summary.by_family:
                    table.add_row(FAMILIES.get(family, family), str(count), str(right), f"{score:.0%}")
                yield Static(table, id="families-table")
            missed = Text("Missed", style="bold")
            for attempt in summary.missed:
                missed.append(f"\n  {attempt.title}  ", style="")
                missed.append(f"{attempt.question} #{attempt.seed} · score {attempt.score:.0%}", style="dim")
            if not summary.missed:
                missed.append("\n  nothing: every question ended fully right", style="green")
            yield Static(missed, id="missed")
        yield Footer()

    def action_retry_missed(self) -> None:
        if not self.summary.missed:
            self.notify("Nothing was missed.")
            return
        self.post_message(StartSession(self.summary.retry_plan(self.seed)))

    def action_back(self) -> None:
        self.post_message(BackToStart())
