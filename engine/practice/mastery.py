"""What the history says a person knows: mastery per template, the family × difficulty grid,
streaks and days practised, and first-try accuracy per family, week by week.

Mastery (PrairieLearn's idea of N correct variants): a template is mastered once it was answered
fully right at the first try, without hints, on `mastery_after` different days. Days are local.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from perfdrill.engine.practice.records import HistoryRow
from perfdrill.engine.practice.schedule import CardRow, end_of_day
from perfdrill.engine.problems.templates import DIFFICULTIES, FAMILIES, Template


@dataclass(frozen=True)
class TemplateProgress:
    id: str
    family: str
    difficulty: str
    first_tries: int
    right: int  # first tries fully right
    clean_days: int  # days with a first try fully right and without hints
    mastered: bool
    due: float | None  # Unix seconds; None: never reviewed
    due_today: bool


@dataclass(frozen=True)
class Cell:
    family: str
    difficulty: str
    templates: int
    started: int  # templates tried at least once
    mastered: int
    due: int  # templates due by the end of today


@dataclass(frozen=True)
class Streak:
    days_practised: int
    current: int  # consecutive days up to today (or up to yesterday, until today is over)
    longest: int
    practised_today: bool


@dataclass(frozen=True)
class Accuracy:
    family: str
    week: str  # ISO week, e.g. "2025-W09"
    first_tries: int
    right: int


@dataclass(frozen=True)
class ProgressReport:
    mastery_after: int
    templates: tuple[TemplateProgress, ...]
    cells: tuple[Cell, ...]
    streak: Streak
    accuracy: tuple[Accuracy, ...]

    def cells_of(self, family: str) -> dict[str, Cell]:
        """The family's row of the grid, by difficulty (difficulties without templates left out)."""
        return {cell.difficulty: cell for cell in self.cells if cell.family == family}

    def recent_accuracy(self, weeks: int) -> tuple[list[str], dict[str, dict[str, Accuracy]]]:
        """The last `weeks` weeks with any first try (oldest first), and per family its accuracy
        in each of them that it was practised."""
        recent = sorted({a.week for a in self.accuracy})[-weeks:]
        by_family: dict[str, dict[str, Accuracy]] = {}
        for row in self.accuracy:
            if row.week in recent:
                by_family.setdefault(row.family, {})[row.week] = row
        return recent, by_family


def _day(when: float) -> date:
    return datetime.fromtimestamp(when).date()


def _week(day: date) -> str:
    year, week, _ = day.isocalendar()
    return f"{year}-W{week:02d}"


def streak(days: set[date], today: date) -> Streak:
    """Days practised, the current run of consecutive days and the longest run."""
    longest = run = 0
    previous: date | None = None
    for day in sorted(days):
        run = run + 1 if previous is not None and day - previous == timedelta(days=1) else 1
        longest = max(longest, run)
        previous = day
    current = 0
    day = today if today in days else today - timedelta(days=1)
    while day in days:
        current += 1
        day -= timedelta(days=1)
    return Streak(len(days), current, longest, today in days)


def progress_report(
    history: Sequence[HistoryRow],
    cards: Mapping[str, CardRow],
    templates: Sequence[Template],
    *,
    now: float,
    mastery_after: int,
) -> ProgressReport:
    """Mastery and due dates of every template in `templates`, and streaks and accuracy over the
    whole history (templates no longer in the bank included)."""
    tries: dict[str, list[HistoryRow]] = {}
    for row in history:
        tries.setdefault(row.question, []).append(row)
    horizon = end_of_day(now)
    progress = []
    for template in templates:
        rows = tries.get(template.id, [])
        clean_days = len({_day(r.answered) for r in rows if r.score >= 1 and not r.hints})
        card = cards.get(template.id)
        progress.append(
            TemplateProgress(
                template.id,
                template.family,
                template.difficulty,
                len(rows),
                sum(r.score >= 1 for r in rows),
                clean_days,
                clean_days >= mastery_after,
                card.due if card else None,
                card is not None and card.due <= horizon,
            )
        )
    cells = []
    for family in FAMILIES:
        for difficulty in DIFFICULTIES:
            group = [p for p in progress if p.family == family and p.difficulty == difficulty]
            if group:
                cells.append(
                    Cell(
                        family,
                        difficulty,
                        len(group),
                        sum(p.first_tries > 0 for p in group),
                        sum(p.mastered for p in group),
                        sum(p.due_today for p in group),
                    )
                )
    weeks: dict[tuple[str, str], list[HistoryRow]] = {}
    for row in history:
        weeks.setdefault((row.family, _week(_day(row.answered))), []).append(row)
    accuracy = tuple(
        Accuracy(family, week, len(rows), sum(r.score >= 1 for r in rows))
        for (family, week), rows in sorted(weeks.items())
    )
    days = {_day(row.answered) for row in history}
    return ProgressReport(mastery_after, tuple(progress), tuple(cells), streak(days, _day(now)), accuracy)
