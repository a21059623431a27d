"""Grading: each part within its tolerance, a named mistake where a wrong value matches exactly
one, and feedback that points at the slip without giving the answer away."""

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
    mistake: str | None = None

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
    if kind == "absolute":
        return abs(value - target) <= amount
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


def diagnose(part: ProblemPart, value: float) -> str | None:
    """The one catalogued mistake whose value this answer matches, if exactly one does."""
    matches = [mistake for mistake, slipped in part.mistakes if within(value, slipped, part.tolerance)]
    return matches[0] if len(matches) == 1 else None


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
    mistake_id = diagnose(part, value)
    if mistake_id is not None:
        mistake = CATALOGUE[mistake_id]
        feedback = f"Not quite. Looks like: {mistake.title}. {mistake.explanation}"
        return PartGrade(part.name, "incorrect", 0.0, expected(part), feedback, mistake_id)
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
