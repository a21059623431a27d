"""The domain's unit registry and quantity parsing (numbers.py writes quantities for people).

FLOP, byte, second, token and parameter are distinct base dimensions, so "450 GB/s" can never
equal "3.6e12 Hz" as it does in pint's default registry. A bit is an eighth of a byte (the same
dimension), because links are quoted in Gb/s and must convert to bytes.
"""

from __future__ import annotations

import math
import re
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any, NoReturn, cast

from perfdrill.engine.errors import UnitError
from perfdrill.engine.model.numbers import format_quantity as format_quantity  # re-exported

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
request = [requests] = requests = req
element = [] = elements = elem
hertz = 1 / second = Hz
minute = 60 * second = min
hour = 60 * minute = h
day = 24 * hour = d
week = 7 * day = wk
year = 365.25 * day = yr = y
FLOPS = FLOP / second
OPS = FLOP / second
TOPS = 1e12 * FLOP / second
percent = 0.01 = %
thousand = 1e3
million = 1e6
billion = 1e9
trillion = 1e12
USD = [currency] = dollar = dollars
cent = 0.01 * USD = cents
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
zetta- = 1e21 = Z-
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
    "request/s": "request/second",
    "byte/token": "byte/token",
    "byte/parameter": "byte/parameter",
    "1": "dimensionless",
    # Serving economics: a chip's hourly price and what a million tokens cost.
    "USD": "USD",
    "USD/h": "USD/hour",
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
    "request/s": "a request rate, e.g. 20 requests/s",
    "byte/token": "bytes per token, e.g. 128 KiB",
    "1": "a plain number, e.g. 64",
    # A percent shares the plain number's dimension, but is asked and typed as a percentage.
    "%": "a percentage, e.g. 12.5 % or 12.5",
    "byte/parameter": "bytes per parameter, e.g. 2",
    "USD": "a cost in US dollars, e.g. 2.50 USD",
    "USD/h": "an hourly price, e.g. 3.40 USD/h",
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


# Longest answer or spec value read at all: grading stays in milliseconds whatever is typed.
MAX_TEXT = 80
_MANTISSA = r"(?:\d+(?:\.\d*)?|\.\d+)"
# 16,800, 1_000_000 or 16 800 with thin spaces: one separator, groups of exactly three digits.
_GROUPED = r"\d{1,3}(?P<sep>[,_\u2009\u202f])\d{3}(?:(?P=sep)\d{3})*(?:\.\d+)?"
_NUMBER = re.compile(
    rf"(?P<sign>[+-]?)(?:(?P<grouped>{_GROUPED})|(?P<plain>{_MANTISSA})(?:[eE](?P<exponent>[+-]?\d+)"
    r"|\s*[x×*·]\s*10\s*(?:\^|\*\*)\s*(?P<power>[+-]?\d{1,3}))?)"  # 1.57e10 or 1.57 × 10^10
)
_MINUS = str.maketrans({"\u2212": "-"})  # the Unicode minus sign, as typeset numbers print it
# "2.66 × 10²³", as numbers.py writes a figure past exa, reads as "2.66 × 10^23".
_TYPESET_POWER = re.compile(r"(?<=10)([⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]{1,3})(?![⁰¹²³⁴⁵⁶⁷⁸⁹])")
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
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
    (re.compile(r"(?<![A-Za-z])([kMGTPEZ])F(?=\s*/\s*s\b)"), r"\1FLOP"),  # "4.6 TF/s"
    (re.compile(r"\bper\b"), "/"),
    (re.compile(r"(?<![A-Za-z])[kK]\s*(?=(?:params?|parameters?|tokens?|elements?)\b)"), "thousand "),
    (re.compile(r"(?<![A-Za-z])M\s*(?=(?:params?|parameters?|tokens?|elements?)\b)"), "million "),
    (re.compile(r"(?<![A-Za-z])B\s*(?=(?:params?|parameters?|tokens?|elements?)\b)"), "billion "),
    (re.compile(r"(?<![A-Za-z])T\s*(?=(?:params?|parameters?|tokens?|elements?)\b)"), "trillion "),
]
# One unit term: a name, optionally squared or cubed; or an operator joining two terms. Nothing
# else (digits, brackets, other powers) is ever read, so no unit text makes pint do arithmetic.
_UNIT_TOKEN = re.compile(r"\s*(?:(?P<name>[A-Za-zµμ]+|%)(?P<power>(?:\^|\*\*)[23]|[²³])?|(?P<op>[/*·]))\s*")
_POWERS = {"": 1, "^2": 2, "**2": 2, "²": 2, "^3": 3, "**3": 3, "³": 3}
_SCALE_WORDS = ("thousand", "million", "billion", "trillion")
_MAX_TERMS = 4
_COUNT_SUFFIXES = {"k": "thousand", "K": "thousand", "M": "million", "B": "billion", "T": "trillion"}
_RATIO_MARKS = ("x", "X", "×", "times")  # "1.12x" or "2.0 times" for a ratio
_LEADING_RATIO = re.compile(r"\s*[xX×]\s*(?=[\d.])")  # "x2", as people write a factor
_LEADING_DOLLAR = re.compile(r"\s*(?:US)?\$\s*(?=[\d.])")  # "$0.24" or "US$0.24": dollars


