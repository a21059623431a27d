"""Progress: mastery per family and difficulty, what is due today, streaks, and first-try accuracy
per family over the last weeks. `perfdrill stats` prints the same report."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from perfdrill.engine.model.spoken import counted
from perfdrill.engine.practice import ProgressReport, ProgressStore, progress_report
from perfdrill.engine.problems import DIFFICULTIES, FAMILIES, Bank
from perfdrill.tui.messages import BackToStart, StartReview
from perfdrill.tui.widgets import TitleBar

WEEKS = 4


def read_report(store: ProgressStore, bank: Bank) -> ProgressReport:
    """The report this screen shows, from the store's history and cards (raises PerfdrillError)."""
    return progress_report(
        store.history(),
        store.cards(),
        list(bank.templates.values()),
        now=store.now(),
        mastery_after=store.setting("mastery_after"),
    )


def mastery_table(report: ProgressReport) -> Table:
    """Families down, difficulties across: templates mastered of those there are, and how many are due."""
    table = Table(expand=True, show_edge=False, pad_edge=False, header_style="bold")
    table.add_column("family", ratio=1, no_wrap=True, overflow="ellipsis")
    for difficulty in DIFFICULTIES:
        table.add_column(difficulty, width=6, justify="right")
    table.add_column("due", width=4, justify="right")
    for family, label in FAMILIES.items():
        cells = report.cells_of(family)
        if not cells:
            continue
        row: list[Text | str] = [label]
        for difficulty in DIFFICULTIES:
            cell = cells.get(difficulty)
            if cell is None:
                row.append(Text("–", style="dim"))
                continue
            style = "bold green" if cell.mastered == cell.templates else "" if cell.started else "dim"
            row.append(Text(f"{cell.mastered}/{cell.templates}", style=style))
        due = sum(c.due for c in cells.values())
        row.append(Text(str(due), style="bold yellow") if due else Text("·", style="dim"))
        table.add_row(*row)
    return table


def accuracy_table(report: ProgressReport) -> Table | None:
    """First tries fully right per family, week by week (the last few weeks practised)."""
    weeks, accuracy = report.recent_accuracy(WEEKS)
    if not weeks:
        return None
    table = Table(expand=True, show_edge=False, pad_edge=False, header_style="bold")
    table.add_column("first try right", ratio=1, no_wrap=True, overflow="ellipsis")
    for week in weeks:
        table.add_column(week, width=10, justify="right")
    for family, label in FAMILIES.items():
        if family in accuracy:
            shown = [accuracy[family].get(week) for week in weeks]
            table.add_row(
                label, *(f"{a.right / a.first_tries:.0%} of {a.first_tries}" if a else "" for a in shown)
            )
    return table


def streak_line(report: ProgressReport) -> Text:
    streak = report.streak
    if not streak.days_practised:
        return Text("Nothing practised yet: every answer counts from the first one.", style="dim")
    mastered = sum(t.mastered for t in report.templates)
    due = sum(t.due_today for t in report.templates)
    text = Text(f"Practised on {counted(streak.days_practised, 'day')}", style="bold")
    text.append(f" · streak {counted(streak.current, 'day')} (longest {streak.longest})")
    text.append(f" · {mastered} of {len(report.templates)} templates mastered · {due} due today")
    return text


class ProgressScreen(Screen[None]):
    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("ctrl+e", "review", "Review", priority=True),
    ]
    AUTO_FOCUS = "#progress"

    def __init__(self, report: ProgressReport) -> None:
        super().__init__()
        self.report = report

    def compose(self) -> ComposeResult:
        report = self.report
        yield TitleBar("Progress")
        with VerticalScroll(id="progress"):
            yield Static(streak_line(report), id="streak")
            yield Static(
                Text(
                    f"Mastered: fully right at the first try, without hints, on {report.mastery_after}"
                    " different days. Each cell: mastered / templates.",
                    style="dim",
                ),
                id="mastery-rule",
            )
            yield Static(mastery_table(report), id="mastery")
            accuracy = accuracy_table(report)
            if accuracy is not None:
                yield Static(accuracy, id="accuracy")
        yield Footer()

    def action_back(self) -> None:
        self.post_message(BackToStart())

    def action_review(self) -> None:
        self.post_message(StartReview())
