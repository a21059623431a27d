"""Grading: each part within its tolerance (a whole count exactly), every catalogued mistake a wrong
value matches named (one, or all of them: never one of several), and feedback that points at the
slip without giving the answer away."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from perfdrill.engine.errors import AnswerFormatError
from perfdrill.engine.problems.answers import parse_choices, parse_numeric, typed_figures
from perfdrill.engine.problems.counts import ON_THE_EDGE
from perfdrill.engine.problems.generation import Problem, ProblemPart, within
from perfdrill.engine.problems.mistakes import CATALOGUE


@dataclass(frozen=True)
class PartGrade:
    name: str
    status: str  # correct | incorrect | invalid
    score: float
    expected: dict[str, Any]
    feedback: str
    mistake: str | None = None  # the one catalogued mistake the answer matches
    mistakes: tuple[str, ...] = ()  # every catalogued mistake it matches, when more than one does

    def as_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "score": self.score,
            "expected": self.expected,
            "feedback": self.feedback,
            "mistake": self.mistake,
        }


@dataclass(frozen=True)
class Grade:
    score: float
    parts: dict[str, PartGrade]

    def as_json(self) -> dict[str, Any]:
        return {"score": self.score, "parts": {name: g.as_json() for name, g in self.parts.items()}}


def tolerance_text(tolerance: tuple[str, float]) -> str:
    kind, amount = tolerance
    if kind == "relative":
        return f"{amount * 100:g}%"
    if kind == "sig_figs":
        return f"{int(amount)} significant figures"
    return f"±{amount:g}"


def expected(part: ProblemPart) -> dict[str, Any]:
    if part.kind == "numeric":
        return {"value": part.value, "unit": part.unit}
    if part.kind == "choice":
        return {"answer": part.correct[0]}
    return {"answer": list(part.correct)}


def diagnose(part: ProblemPart, value: float) -> tuple[str, ...]:
    """Every catalogued mistake of the part whose value this answer matches, in catalogue order."""
    return tuple(mistake for mistake, slipped in part.mistakes if within(value, slipped, part.tolerance))


def slip_feedback(matches: tuple[str, ...], typed: tuple[float, str, int] | None = None) -> str:
    """What a wrong value that lands on catalogued mistakes is told: the one slip, or every slip
    that gives this value (two slips landing on one value: naming only one would mislead). With
    `typed`, the student's (number, unit, figures), a slip that scales the answer quotes that
    number; without (an LMS export, written before anyone answers), no number at all."""
    told = [
        (CATALOGUE[m].title, CATALOGUE[m].feedback(*typed) if typed else CATALOGUE[m].explanation)
        for m in matches
    ]
    if len(told) == 1:
        return f"Not quite. Looks like: {told[0][0]}. {told[0][1]}"
    slips = " Or: ".join(f"{title}. {explanation}" for title, explanation in told)
    return f"Not quite. {len(matches)} slips give this value. Either: {slips}"


NO_ANSWER = "No answer given."


def grade_part(part: ProblemPart, text: str | None) -> PartGrade:
    """One part's grade. An empty or unreadable answer is "invalid": it scores 0 and its feedback
    says why, in words for a student (the practice app never grades one: it asks again)."""
    if text is None or not text.strip():
        return PartGrade(part.name, "invalid", 0.0, expected(part), NO_ANSWER)
    try:
        if part.kind == "numeric":
            return _grade_numeric(part, parse_numeric(part, text), typed_figures(text))
        return _grade_choices(part, parse_choices(part, text))
    except AnswerFormatError as exc:
        return PartGrade(part.name, "invalid", 0.0, expected(part), exc.message)


def _grade_numeric(part: ProblemPart, value: float, digits: int = 3) -> PartGrade:
    assert part.value is not None
    if within(value, part.value, part.tolerance):
        return PartGrade(part.name, "correct", 1.0, expected(part), "Correct.")
    matches = diagnose(part, value)
    if matches:
        feedback = slip_feedback(matches, (value, part.unit, digits))
        if len(matches) == 1:
            return PartGrade(part.name, "incorrect", 0.0, expected(part), feedback, matches[0])
        return PartGrade(part.name, "incorrect", 0.0, expected(part), feedback, None, matches)
    if part.exact is not None:
        why = part.exact.why_not(value, part.value)
        graded = (
            "exactly" if part.tolerance != ON_THE_EDGE else "to one either way, its boundary being within 1%"
        )
        feedback = f"{why[0].upper()}{why[1:]}. A count like this is graded {graded}."
        return PartGrade(part.name, "incorrect", 0.0, expected(part), feedback)
    feedback = f"Not within {tolerance_text(part.tolerance)}: {how_far(value, part.value)}."
    return PartGrade(part.name, "incorrect", 0.0, expected(part), feedback)


# A factor of a power of ten that names a slip of its own, by the power and the direction.
_POWER_SLIPS = {
    (2, "low"): "a fraction for a percent?",
    (2, "high"): "a percent for a fraction?",
    (3, "low"): "a prefix slip (µs for ms, k for M)?",
    (3, "high"): "a prefix slip (ms for µs, M for k)?",
    (9, "high"): "a plain count where giga- is asked?",
    (12, "high"): "a plain count where tera- is asked?",
}


def how_far(value: float, target: float) -> str:
    """How far off an answer no catalogued slip explains is: "2.0× low", "12% high", or "100×
    low: a fraction for a percent?" for a factor that is a power of ten."""
    if target == 0 or value == 0 or (value > 0) != (target > 0):
        return "too high" if value > target else "too low"
    ratio = value / target
    direction = "high" if ratio > 1 else "low"
    factor = max(ratio, 1 / ratio)
    if factor < 1.5:
        return f"{abs(ratio - 1):.0%} {direction}"
    if factor < 10:
        return f"{factor:.1f}× {direction}"
    power = round(math.log10(factor))
    if abs(math.log10(factor) - power) < 0.02:  # within 5% of a power of ten
        slip = _POWER_SLIPS.get((power, direction))
        shown = f"{10**power:,}×" if power <= 6 else f"10^{power}×"
        return f"{shown} {direction}" + (f": {slip}" if slip else "")
    if factor < 1e6:  # two figures: "72× high", "2,000× low"
        return f"{round(factor, 1 - math.floor(math.log10(factor))):,.0f}× {direction}"
    mantissa, exponent = f"{factor:.1e}".split("e")
    return f"{mantissa}·10^{int(exponent)}× {direction}"


def _grade_choices(part: ProblemPart, picked: tuple[str, ...]) -> PartGrade:
    wanted = set(part.correct)
    chosen = set(picked)
    if chosen == wanted:
        return PartGrade(part.name, "correct", 1.0, expected(part), "Correct.")
    if part.kind == "choice":
        return PartGrade(part.name, "incorrect", 0.0, expected(part), "Not this one.")
    union = wanted | chosen
    score = len(wanted & chosen) / len(union) if union else 1.0
    missing, extra = len(wanted - chosen), len(chosen - wanted)
    feedback = f"{missing} right option(s) missing and {extra} wrong one(s) picked."
    return PartGrade(part.name, "incorrect", round(score, 3), expected(part), feedback)


def grade(problem: Problem, answers: Mapping[str, str]) -> Grade:
    """Grade every part; a part left out is invalid (unanswered) and scores 0."""
    for name in answers:
        problem.part(name)  # an unknown part name is a usage error, not a silent zero
    parts = {part.name: grade_part(part, answers.get(part.name)) for part in problem.parts}
    score = sum(g.score for g in parts.values()) / len(parts)
    return Grade(round(score, 4), parts)