def parse_quantity(text: str, unit: str, *, what: str = "value") -> float:
    """Read `text` as a quantity of `unit`'s dimension and return it in `unit`.

    A plain number is read in `unit` itself. No user text is ever evaluated: the number is
    matched by a regular expression, and the unit is read term by term, each a single unit name.
    Text longer than MAX_TEXT is refused, so reading takes microseconds whatever is typed.

    >>> parse_quantity("3.35 TB/s", "byte/s")
    3350000000000.0
    """
    dollars = _LEADING_DOLLAR.match(text)
    sign = dollars or (_LEADING_RATIO.match(text) if unit == "1" else None)  # or "x2" for a factor
    value, unit_text = split_number(text[sign.end() :] if sign else text, what=what)
    if dollars:  # the sign before the number is the unit: "$3.40/h" is "3.40 USD/h"
        unit_text = f"USD {unit_text}".strip()
    if not unit_text:
        return value
    if unit_text[0].isdigit():  # "1 1" is two numbers, not 1 of the unit "1"
        raise UnitError(f"{what} {text.strip()!r} holds two numbers; give one")
    target = parse_unit(BASE_UNITS.get(unit, unit), what="unit")
    count_unit = _count_unit_of_dimension().get(target.dimensionality)
    if (count_unit is not None or target.dimensionless) and unit_text in _COUNT_SUFFIXES:
        unit_text = _COUNT_SUFFIXES[unit_text]  # "46.7B" parameters or "2.8M" elements: not bytes or mega-
    if target.dimensionless and unit_text in _RATIO_MARKS:
        # A ratio: 0.98x of a percentage is 98 %, never 0.98 % (nor 98x read as 98 %).
        return float(value * registry().Quantity(1.0, "dimensionless").to(target).magnitude)
    parsed = parse_unit(unit_text, what=what)
    if count_unit is not None and parsed.dimensionless:
        parsed = parsed * count_unit  # "46.7 billion" of a count is 46.7e9 of it
    if parsed.dimensionality != target.dimensionality:
        implicit = _implicit_per(parsed, target)
        parsed = implicit or _dimension_error(text, value, unit_text, parsed, unit, what)
    factor = (1 * parsed).to(target).magnitude
    return float(value * factor)


def _implicit_per(parsed: pint.Unit, target: pint.Unit) -> pint.Unit | None:
    """Read "512 KiB" as per token only where the asked unit divides by tokens (or parameters)."""
    for name in _IMPLICIT_PER:
        per = registry().parse_units(name)
        (dimension,) = per.dimensionality
        divides = cast(float, target.dimensionality[dimension]) < 0
        if divides and (parsed / per).dimensionality == target.dimensionality:
            return parsed / per
    return None


