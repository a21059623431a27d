"""The end of a session in numbers: score by family over first tries, time, and what was missed."""

from __future__ import annotations

from dataclasses import dataclass

from perfdrill.engine.practice.plan import Plan
from perfdrill.engine.practice.records import Attempt
from perfdrill.engine.problems.generation import variant_seed


@dataclass(frozen=True)
class SessionSummary:
    by_family: tuple[tuple[str, int, int, float], ...]  # family, first tries, right, mean score
    seconds: float
    missed: tuple[Attempt, ...]  # every variant whose first try was not fully right, redone or not
    finished: bool  # False: ended early, and the session can be continued

    @property
    def answered(self) -> int:
        return sum(row[1] for row in self.by_family)

    def retry_plan(self, seed: int) -> Plan:
        """A plan of fresh variants of the missed questions, on the same chips and models."""
        chips = self.missed[0].chips if self.missed else ()
        models = self.missed[0].models if self.missed else ()
        return Plan(
            items=tuple((a.question, variant_seed(a.seed, seed)) for a in self.missed),
            seed=seed,
            chips=chips,
            models=models,
        )


def summarize(attempts: tuple[Attempt, ...], *, finished: bool = True) -> SessionSummary:
    """Scores count first tries only: a second try teaches, but it is not what the user knew."""
    firsts = [attempt for attempt in attempts if attempt.try_number == 1]
    families: dict[str, list[Attempt]] = {}
    for attempt in firsts:
        families.setdefault(attempt.family, []).append(attempt)
    by_family = tuple(
        (family, len(group), sum(a.score >= 1 for a in group), sum(a.score for a in group) / len(group))
        for family, group in sorted(families.items())
    )
    # Every miss the header counts: a fresh variant done right after (`r`) does not undo the miss.
    missed = tuple(sorted((a for a in firsts if a.score < 1), key=lambda a: a.position))
    return SessionSummary(by_family, sum(a.seconds for a in attempts), missed, finished)
