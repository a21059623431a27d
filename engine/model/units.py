"""The domain's unit registry and quantity parsing.

FLOP, byte, second, token and parameter are distinct base dimensions, so "450 GB/s" can never
equal "3.6e12 Hz" as it does in pint's default registry. A bit is an eighth of a byte (the same
dimension), because links are quoted in Gb/s and must convert to bytes.
"""

from __future__ import annotations

import math
import re
from functools import cache
from typing import TYPE_CHECKING, Any

from perfdrill.engine.errors import UnitError

if TYPE_CHECKING:
    import pint

_DEFINITIONS = """
FLOP = [compute] = flop = FLOPs = flops
byte = [information] = B = bytes
bit = byte / 8 = b = bits
second = [time] = s = sec = seconds
token = [text] = tokens = tok
parameter = [weights] = parameters = param = params
sequence = [] = sequences = seq
element = [] = elements = elem
hertz = 1 / second = Hz
minute = 60 * second = min
hour = 60 * minute = h
day = 24 * hour
FLOPS = FLOP / second
OPS = FLOP / second
TOPS = 1e12 * FLOP / second
percent = 0.01 = %
thousand = 1e3
million = 1e6
billion = 1e9
trillion = 1e12
"""
_PREFIXES = """
nano- = 1e-9 = n-
micro- = 1e-6 = u- = µ- = μ-
milli- = 1e-3 = m-
kilo- = 1e3 = k- = K-
mega- = 1e6 = M-
giga- = 1e9 = G-
tera- = 1e12 = T-
peta- = 1e15 = P-
exa- = 1e18 = E-
kibi- = 2**10 = Ki-
mebi- = 2**20 = Mi-
gibi- = 2**30 = Gi-
tebi- = 2**40 = Ti-
pebi- = 2**50 = Pi-
"""

# Base units the JSON output and the engine use; every engine value is a float in these.
BASE_UNITS: dict[str, str] = {
    "FLOP": "FLOP",
    "byte": "byte",
    "s": "second",
    "FLOP/s": "FLOP/second",
    "byte/s": "byte/second",
    "FLOP/byte": "FLOP/byte",
    "token": "token",
    "parameter": "parameter",
    "token/s": "token/second",
    "byte/token": "byte/token",
    "byte/parameter": "byte/parameter",
    "1": "dimensionless",
}

# Denominators a per-count size may leave implicit: "128 KiB" as bytes per token.
_IMPLICIT_PER = ("token", "parameter")

# What a person is told to type when a dimension is wrong.
DIMENSION_EXAMPLES: dict[str, str] = {
    "s": "a time, e.g. 12 ms",
    "byte": "a size, e.g. 16 GB",
    "byte/s": "a bandwidth, e.g. 3.35 TB/s",
    "FLOP": "a FLOP count, e.g. 1.2 TFLOP",
    "FLOP/s": "a compute rate, e.g. 989 TFLOP/s",
    "FLOP/byte": "an arithmetic intensity, e.g. 295 FLOP/B",
    "token": "a token count, e.g. 4096",
    "parameter": "a parameter count, e.g. 7e9",
    "token/s": "a throughput, e.g. 1200 token/s",
    "byte/token": "bytes per token, e.g. 128 KiB",
    "1": "a plain number, e.g. 64",
    "byte/parameter": "bytes per parameter, e.g. 2",
}


@cache
def registry() -> pint.UnitRegistry:
    """The one registry of the domain, built from the definitions above (not pint's defaults)."""
    import pint

    ureg: pint.UnitRegistry = pint.UnitRegistry(
        None, autoconvert_offset_to_baseunit=False, case_sensitive=True
    )
    for line in (_PREFIXES + _DEFINITIONS).strip().splitlines():
        ureg.define(line.strip())
    return ureg


_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(,\d{3})+(\.\d+)?")
# Spellings people type that pint would not read as meant.
_ALIASES = [
    (re.compile(r"(?<![A-Za-z])([kMGTPE]?)FLOPS\b"), r"\1FLOP/s"),
    (re.compile(r"(?<![A-Za-z])([kMGTPE]?)flops\b"), r"\1FLOP/s"),
    (re.compile(r"(?<![A-Za-z])([kMGTPE]?)(?:FLOPs|flop)\b"), r"\1FLOP"),
    (re.compile(r"(?<![A-Za-z])([kMGTPE]?)(?:Bps|B/sec)\b"), r"\1B/s"),
    (re.compile(r"(?<![A-Za-z])([kMGTPE]?)bps\b"), r"\1b/s"),
    (re.compile(r"(?<![A-Za-z])([kMGTPE]?)TOPS\b"), r"\1TOPS"),
    (re.compile(r"(?<![A-Za-z])(?:sec|secs)\b"), "s"),
    (re.compile(r"(?<![A-Za-z])(?:ms|msec)\b"), "ms"),
    (re.compile(r"(?<![A-Za-z])(?:us|usec)\b"), "µs"),
    (re.compile(r"\bper\b"), "/"),
    (re.compile(r"(?<![A-Za-z])[kK]\s*(?=(?:params?|parameters?|tokens?)\b)"), "thousand "),
    (re.compile(r"(?<![A-Za-z])M\s*(?=(?:params?|parameters?|tokens?)\b)"), "million "),
    (re.compile(r"(?<![A-Za-z])B\s*(?=(?:params?|parameters?|tokens?)\b)"), "billion "),
    (re.compile(r"(?<![A-Za-z])T\s*(?=(?:params?|parameters?|tokens?)\b)"), "trillion "),
]
_UNIT_TEXT = re.compile(r"^[A-Za-zµμ%/*^·0-9 ().-]*$")


