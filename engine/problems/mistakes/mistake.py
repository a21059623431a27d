"""One named mistake: a slip written as replacements of the engine's own quantities."""

from __future__ import annotations

import re
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
    # For a slip that scales the answer: the explanation with the student's own number, {typed}
    # (and {undone}, it with the slip undone, in the part's {unit}). A fixed example value in its
    # place would read like the answer.
    with_number: str = ""

    @property
    def targets(self) -> tuple[str, ...]:
        return tuple(target for target, _ in self.replace)

    def expressions(self) -> tuple[tuple[str, Expression], ...]:
        return _parsed(self)

    def feedback(self, typed: float, unit: str, digits: int) -> str:
        """The explanation told to an answer of `typed` (in `unit`) that this slip gives."""
        if not self.with_number:
            return self.explanation
        factor = float(dict(self.expressions())[ANSWER].evaluate(lambda name, scenario: 1.0))
        undone = plain_number(typed / factor, digits)
        return self.with_number.format(typed=plain_number(typed, digits), undone=undone, unit=unit)


def plain_number(value: float, digits: int) -> str:
    """`value` to `digits` significant figures, as a person types it: 0.0435, 4.35, 1.33e13."""
    return re.sub(r"e\+?(-?)0*(\d)", r"e\1\2", f"{value:.{digits}g}")


@cache
def _parsed(mistake: Mistake) -> tuple[tuple[str, Expression], ...]:
    return tuple(
        (target, parse_expression(text, field=f"mistake {mistake.id}")) for target, text in mistake.replace
    )


def slip(mistake_id: str, title: str, explanation: str, *, with_number: str = "", **replace: str) -> Mistake:
    """A catalogue entry: each keyword is a quantity (or ANSWER) and what the slip puts in its place."""
    return Mistake(mistake_id, title, explanation, tuple(replace.items()), with_number)
