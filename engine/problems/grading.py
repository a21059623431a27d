"""Grading: each part within its tolerance (a whole count exactly), every catalogued mistake a wrong
value matches named (one, or all of them: never one of several), and feedback that points at the
slip without giving the answer away."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from perfdrill.engine.errors import AnswerFormatError
from perfdrill.engine.problems.answers import parse_choices, parse_numeric
from perfdrill.engine.problems.generation import Problem, ProblemPart
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


def within(value: float, target: float, tolerance: tuple[str, float]) -> bool:
    kind, amount = tolerance
    if kind == "absolute":  # with the same floating-point slack as the others: 1.1k is 1,100
        return abs(value - target) <= amount + 1e-9 * abs(target)
    if kind == "sig_figs":
        if target == 0:
            return value == 0
        half_unit = 0.5 * 10 ** (math.floor(math.log10(abs(target))) - int(amount) + 1)
        return abs(value - target) <= half_unit * (1 + 1e-9)
    return abs(value - target) <= amount * abs(target) * (1 + 1e-9)


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


def slip_feedback(matches: tuple[str, ...]) -> str:
    """What a wrong value that lands on catalogued mistakes is told: the one slip, or every slip
    that gives this value (two slips landing on one value: naming only one would mislead)."""
    if len(matches) == 1:
        mistake = CATALOGUE[matches[0]]
        return f"Not quite. Looks like: {mistake.title}. {mistake.explanation}"
    slips = " Or: ".join(f"{CATALOGUE[m].title}. {CATALOGUE[m].explanation}" for m in matches)
    return f"Not quite. {len(matches)} slips give this value. Either: {slips}"


def grade_part(part: ProblemPart, text: str | None) -> PartGrade:
    if text is None or not text.strip():
        return PartGrade(part.name, "invalid", 0.0, expected(part), "No answer given (no attempt used).")
    try:
        if part.kind == "numeric":
            return _grade_numeric(part, parse_numeric(part, text))
        return _grade_choices(part, parse_choices(part, text))
    except AnswerFormatError as exc:
        return PartGrade(part.name, "invalid", 0.0, expected(part), f"{exc.message} (no attempt used).")


def _grade_numeric(part: ProblemPart, value: float) -> PartGrade:
    assert part.value is not None
    if within(value, part.value, part.tolerance):
        return PartGrade(part.name, "correct", 1.0, expected(part), "Correct.")
    matches = diagnose(part, value)
    if matches:
        feedback = slip_feedback(matches)
        if len(matches) == 1:
            return PartGrade(part.name, "incorrect", 0.0, expected(part), feedback, matches[0])
        return PartGrade(part.name, "incorrect", 0.0, expected(part), feedback, None, matches)
    if part.exact is not None:
        why = part.exact.why_not(value, part.value)
        feedback = f"{why[0].upper()}{why[1:]}. A count like this is graded exactly."
        return PartGrade(part.name, "incorrect", 0.0, expected(part), feedback)
    ratio = abs(value / part.value) if part.value else math.inf
    direction = "too high" if value > part.value else "too low"
    size = " by more than 10×" if ratio >= 10 or ratio <= 0.1 else ""
    feedback = f"Not within {tolerance_text(part.tolerance)}: {direction}{size}."
    return PartGrade(part.name, "incorrect", 0.0, expected(part), feedback)


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