def parse_quantity(text: str, unit: str, *, what: str = "value") -> float:
    """Read `text` as a quantity of `unit`'s dimension and return it in `unit`.

    A plain number is read in `unit` itself. No user text is ever evaluated: the number is
    matched by a regular expression and only the unit part goes to pint's unit parser.

    >>> parse_quantity("3.35 TB/s", "byte/s")
    3350000000000.0
    """
    value, unit_text = split_number(text, what=what)
    if not unit_text:
        return value
    target = parse_unit(BASE_UNITS.get(unit, unit), what="unit")
    count_unit = _count_unit_of_dimension().get(target.dimensionality)
    if count_unit is not None and unit_text in _COUNT_SUFFIXES:  # "46.7B" parameters: billions, not bytes
        unit_text = _COUNT_SUFFIXES[unit_text]
    parsed = parse_unit(unit_text, what=what)
    if count_unit is not None and parsed.dimensionless:
        parsed = parsed * count_unit  # "46.7 billion" of a count is 46.7e9 of it
    if parsed.dimensionality != target.dimensionality:
        for per in _IMPLICIT_PER:  # "512 KiB" for a per-token size
            if (parsed / registry().parse_units(per)).dimensionality == target.dimensionality:
                parsed = parsed / registry().parse_units(per)
                break
        else:
            base = base_unit_key(target)
            example = DIMENSION_EXAMPLES.get(base or "", unit)
            raise UnitError(
                f"{what} {text.strip()!r} is not {example.split(',')[0]} ({example.split(', ')[-1]})"
            )
    factor = (1 * parsed).to(target).magnitude
    return float(value * factor)


_COUNT_SUFFIXES = {"k": "thousand", "K": "thousand", "M": "million", "B": "billion", "T": "trillion"}


@cache
def _count_unit_of_dimension() -> dict[Any, Any]:
    units = (registry().parse_units(name) for name in _IMPLICIT_PER)
    return {unit.dimensionality: unit for unit in units}


def base_unit_key(unit: pint.Unit) -> str | None:
    """The key of BASE_UNITS with the same dimension as `unit`, if any ("ms" -> "s")."""
    for key, name in BASE_UNITS.items():
        if registry().parse_units(name).dimensionality == unit.dimensionality:
            return key
    return None


def split_number(text: str, *, what: str = "value") -> tuple[float, str]:
    """Split "3.2e-3 s" or "16,800" into (number, unit text), rejecting anything else."""
    stripped = text.strip().replace("\u2009", " ").replace("_", "")
    if not stripped:
        raise UnitError(f"{what} is empty")
    match = _THOUSANDS.match(stripped) or _NUMBER.match(stripped)
    if not match:
        raise UnitError(f"{what} {text.strip()!r} does not start with a number")
    number = float(match.group(0).replace(",", ""))
    if not math.isfinite(number):
        raise UnitError(f"{what} {text.strip()!r} is not a finite number")
    return number, stripped[match.end() :].strip()


@cache
def parse_unit(unit_text: str, *, what: str = "unit") -> pint.Unit:
    """A unit as people write it ("TFLOPS", "us", "GB/s") in the domain registry."""
    cleaned = unit_text.replace("·", "*").replace("^", "**")
    for pattern, replacement in _ALIASES:
        cleaned = pattern.sub(replacement, cleaned)
    if not _UNIT_TEXT.match(cleaned):
        raise UnitError(f"{what} has an unreadable unit {unit_text!r}")
    try:
        return registry().parse_units(cleaned)
    except Exception as exc:  # pint raises several unrelated types for bad unit text
        raise UnitError(f"{what} has an unknown unit {unit_text!r}") from exc


_SI_STEPS = [(1e18, "E"), (1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, "")]
# Counts read better as 8.03B params than as 8.03 Gparams.
_COUNT_STEPS = [(1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k"), (1.0, "")]
_COUNT_UNITS = {"parameter", "token", "token/s", "1"}
_TIME_STEPS = [(1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns")]
_DISPLAY_UNIT = {
    "FLOP/byte": "FLOP/B",
    "byte": "B",
    "byte/s": "B/s",
    "byte/token": "B/token",
    "byte/parameter": "B/param",
    "parameter": "params",
    "token": "tokens",
    "token/s": "tokens/s",
    "1": "",
}


def format_quantity(value: float, unit: str, *, digits: int = 3) -> str:
    """A human reading of a base-unit value: 3.35e12 byte/s -> "3.35 TB/s", 0.0162 s -> "16.2 ms"."""
    if not math.isfinite(value):
        return f"{value} {unit}"
    if unit == "s":
        for scale, name in _TIME_STEPS:
            if abs(value) >= scale or name == "ns":
                return f"{_sig(value / scale, digits)} {name}"
    shown = _DISPLAY_UNIT.get(unit, unit)
    if unit in _COUNT_UNITS and float(value).is_integer() and abs(value) < 1e6:
        return f"{int(value):,} {shown}".strip()  # exact: 4,096 not 4.1k
    if unit in ("FLOP/byte", "byte/parameter") and abs(value) >= 1000:
        return f"{value:,.0f} {shown}"
    if unit in ("FLOP/byte", "byte/parameter") or abs(value) < 1000:
        return f"{_sig(value, digits)} {shown}".strip()
    steps = _COUNT_STEPS if unit in _COUNT_UNITS else _SI_STEPS
    for scale, prefix in steps:
        if abs(value) >= scale:
            if unit in _COUNT_UNITS:
                return f"{_sig(value / scale, digits)}{prefix} {shown}".strip()
            return f"{_sig(value / scale, digits)} {prefix}{shown}"
    return f"{_sig(value, digits)} {shown}"


def _sig(value: float, digits: int) -> str:
    """`digits` significant figures, without a trailing exponent for ordinary magnitudes."""
    return "0" if value == 0 else f"{value:.{digits}g}"
