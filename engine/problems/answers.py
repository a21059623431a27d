"""Reading what a person typed as an answer. Nothing typed is ever evaluated: numbers are matched
by regular expression, units go to pint's unit parser, choices are matched as text."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from perfdrill.engine.cache import remembered
from perfdrill.engine.errors import AnswerFormatError, PerfdrillError
from perfdrill.engine.model.units import DIMENSION_EXAMPLES, base_unit_key, parse_quantity, parse_unit
from perfdrill.engine.problems.generation import ProblemPart

_SEPARATORS = re.compile(r"\s*(?:,|;|\band\b|\s)\s*")


def letter(index: int) -> str:
    """The letter of choice `index` (0 is "a")."""
    return chr(ord("a") + index)


def lettered(part: ProblemPart, picked: Sequence[str], empty: str = "none") -> str:
    """Choices with their letters, as a key prints them: "a. memory, c. overhead-bound"."""
    return ", ".join(f"{letter(part.choices.index(c))}. {c}" for c in picked) or empty


def expected_form(part: ProblemPart) -> str:
    """What to type, e.g. "a time, e.g. 12 ms" or "a letter a-d"."""
    if part.kind == "numeric":
        key = str(remembered("unit_kinds", part.unit, lambda: _unit_kind(part.unit)))
        return DIMENSION_EXAMPLES.get(key, f"a number in {part.unit}")
    letters = f"a-{chr(ord('a') + len(part.choices) - 1)}"
    if part.kind == "multi":
        return f"letters {letters} separated by commas, or 'none'"
    return f"a letter {letters}, its number, or its text"


def _unit_kind(unit: str) -> str:
    try:
        return base_unit_key(parse_unit(unit)) or unit
    except PerfdrillError:
        return unit


def parse_numeric(part: ProblemPart, text: str) -> float:
    try:
        value = parse_quantity(text, part.unit, what="answer")
    except PerfdrillError as exc:
        raise AnswerFormatError(f"{exc.message}; expected {expected_form(part)}") from None
    if not math.isfinite(value):
        raise AnswerFormatError(f"answer {text.strip()!r} is not a finite number")
    return value


def _one_choice(part: ProblemPart, token: str) -> str:
    token = token.strip().strip(".)(").strip()
    lowered = token.lower()
    if len(lowered) == 1 and "a" <= lowered <= "z":
        index = ord(lowered) - ord("a")
        if index < len(part.choices):
            return part.choices[index]
    if re.fullmatch(r"[0-9]{1,3}", lowered) and 1 <= int(lowered) <= len(part.choices):
        return part.choices[int(lowered) - 1]
    exact = [c for c in part.choices if c.lower() == lowered]
    partial = [c for c in part.choices if lowered and lowered in c.lower()]
    if exact or len(partial) == 1:
        return (exact or partial)[0]
    reason = "matches several choices" if len(partial) > 1 else "is not one of the choices"
    raise AnswerFormatError(f"{token!r} {reason}; expected {expected_form(part)}")


def parse_choices(part: ProblemPart, text: str) -> tuple[str, ...]:
    """One label for a choice part; a set of labels (in choice order) for a multi-select part."""
    stripped = text.strip()
    if not stripped:
        raise AnswerFormatError(f"answer is empty; expected {expected_form(part)}")
    if part.kind == "choice":
        return (_one_choice(part, stripped),)
    if stripped.lower() in ("none", "-"):
        return ()
    try:
        picked = {_one_choice(part, stripped)}  # a whole label may itself contain spaces or commas
    except AnswerFormatError:
        picked = {_one_choice(part, token) for token in _SEPARATORS.split(stripped) if token}
    return tuple(c for c in part.choices if c in picked)
