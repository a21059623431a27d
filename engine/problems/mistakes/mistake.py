"""One named mistake: a slip written as replacements of the engine's own quantities."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from perfdrill.engine.problems.expressions import Expression, parse_expression

ANSWER = "answer"  # a replacement target meaning the final value itself (unit slips)


@dataclass(frozen=True)
class Mistake:
    id: str
    title: str
    explanation: str
    replace: tuple[tuple[str, str], ...]  # (quantity or ANSWER, expression over that scenario's values)

    @property
    def targets(self) -> tuple[str, ...]:
        return tuple(target for target, _ in self.replace)

    def expressions(self) -> tuple[tuple[str, Expression], ...]:
        return _parsed(self)


@cache
def _parsed(mistake: Mistake) -> tuple[tuple[str, Expression], ...]:
    return tuple(
        (target, parse_expression(text, field=f"mistake {mistake.id}")) for target, text in mistake.replace
    )


def slip(mistake_id: str, title: str, explanation: str, **replace: str) -> Mistake:
    """A catalogue entry: each keyword is a quantity (or ANSWER) and what the slip puts in its place."""
    return Mistake(mistake_id, title, explanation, tuple(replace.items()))