def _dimension_error(
    text: str, value: float, unit_text: str, parsed: pint.Unit, unit: str, what: str
) -> NoReturn:
    target = parse_unit(BASE_UNITS.get(unit, unit), what="unit")
    example = DIMENSION_EXAMPLES.get(unit) or DIMENSION_EXAMPLES.get(base_unit_key(target) or "", "")
    noun = example.split(",")[0] or f"in {target:~}"
    per_second = registry().parse_units("second")
    if parsed.dimensionality == (target / per_second).dimensionality:  # 48.31 TFLOPS for a FLOP count
        rate = base_unit_key(parsed) or f"{parsed:~}"
        count = re.sub(r"(?:/s|ps|S|s)$", "", unit_text)
        raise UnitError(f"{unit_text} is a rate ({rate}); this asks for {noun}, e.g. {value:.3g} {count}")
    shown = f" ({example.split(', ')[-1]})" if example else ""
    raise UnitError(f"{what} {text.strip()!r} is not {noun}{shown}")


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
    """Split "3.2e-3 s", "16,800" or "−5" into (number, unit text), rejecting anything else."""
    stripped = text.strip().translate(_MINUS)
    stripped = _TYPESET_POWER.sub(lambda power: "^" + power[1].translate(_SUPERSCRIPTS), stripped, count=1)
    if not stripped:
        raise UnitError(f"{what} is empty")
    if len(stripped) > MAX_TEXT:
        raise UnitError(f"{what} is too long ({len(stripped)} characters; at most {MAX_TEXT})")
    match = _NUMBER.match(stripped)
    if not match:
        raise UnitError(f"{what} {stripped!r} does not start with a number")
    if any(c.isdigit() and not c.isascii() for c in match[0]):  # re's \d and float() read "٣" and "３"
        raise UnitError(f"{what} {stripped!r} is not a number: write it with the digits 0-9")
    if match["grouped"]:
        number = float(match["sign"] + match["grouped"].replace(match["sep"], ""))
    else:
        number = float(f"{match['sign']}{match['plain']}e{match['exponent'] or match['power'] or 0}")
    if not math.isfinite(number):
        raise UnitError(f"{what} {stripped!r} is not a finite number")
    return number, stripped[match.end() :].strip()


@lru_cache(maxsize=512)  # bounded: the text comes from whoever types an answer
def parse_unit(unit_text: str, *, what: str = "unit") -> pint.Unit:
    """A unit as people write it ("TFLOPS", "us", "GB/s", "KiB per token") in the domain registry.

    Read term by term: single unit names joined by "/", "*", "·" or "per", each optionally squared
    or cubed, after at most one scale word ("billion params"). Two units side by side ("ms tokens")
    are refused, and pint only ever sees one unit name at a time.
    """
    cleaned = unit_text.strip()
    if len(cleaned) > MAX_TEXT:
        raise UnitError(f"{what} has a unit that is too long ({len(cleaned)} characters)")
    for pattern, replacement in _ALIASES:
        cleaned = pattern.sub(replacement, cleaned)
    unit = registry().parse_units("dimensionless")
    if cleaned == "1":  # how templates write "a plain number"
        return unit
    position, terms, operator, previous = 0, 0, "*", ""
    named: list[tuple[str, Any]] = []  # each unit term with its sign, a leading scale word left out
    while position < len(cleaned):
        token = _UNIT_TOKEN.match(cleaned, position)
        if token is None:
            raise UnitError(f"{what} has an unreadable unit {unit_text!r}")
        position = token.end()
        if token["op"]:
            if operator:
                raise UnitError(f"{what} has an unreadable unit {unit_text!r}")
            operator = token["op"]
            continue
        if not operator and not (terms == 1 and previous in _SCALE_WORDS):
            raise UnitError(f"{what} puts two units side by side in {unit_text!r}")
        terms += 1
        if terms > _MAX_TERMS:
            raise UnitError(f"{what} has too many units in {unit_text!r}")
        name = _unit_name(token["name"])
        if name is None:
            raise UnitError(f"{what} has an unknown unit {unit_text!r}")
        term = name ** _POWERS[token["power"] or ""]
        unit = unit / term if operator == "/" else unit * term
        if not (terms == 1 and token["name"] in _SCALE_WORDS):
            named.append((token["name"], term**-1 if operator == "/" else term))
        operator, previous = "", token["name"]
    if operator and terms:
        raise UnitError(f"{what} has an unreadable unit {unit_text!r}")
    _refuse_idle_terms(named, unit_text, what)
    return unit


def _refuse_idle_terms(named: list[tuple[str, Any]], unit_text: str, what: str) -> None:
    """A unit term that changes nothing but the number is a slip, not a unit: "ms%" (a hundredth of a
    millisecond), "ms/seq" or "ms*token/token" would all read as milliseconds, scaled or not."""
    if len(named) < 2:
        return
    signs: dict[str, int] = {}
    for name, term in named:
        if term.dimensionless:
            raise UnitError(
                f"{what} has {name!r}, which is no unit of its own, beside others in {unit_text!r}"
            )
        for dimension, power in term.dimensionality.items():
            sign = 1 if cast(float, power) > 0 else -1
            if signs.setdefault(dimension, sign) != sign:
                raise UnitError(f"{what} has units that cancel in {unit_text!r}")


@lru_cache(maxsize=512)
def _unit_name(name: str) -> pint.Unit | None:
    """One unit name ("TFLOP", "KiB", "days"), or None when the registry does not know it."""
    try:
        return registry().parse_units(name)
    except Exception:  # pint raises several unrelated types for an unknown name
        return None
