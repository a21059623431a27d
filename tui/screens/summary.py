"""The end of a session: first-try score by family, time taken, and the questions missed, each
with the reference that regenerates it from the command line."""

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
        answered = summary.answered
        correct = sum(row[2] for row in summary.by_family)
        yield TitleBar()
        with VerticalScroll(id="summary"):
            headline = Text(style="bold")
            if answered:
                headline.append(
                    f"{correct}/{answered} answered fully right at the first try"
                    f" · {duration(summary.seconds)} on questions"
                )
            else:
                headline.append("No question was answered in this session.")
            if not summary.finished and answered:
                headline.append(
                    "\nThe session was left before its end: Continue on the start screen picks it up.",
                    style="not bold",
                )
            yield Static(headline, id="headline")
            if answered:
                table = Table(title="By family", expand=True, title_justify="left", header_style="bold")
                for column in ("family", "answered", "right", "score"):
                    table.add_column(column, justify="left" if column == "family" else "right")
                for family, count, right, score in summary.by_family:
                    table.add_row(FAMILIES.get(family, family), str(count), str(right), f"{score:.0%}")
                yield Static(table, id="families-table")
                missed = Text("Missed at the first try", style="bold")
                for attempt in summary.missed:
                    missed.append(f"\n  {attempt.title}  ", style="")
                    missed.append(f"{attempt.reference} · scored {attempt.score:.0%}", style="dim")
                if not summary.missed:
                    missed.append(
                        "\n  nothing: every question was fully right at the first try", style="green"
                    )
                yield Static(missed, id="missed")
        yield Footer()

    def action_retry_missed(self) -> None:
        if not self.summary.missed:
            self.notify("Nothing was missed.")
            return
        self.post_message(StartSession(self.summary.retry_plan(self.seed)))

    def action_back(self) -> None:
        self.post_message(BackToStart())
