"""The running practice session: where it is, what it has asked, and saving each graded attempt.

Screens read and advance this; it holds no widgets, so the flow is easy to follow and to test.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from perfdrill.engine.practice.plan import Practice
from perfdrill.engine.practice.progress import (
    Attempt,
    ProgressStore,
    SessionSummary,
    StoredSession,
    summarize,
)
from perfdrill.engine.problems.generation import Problem
from perfdrill.engine.problems.grading import Grade, grade


@dataclass
class SessionState:
    practice: Practice
    store: ProgressStore
    session_id: int
    clock: Callable[[], float]
    position: int = 0
    retries: int = 0  # fresh variants asked for so far, so each retry gets a new seed
    attempts: list[Attempt] = field(default_factory=list)

    @classmethod
    def resume(
        cls, stored: StoredSession, practice: Practice, store: ProgressStore, clock: Callable[[], float]
    ) -> SessionState:
        answered = any(attempt.position == stored.position for attempt in stored.attempts)
        position = stored.position + 1 if answered else stored.position  # quit on its feedback
        return cls(practice, store, stored.id, clock, position, attempts=list(stored.attempts))

    @property
    def total(self) -> int | None:
        return self.practice.plan.total

    @property
    def finished(self) -> bool:
        return self.total is not None and self.position >= self.total

    def progress_label(self) -> str:
        return (
            f"{self.position + 1}/{self.total}"
            if self.total is not None
            else f"{self.position + 1} (endless)"
        )

    def next_problem(self) -> Problem:
        return self.practice.problem(self.position)

    def fresh_variant(self, problem: Problem) -> Problem:
        self.retries += 1
        return self.practice.fresh_variant(problem, self.retries)

    def grade(
        self, problem: Problem, answers: Mapping[str, str], hints: int, started: float
    ) -> tuple[Grade, Attempt]:
        """Grade one attempt; the caller has already checked every answer parses."""
        result = grade(problem, answers)
        seconds = max(0.0, self.clock() - started)
        return result, Attempt.of(self.position, problem, answers, result, hints, seconds)

    def save(self, attempt: Attempt) -> None:
        """One transaction per attempt, so a crash loses at most the attempt in flight."""
        self.store.record_attempt(self.session_id, attempt)
        self.attempts.append(attempt)

    def advance(self) -> None:
        self.position += 1
        self.store.advance(self.session_id, self.position)

    def finish(self) -> SessionSummary:
        self.store.finish(self.session_id)
        return summarize(tuple(self.attempts))
