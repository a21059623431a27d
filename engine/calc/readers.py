"""Strict readers for the numbers people type on the command line.

Each reader takes the text and the option's flag and returns a finite value, or raises a
UsageError whose one line names the flag and what is wrong: negative, zero, too large, not a
number. Nothing is evaluated: quantities go through the unit parser, whole numbers through int().
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from perfdrill.engine import UsageError
from perfdrill.engine.model import parse_quantity

Reader = Callable[[str, str], Any]

# Whole numbers reach the formulas as floats, which hold every whole number up to 2^53 exactly.
MAX_WHOLE = 2**53
MAX_SWEEP_ROWS = 1000


# Separators only group thousands: 1,000 and 1_000_000 read, 1,5 (a list, or a decimal comma) does not.
_GROUPED = re.compile(r"[+-]?\d{1,3}(?P<sep>[,_])\d{3}(?:(?P=sep)\d{3})*(?:\.\d*)?(?:[eE][+-]?\d+)?")


def _digits(text: str, flag: str) -> str:
    """`text` without its thousands separators; a separator anywhere else, or a digit other than
    0-9 (Python's int() reads Arabic-Indic and full-width ones), is refused."""
    cleaned = text.strip()
    if not cleaned.isascii():
        raise UsageError(f"{flag} {_shown(text)} is not a number: write it with the digits 0-9")
    if ("," in cleaned or "_" in cleaned) and not _GROUPED.fullmatch(cleaned):
        raise UsageError(
            f"{flag} {_shown(text)} is not one number: a comma only groups thousands (1,000), "
            "and the decimal point is '.'"
        )
    return cleaned.replace(",", "").replace("_", "")


def _shown(text: str) -> str:
    """The text as quoted in a message, shortened so a 400-digit value stays readable."""
    return repr(text if len(text) <= 24 else text[:20] + "…")


def whole(minimum: int = 1) -> Reader:
    """A whole number of at least `minimum` (1: positive; 0: not negative), at most 2^53."""
    wanted = "a positive whole number" if minimum >= 1 else "a whole number, 0 or more"

    def read(text: str, flag: str) -> int:
        cleaned = _digits(text, flag)
        if len(cleaned.lstrip("+-")) > len(str(MAX_WHOLE)):  # int() of 5,000 digits is refused anyway
            raise UsageError(f"{flag} {_shown(text)} is too large: at most {MAX_WHOLE:,}")
        try:
            value = int(cleaned)
        except ValueError:
            number = _float(text, flag)  # 1e6 is a fine way to write a million
            if not number.is_integer():
                raise UsageError(f"{flag} {_shown(text)} is not a whole number") from None
            value = int(number)
        if value < minimum:
            sign = "is negative" if value < 0 else "is zero"
            raise UsageError(f"{flag} {value} {sign}: it must be {wanted}")
        if value > MAX_WHOLE:
            raise UsageError(f"{flag} {_shown(text)} is too large: at most {MAX_WHOLE:,}")
        return value

    return read


def _float(text: str, flag: str) -> float:
    digits = _digits(text, flag)
    try:
        number = float(digits)
    except ValueError:
        raise UsageError(f"{flag} {_shown(text)} is not a number") from None
    if math.isnan(number):
        raise UsageError(f"{flag} {_shown(text)} is not a number")
    if math.isinf(number):
        raise UsageError(f"{flag} {_shown(text)} is too large")
    return number


def not_negative(text: str, flag: str) -> float:
    """A finite number, 0 or more."""
    number = _float(text, flag)
    if number < 0:
        raise UsageError(f"{flag} {_shown(text)} is negative: it must be 0 or more")
    return number


def fraction(text: str, flag: str) -> float:
    """A fraction of a peak: above 0, at most 1."""
    number = _float(text, flag)
    if not 0 < number <= 1:
        raise UsageError(f"{flag} must be above 0 and at most 1, not {_shown(text)}")
    return number


def quantity(unit: str) -> Reader:
    """A positive, finite quantity in `unit`'s dimension ("3.35 TB/s"), as a float in base units."""

    def read(text: str, flag: str) -> float:
        value = parse_quantity(text, unit, what=flag)
        if math.isnan(value):
            raise UsageError(f"{flag} {_shown(text)} is not a number")
        if math.isinf(value):
            raise UsageError(f"{flag} {_shown(text)} is too large")
        if value < 0:
            raise UsageError(f"{flag} {_shown(text)} is negative: it must be positive")
        if value == 0:
            raise UsageError(f"{flag} {_shown(text)} is zero: it must be positive")
        return value

    return read


def batches(text: str, flag: str) -> list[int]:
    """A comma-separated list of positive batch sizes: "1,8,64"."""
    parts = [part for part in text.split(",") if part.strip()]
    if not parts:
        raise UsageError(f"{flag} is empty: give batch sizes such as 1,8,64")
    if len(parts) > MAX_SWEEP_ROWS:
        raise UsageError(f"{flag} lists {len(parts):,} batch sizes: at most {MAX_SWEEP_ROWS:,}")
    read = whole()
    return [read(part, flag) for part in parts]
