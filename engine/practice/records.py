"""What the progress store keeps and gives back: one graded attempt, a stored session, a family's
statistics and the first tries that mastery, streaks and accuracy read. Plain records, free of SQLite.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from perfdrill.engine.practice.plan import Plan, variant_reference
from perfdrill.engine.problems.generation import Problem
from perfdrill.engine.problems.grading import Grade


@dataclass(frozen=True)
class Attempt:
    position: int
    question: str
    title: str
    family: str
    difficulty: str
    seed: int
    answers: dict[str, str]
    parts: dict[str, dict[str, Any]]  # part -> {status, score, mistake}
    score: float
    hints: int
    seconds: float
    try_number: int = 1  # 2: the same numbers again, before the answer was shown
    chips: tuple[str, ...] = ()  # the session's restriction, which decides the variant a seed draws
    models: tuple[str, ...] = ()

    @classmethod
    def of(
        cls,
        position: int,
        problem: Problem,
        answers: Mapping[str, str],
        grade: Grade,
        hints: int,
        seconds: float,
        *,
        plan: Plan,
        try_number: int = 1,
    ) -> Attempt:
        template = problem.template
        parts = {
            name: {"status": g.status, "score": g.score, "mistake": g.mistake}
            for name, g in grade.parts.items()
        }
        return cls(
            position,
            problem.id,
            template.title,
            template.family,
            template.difficulty,
            problem.seed,
            dict(answers),
            parts,
            grade.score,
            hints,
            seconds,
            try_number,
            plan.chips,
            plan.models,
        )

    @property
    def mistakes(self) -> tuple[str, ...]:
        return tuple(part["mistake"] for part in self.parts.values() if part.get("mistake"))

    @property
    def reference(self) -> str:
        """The variant as `perfdrill preview` and `grade` regenerate it."""
        return variant_reference(self.question, self.seed, self.chips, self.models)


@dataclass(frozen=True)
class StoredSession:
    id: int
    plan: Plan
    position: int
    attempts: tuple[Attempt, ...]


@dataclass(frozen=True)
class FamilyStats:
    family: str
    attempts: int  # first tries: a second try is practice, not a new answer
    correct: int  # first tries scored in full
    mean_score: float
    seconds: float
    top_mistake: str | None


@dataclass(frozen=True)
class HistoryRow:
    """One first try, as mastery, streaks and accuracy read it."""

    question: str
    family: str
    difficulty: str
    answered: float  # Unix seconds
    score: float
    hints: int
