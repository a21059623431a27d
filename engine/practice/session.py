"""The running practice session: where it is, what it has asked, the tries at the current question,
and saving each graded try and each finished question's review.

Screens read and advance this; it holds no widgets, so the flow is easy to follow and to test.
A question gets up to `MAX_TRIES` tries at the same numbers before its answer is shown; the first
try is the one scored, and the question's FSRS rating is settled when it is over.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from perfdrill.engine.practice.plan import Practice
from perfdrill.engine.practice.progress import ProgressStore
from perfdrill.engine.practice.records import Attempt, StoredSession
from perfdrill.engine.practice.schedule import Try, rating_for
from perfdrill.engine.practice.summary import SessionSummary, summarize
from perfdrill.engine.problems.generation import Problem
from perfdrill.engine.problems.grading import Grade, grade

MAX_TRIES = 2
NOTE_KEY = "#note"  # a reasoning note among an attempt's answers: never a part name


def _try(attempt: Attempt) -> Try:
    return Try(attempt.score, attempt.hints, attempt.seconds, len(attempt.parts))


@dataclass(frozen=True)
class Outcome:
    """One graded try, and whether its question is over."""

    grade: Grade
    attempt: Attempt
    rating: int | None  # the question's FSRS rating once it is over; None while a try is left

    @property
    def can_try_again(self) -> bool:
        return self.rating is None


def resume_point(stored: StoredSession) -> tuple[int, Attempt | None]:
    """The position a stored session goes on from, and the wrong first try whose second try is
    still owed there (None: a new question). The stored position moves on when a question is
    over (next, or its answers shown); the attempts say what was graded after that."""
    last = stored.attempts[-1] if stored.attempts else None
    if last is None or last.position < stored.position:
        return stored.position, None
    if last.try_number == 1 and last.score < 1 and not stored.plan.interview:  # an interview asks once
        return last.position, last
    return last.position + 1, None


@dataclass
class SessionState:
    practice: Practice
    store: ProgressStore
    session_id: int
    clock: Callable[[], float]
    position: int = 0
    retries: int = 0  # fresh variants asked for so far, so each retry gets a new seed
    attempts: list[Attempt] = field(default_factory=list)
    first_try: Attempt | None = None  # the current question's wrong first try, while a second may follow
    first_try_reviewed: bool = False  # that try's question was already reviewed (quit on its feedback)

    @classmethod
    def resume(
        cls, stored: StoredSession, practice: Practice, store: ProgressStore, clock: Callable[[], float]
    ) -> SessionState:
        """Exactly where `stored` stopped: a question already graded is never graded again as a
        first try, and a second try still owed is offered as a second try."""
        position, pending = resume_point(stored)
        state = cls(practice, store, stored.id, clock, position, attempts=list(stored.attempts))
        if pending is not None:
            state.first_try = pending
            state.first_try_reviewed = store.reviewed_since_last_try(stored.id, pending.question)
        return state

    @property
    def total(self) -> int | None:
        return self.practice.plan.total

    @property
    def finished(self) -> bool:
        return self.total is not None and self.position >= self.total

    def progress_label(self) -> str:
        """E.g. "question 3/10", "review 2/5" or "question 12 (endless)"."""
        kind = "review" if self.practice.plan.review else "question"
        if self.total is None:
            return f"{kind} {self.position + 1} (endless)"
        return f"{kind} {self.position + 1}/{self.total}"

    def reference(self, problem: Problem) -> str:
        """The shown variant as the command line regenerates it, restriction included."""
        return self.practice.plan.reference(problem.id, problem.seed)

    def next_problem(self) -> Problem:
        return self.practice.problem(self.position)

    def fresh_variant(self, problem: Problem) -> Problem:
        self.retries += 1
        return self.practice.fresh_variant(problem, self.retries)

    def grade(
        self, problem: Problem, answers: Mapping[str, str], hints: int, started: float, note: str = ""
    ) -> Outcome:
        """Grade one try; the caller has already checked every answer parses. A wrong first try
        leaves the question open for a second try at the same numbers, except in an interview,
        where each question is asked once. A reasoning `note` is saved with the answers."""
        result = grade(problem, answers)
        if note.strip():
            answers = {**answers, NOTE_KEY: note.strip()}
        seconds = max(0.0, self.clock() - started)
        first = self.first_try
        if first is not None and (first.question, first.seed) != (problem.id, problem.seed):
            first = None  # a fresh variant is a new question
        attempt = Attempt.of(
            self.position,
            problem,
            answers,
            result,
            hints,
            seconds,
            plan=self.practice.plan,
            try_number=2 if first is not None else 1,
        )
        if first is None and result.score < 1 and not self.practice.plan.interview:
            return Outcome(result, attempt, None)
        rating = rating_for(_try(first), _try(attempt)) if first is not None else rating_for(_try(attempt))
        return Outcome(result, attempt, rating)

    def accept(self, outcome: Outcome) -> None:
        """Take the try into the session (at once, so the next key already sees it)."""
        self.attempts.append(outcome.attempt)
        self.first_try = outcome.attempt if outcome.can_try_again else None

    def save(self, outcome: Outcome) -> None:
        """One transaction per try, so a crash loses at most the try in flight; a PerfdrillError
        (a full disk) is the caller's to report, and the session goes on in memory."""
        settled = outcome.attempt.try_number > 1 and self.first_try_reviewed  # reviewed at the quit
        self.store.record_attempt(self.session_id, outcome.attempt, None if settled else outcome.rating)
        if outcome.rating is not None:
            self.first_try_reviewed = False

    def close_question(self) -> None:
        """The current question ends without another try (its answer shown, or the user moved
        on): a wrong first try is reviewed as forgotten."""
        first, self.first_try = self.first_try, None
        reviewed, self.first_try_reviewed = self.first_try_reviewed, False
        if first is not None and not reviewed:
            self.store.record_review(first.question, rating_for(_try(first)), self.session_id)

    def answers_shown(self) -> None:
        """The current question is over: a resumed session goes on from the next one."""
        self.close_question()
        self.store.advance(self.session_id, self.position + 1)

    def advance(self) -> None:
        self.position += 1
        self.store.advance(self.session_id, self.position)

    def summary(self, *, finished: bool) -> SessionSummary:
        return summarize(tuple(self.attempts), finished=finished)

    def finish(self) -> None:
        """The last question is done: the session is no longer offered to continue."""
        self.store.finish(self.session_id)
