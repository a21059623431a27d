"""Reading what a person typed as an answer. Nothing typed is ever evaluated: numbers are matched
by regular expression, units are read one unit name at a time, choices are matched as text."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from perfdrill.engine.cache import remembered
from perfdrill.engine.errors import AnswerFormatError, PerfdrillError
from perfdrill.engine.model.units import (
    DIMENSION_EXAMPLES,
    base_unit_key,
    parse_quantity,
    parse_unit,
    split_number,
)
from perfdrill.engine.problems.explanation import letter, letter_index
from perfdrill.engine.problems.generation import ProblemPart


def lettered(part: ProblemPart, picked: Sequence[str], empty: str = "none") -> str:
    """Choices with their letters, as a key prints them: "a. memory, c. overhead-bound"."""
    return ", ".join(f"{letter(part.choices.index(c))}. {c}" for c in picked) or empty


def expected_form(part: ProblemPart) -> str:
    """What to type, e.g. "a time, e.g. 12 ms" or "a letter a-d"."""
    if part.kind == "numeric":
        if part.unit in DIMENSION_EXAMPLES:  # "%": a percentage, not any plain number
            return DIMENSION_EXAMPLES[part.unit]
        key = str(remembered("unit_kinds", part.unit, lambda: _unit_kind(part.unit)))
        return DIMENSION_EXAMPLES.get(key, f"a number in {part.unit}")
    letters = f"a-{letter(len(part.choices) - 1)}"
    valued = _valued(part)
    if part.kind == "multi":
        return f"letters {letters}{' or values' if valued else ''} separated by commas, or 'none'"
    return f"a letter {letters} or its value" if valued else f"a letter {letters}, its number, or its text"


_FIGURES = re.compile(r"\s*[+\-−]?([\d,_\u2009\u202f]*)(?:\.(\d*))?")
MAX_ECHOED_FIGURES = 12


def typed_figures(text: str) -> int:
    """The significant figures of the number typed, so an answer is echoed as typed ("4.125"
    reads 4.125, not 4.12); at least 3, at most MAX_ECHOED_FIGURES."""
    match = _FIGURES.match(text)
    whole, fraction = (match[1] or "", match[2] or "") if match else ("", "")
    digits = (re.sub(r"\D", "", whole) + fraction).lstrip("0")
    return min(max(3, len(digits)), MAX_ECHOED_FIGURES)


def _unit_kind(unit: str) -> str:
    try:
        return base_unit_key(parse_unit(unit)) or unit
    except PerfdrillError:
        return unit


def parse_numeric(part: ProblemPart, text: str) -> float:
    """The answer in the part's unit; AnswerFormatError for anything that is not one (it is not graded).

    A negative number for a quantity that is positive here is a misreading, not an answer.
    """
    try:
        value = parse_quantity(text, part.unit, what="answer")
    except PerfdrillError as exc:
        labelled = _labelled_count(part, text)
        if labelled is not None:
            return labelled
        if _DECIMAL_COMMA.search(text):  # "4,35": never guessed to be 4.35 (nor 435)
            said = f"answer {text.strip()!r} has a decimal comma, which is not read: write a point"
            raise AnswerFormatError(f"{said}; expected {expected_form(part)}") from None
        said = exc.message if "e.g." in exc.message else f"{exc.message}; expected {expected_form(part)}"
        raise AnswerFormatError(said) from None
    if not math.isfinite(value):
        raise AnswerFormatError(f"answer {text.strip()!r} is not a finite number")
    if value < 0 and part.value is not None and part.value > 0:
        said = f"answer {text.strip()!r} is negative, and this quantity cannot be"
        raise AnswerFormatError(f"{said}; expected {expected_form(part)}")
    return value


_WORDS = re.compile(r"[A-Za-z]+")
# A comma between digits that is not a thousands separator (three digits after it): "4,35".
_DECIMAL_COMMA = re.compile(r"\d,(?!\d{3}(?!\d))\d")


def _labelled_count(part: ProblemPart, text: str) -> float | None:
    """A plain number followed by what the part asks to count: "4.5 bits" where the prompt asks
    "How many bits …". Only words the prompt itself uses are taken, so no unit is guessed."""
    if part.unit != "1":
        return None
    try:
        value, label = split_number(text)
    except PerfdrillError:
        return None
    words = [word.lower() for word in _WORDS.findall(label) if word.lower() != "per"]
    asked = {word.lower() for word in _WORDS.findall(part.prompt)}
    fits = bool(words) and _WORDS.sub("", label).strip(" /") == "" and set(words) <= asked
    return value if fits else None


# Longest choice answer read: several long labels fit, and grading stays in milliseconds.
MAX_CHOICE_TEXT = 400
_MIN_PREFIX = 3
_UNIT_WORDS = re.compile(r"[A-Za-zµ%/ ]*")  # after an option's number: "4,096 tokens", not ":4 sparse"
# A multi-select answer is split at the first level that reads; a piece that does not read as one
# choice is split further, so "m = 512; m = 1,024", "512, 1,024, 4,096" and "a,c" all read.
_LEVELS = (re.compile(r"\s*(?:;|,\s|\band\b)\s*"), re.compile(r"\s+"), re.compile(r","))


def _valued(part: ProblemPart) -> bool:
    """True when some option is a number ("m = 1,024"): then a typed number is a value, never a position."""
    return any(_label_value(choice) is not None for choice in part.choices)


def _label_value(label: str) -> tuple[float, str] | None:
    """(number, unit text) of a label such as "batch = 4" or "4,096 tokens", or None."""
    try:
        value, unit = split_number(label.split("=", 1)[-1])
    except PerfdrillError:
        return None
    return (value, _normal(unit)) if _UNIT_WORDS.fullmatch(unit) else None


def _label_name(label: str) -> str:
    """What a label names before its "=" ("batch" of "batch = 4"), or "" when it has no "="."""
    name, equals, _ = label.partition("=")
    return _normal(name) if equals else ""


def _normal(text: str) -> str:
    return "".join(text.lower().split())


def _one_choice(part: ProblemPart, token: str) -> str:
    token = token.strip().strip(".)(").strip()
    lowered = _normal(token)
    index = letter_index(lowered) if len(lowered) <= len(letter(len(part.choices) - 1)) else None
    if index is not None:  # past 26 choices, "aa" is the 27th
        if index < len(part.choices):
            return part.choices[index]
    elif _valued(part) and (typed := _label_value(token)) is not None:
        named = _label_name(token)
        for choice in part.choices:
            value = _label_value(choice)
            if value is None or named not in ("", _label_name(choice)):  # "m = 4" is not "batch = 4"
                continue
            if typed in (value, (value[0], "")):  # "4,096" or "4,096 tokens"
                return choice
    elif re.fullmatch(r"[0-9]{1,3}", lowered) and 1 <= int(lowered) <= len(part.choices):
        return part.choices[int(lowered) - 1]
    exact = [c for c in part.choices if _normal(c) == lowered]
    bare = lowered.removesuffix("bound").rstrip("-")  # "memory-bound" for the choice "memory"
    exact = exact or [c for c in part.choices if lowered.endswith("bound") and _normal(c) == bare]
    if exact:
        return exact[0]
    starting = [c for c in part.choices if lowered and _normal(c).startswith(lowered)]
    if len(starting) == 1 and len(lowered) >= _MIN_PREFIX:
        return starting[0]
    if len(starting) > 1:
        reason = "matches several choices"
    elif starting:
        reason = f"is too short: type a letter or at least {_MIN_PREFIX} characters of a choice"
    else:
        reason = "is not one of the choices"
    raise AnswerFormatError(f"{token!r} {reason}; expected {expected_form(part)}")


def _picks(part: ProblemPart, text: str, level: int) -> list[str]:
    """The choices `text` names: as one choice if it reads as one, else piece by piece."""
    try:
        return [_one_choice(part, text)]
    except AnswerFormatError:
        for depth in range(level, len(_LEVELS)):
            pieces = [piece for piece in _LEVELS[depth].split(text) if piece.strip()]
            if len(pieces) > 1:
                return [c for piece in pieces for c in _picks(part, piece, depth + 1)]
        raise


def parse_choices(part: ProblemPart, text: str) -> tuple[str, ...]:
    """One label for a choice part; a set of labels (in choice order) for a multi-select part.

    A choice is named by its letter; by its position, or by its value where the options are
    numbers (then "4" is "batch = 4", never the fourth option); or by its text or a prefix of it
    of at least three characters that no other option shares.
    """
    stripped = text.strip()
    if not stripped:
        raise AnswerFormatError(f"answer is empty; expected {expected_form(part)}")
    if len(stripped) > MAX_CHOICE_TEXT:
        raise AnswerFormatError(f"answer is too long ({len(stripped)} characters; at most {MAX_CHOICE_TEXT})")
    if part.kind == "choice":
        return (_one_choice(part, stripped),)
    if stripped.lower() in ("none", "-"):
        return ()
    picked = set(_picks(part, stripped, 0))
    return tuple(c for c in part.choices if c in picked)
