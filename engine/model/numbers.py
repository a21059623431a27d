"""The one number formatter: every number a person reads (terminal, Markdown, HTML, PDF, calc) is
written here, the way people write them.

- SI prefixes with 1 ≤ mantissa < 1000 (16.2 ms, 3.35 TB/s); binary prefixes only when asked for,
  where the source figure is in GiB; counts as 8.03B params or 1.4M tokens. A value a part asks
  in a unit (GB, ms) keeps that unit while it reads well (0.537 GB, 1,360 ms).
- Halves round away from zero, as people round (494.5 is 495).
- µs, never us; times past a minute in min, hours, days or years.
- No exponent notation next to a prefix: past exa a figure is written 2.66 × 10²³ FLOP.
- Whole quantities (batch, chips, layers) are never fractional; whole numbers below a million
  keep every digit, grouped with commas (12,288).
- A number and its unit are joined by a no-break space (NBSP), so no layout splits them.

Nothing here parses; units.py reads what people type, and reads everything this module writes.
"""

from __future__ import annotations

import math
import re
from decimal import ROUND_HALF_UP, Decimal
from functools import lru_cache

NBSP = "\u00a0"
MINUS = "\u2212"
_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")

_SI = [(1e18, "E"), (1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, "")]
_SMALL = [(1.0, ""), (1e-3, "m"), (1e-6, "µ"), (1e-9, "n")]
_BINARY = [(2.0**50, "Pi"), (2.0**40, "Ti"), (2.0**30, "Gi"), (2.0**20, "Mi"), (2.0**10, "Ki"), (1.0, "")]
_COUNT = [(1e12, "T"), (1e9, "B"), (1e6, "M"), (1.0, "")]  # 8.03B params, 1.4M tokens
_LONG_TIMES = [(365.25 * 86400, "year"), (86400.0, "day"), (3600.0, "hour"), (60.0, "min")]
_PREFIXED = {"FLOP": "FLOP", "byte": "B", "FLOP/s": "FLOP/s", "byte/s": "B/s", "byte/token": "B/token"}
_PLAIN = {"FLOP/byte": "FLOP/B", "byte/parameter": "B/param", "request/s": "requests/s"}
# Count units: (singular, plural) as a person reads them after a number.
_COUNTS = {"parameter": ("param", "params"), "token": ("token", "tokens"), "token/s": ("token/s", "tokens/s")}
_TOP = 1e21  # past exa (and past 999T for counts), figures are written with a power of ten
_COUNT_TOP = 1e15

# Units a part may declare ("ms", "GiB", "KiB/token", "day"): prefix scale and base unit.
_PREFIX_SCALE = {
    "": 1.0,
    "n": 1e-9,
    "u": 1e-6,
    "µ": 1e-6,
    "m": 1e-3,
    "k": 1e3,
    "K": 1e3,
    "M": 1e6,
    "G": 1e9,
    "T": 1e12,
    "P": 1e15,
    "E": 1e18,
    **{prefix: scale for scale, prefix in _BINARY if prefix},
}
_BASE_OF_SHOWN = {
    "FLOP": "FLOP",
    "B": "byte",
    "FLOP/s": "FLOP/s",
    "B/s": "byte/s",
    "FLOP/B": "FLOP/byte",
    "B/token": "byte/token",
    "s": "s",
}
_WHOLE_UNITS = {
    "min": (60.0, "s"),
    "h": (3600.0, "s"),
    "hour": (3600.0, "s"),
    "hours": (3600.0, "s"),
    "day": (86400.0, "s"),
    "days": (86400.0, "s"),
    "params": (1.0, "parameter"),
    "param": (1.0, "parameter"),
    "parameter": (1.0, "parameter"),
    "parameters": (1.0, "parameter"),
    "token": (1.0, "token"),
    "tokens": (1.0, "token"),
    "B/param": (1.0, "byte/parameter"),
    "token/s": (1.0, "token/s"),  # 823 tokens/s, as every other rate of tokens reads
    "tokens/s": (1.0, "token/s"),
    "1": (1.0, "1"),
    "": (1.0, "1"),
}
_UNIT_SPELLING = {"us": "µs", "day": "days", "token": "tokens", "hour": "hours", "param": "params"}


def unit_shown(unit: str) -> str:
    """A unit as a person reads it beside a part: "µs" for "us", "days" for "day", "kB" for "KB",
    "" for "1"."""
    if unit in ("1", ""):
        return ""
    if unit.startswith("K") and not unit.startswith("Ki"):
        return "k" + unit[1:]  # an SI kilo is written kB, as every other line writes it
    return _UNIT_SPELLING.get(unit, unit)


def _round_sig(value: float, digits: int) -> float:
    """`value` to `digits` significant figures, a half away from zero as people round: 494.5 is
    495 to 3 figures, where format()'s round-half-even gives 494."""
    if value == 0 or not math.isfinite(value):
        return value
    exact = Decimal(value)
    step = Decimal(1).scaleb(exact.adjusted() - digits + 1)
    return float(exact.quantize(step, rounding=ROUND_HALF_UP))


def number(value: float, digits: int = 3) -> str:
    """`value` to `digits` significant figures, grouped with commas, never in exponent notation.

    >>> number(12288.0, 3), number(0.04904), number(-13.3e-6 * 1e6)
    ('12,300', '0.049', '−13.3')
    """
    if value == 0:
        return "0"
    rounded = _round_sig(value, digits)
    exponent = math.floor(math.log10(abs(rounded)))
    decimals = max(0, digits - 1 - exponent)
    text = f"{abs(rounded):,.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return (MINUS if rounded < 0 else "") + text


def nearest_whole(value: float) -> int:
    """`value` to the nearest whole number, a half away from zero as people round (494.5 is 495;
    Python's round() would give the even 494)."""
    return int(math.copysign(math.floor(abs(value) + 0.5), value))


def whole(value: float) -> str:
    """Every digit of a whole number, grouped: 1,196,412."""
    return (MINUS if value < 0 else "") + f"{abs(nearest_whole(value)):,}"


def power_of_ten(value: float, digits: int = 3) -> str:
    """2.66 × 10²³: a mantissa in [1, 10) and a typeset power of ten."""
    rounded = _round_sig(value, digits)
    exponent = math.floor(math.log10(abs(rounded)))
    mantissa = number(rounded / 10**exponent, digits)
    return f"{mantissa} × 10{str(exponent).translate(_SUPERSCRIPT)}"


def _join(figure: str, unit: str) -> str:
    return f"{figure}{NBSP}{unit}" if unit else figure


def _ladder(value: float, steps: list[tuple[float, str]], digits: int) -> tuple[str, str]:
    """(mantissa, prefix): the first of `steps` (largest first) that leaves a mantissa of at least
    1, rounded to `digits` figures; one step up where rounding reaches 1000 (999.7 kB is 1 MB)."""
    index = next(
        (i for i, (scale, _) in enumerate(steps) if abs(value) >= scale * (1 - 1e-12)), len(steps) - 1
    )
    mantissa = _round_sig(value / steps[index][0], digits)
    if abs(mantissa) >= 1000 and index > 0 and abs(_round_sig(value / steps[index - 1][0], digits)) >= 1:
        index -= 1
        mantissa = _round_sig(value / steps[index][0], digits)
    return number(mantissa, digits), steps[index][1]


def _time(value: float, digits: int) -> str:
    rounded = abs(_round_sig(value, digits))
    if rounded < 60:
        figure, prefix = _ladder(value, _SMALL, digits)
        return _join(figure, prefix + "s")
    for scale, name in _LONG_TIMES:
        if rounded >= scale * (1 - 1e-12):
            figure = number(value / scale, digits)
            plural = "" if name == "min" or figure == "1" else "s"
            return _join(figure, name + plural)
    raise AssertionError(value)  # unreachable: 60 s and more is at least a minute


def as_shown(value: float, unit: str, digits: int) -> float:
    """The number `format_quantity(value, unit, digits=digits)` shows, back in `unit`: a time shown
    in minutes or hours is rounded in that unit (66.8 s reads "66.8 s", 4,212 s "70.2 min")."""
    if unit == "s" and abs(_round_sig(value, digits)) >= 60:
        scale = next(s for s, _ in _LONG_TIMES if abs(_round_sig(value, digits)) >= s * (1 - 1e-12))
        return _round_sig(value / scale, digits) * scale
    return _round_sig(value, digits)


def format_quantity(
    value: float, unit: str, *, digits: int = 3, binary: bool = False, whole_number: bool = False
) -> str:
    """A base-unit value as a person reads it, number and unit joined by a no-break space.

    `unit` is a key of units.BASE_UNITS; `binary` writes bytes with KiB/GiB (only for figures
    quoted in GiB); `whole_number` rounds a count (a batch, chips) to a whole number where that
    moves it by at most 1%.

    >>> format_quantity(3.35e12, "byte/s"), format_quantity(0.0162, "s"), format_quantity(8.03e9, "parameter")
    ('3.35\\xa0TB/s', '16.2\\xa0ms', '8.03B\\xa0params')
    """
    if not math.isfinite(value):
        return _join("∞" if value > 0 else f"{MINUS}∞" if value < 0 else "undefined", unit)
    if whole_number and abs(nearest_whole(value) - value) <= 0.01 * abs(value):
        value = float(nearest_whole(value))  # a batch of 62, not 61.7; a threshold of 7.5 keeps its half
    if unit == "s":
        return _time(value, digits)
    if unit in _PREFIXED:
        shown = _PREFIXED[unit]
        if binary and shown.startswith("B"):
            figure, prefix = _ladder(value, _BINARY, digits)
            return _join(figure, prefix + shown)
        if abs(value) >= _TOP:
            return _join(power_of_ten(value, digits), shown)
        figure, prefix = _ladder(value, _SI, digits)
        return _join(figure, prefix + shown)
    if unit in _PLAIN:
        return _join(_plain(value, digits), _PLAIN[unit])
    if unit in _COUNTS or unit == "1":
        return _count(value, unit, digits)
    return _join(_plain(value, digits), unit)


def _plain(value: float, digits: int) -> str:
    """A number with no prefix: every digit of a whole one below a million, else `digits` figures."""
    if float(value).is_integer() and abs(value) < 1e6:
        return whole(value)
    if value != 0 and (abs(value) >= _TOP or abs(value) < 1e-4):
        return power_of_ten(value, digits)
    return number(value, digits)


def _count(value: float, unit: str, digits: int) -> str:
    singular, plural = _COUNTS.get(unit, ("", ""))
    if abs(value) >= _COUNT_TOP:
        return _join(power_of_ten(value, digits), plural)
    if abs(value) < 1e6:
        figure = _plain(value, digits)
        return _join(figure, singular if figure == "1" else plural)
    figure, prefix = _ladder(value, _COUNT, digits)
    return _join(figure + prefix, plural)


_PREFIXES_LONGEST_FIRST = sorted(_PREFIX_SCALE, key=len, reverse=True)


@lru_cache(maxsize=256)
def _read_unit(unit: str) -> tuple[float, str, bool] | None:
    """(scale to the base unit, base unit key, binary) of a unit a part declares, or None."""
    unit = unit.strip()
    if unit in _WHOLE_UNITS:
        scale, base = _WHOLE_UNITS[unit]
        return scale, base, False
    for prefix in _PREFIXES_LONGEST_FIRST:
        rest = unit[len(prefix) :]
        if unit.startswith(prefix) and rest in _BASE_OF_SHOWN:
            return _PREFIX_SCALE[prefix], _BASE_OF_SHOWN[rest], prefix.endswith("i")
    return None


# A figure in a part's declared unit reads as asked from 0.001 up to 99,999 (0.73 GB, 1,410 ms);
# beyond that it takes the prefix that suits it (0.0000056 GB reads 5.6 kB).
_READABLE = (1e-3, 1e5)
# Units a prefix scales (GB, ms, TFLOP/s); counts, ratios and days have their own rules.
_KEEPS_ITS_PREFIX = frozenset(_BASE_OF_SHOWN.values())


def format_in_unit(value: float, unit: str, *, digits: int = 3, exact: bool = False) -> str:
    """A value given in a part's declared unit ("ms", "GB", "KiB/token", "day"), written in that
    unit while it reads well (0.0056 GB, 2,388 µs: a teacher asked in GB wants GB), else with the
    prefix that suits it (0.0000056 GB reads 5.6 kB).

    An `exact` count shows every digit ("1,196,412 tokens"). A unit this module does not know is
    kept as declared.
    """
    read = _read_unit(unit)
    if read is None:
        return _join(_plain(value, digits), unit_shown(unit))
    scale, base, binary = read
    if unit.rstrip("s") in ("day", "hour", "year"):  # a part asked in days answers in days (issue 21)
        figure = number(value, digits)
        return _join(figure, unit.rstrip("s") + ("" if figure == "1" else "s"))
    if exact and float(value).is_integer():
        singular, plural = _COUNTS.get(base, ("", ""))
        return _join(whole(value), singular if value == 1 else plural)
    if base in _KEEPS_ITS_PREFIX and _READABLE[0] <= abs(_round_sig(value, digits)) < _READABLE[1]:
        return _join(number(value, digits), unit_shown(unit))  # asked in GB, answered in GB
    return format_quantity(value * scale, base, digits=digits, binary=binary)


def base_unit(unit: str) -> str:
    """The engine unit a declared unit scales ("s" for "ms" or "day", "byte" for "byte"); "1" for
    one it does not know."""
    if unit == "s" or unit in _PREFIXED or unit in _PLAIN or unit in _COUNTS:
        return unit  # an engine unit already
    read = _read_unit(unit)
    return "1" if read is None else read[1]


def declared_prefixed(unit: str) -> bool:
    """True for a declared unit a prefix scales ("GB", "ms", "TFLOP/s"), which an answer keeps."""
    read = _read_unit(unit)
    return read is not None and read[1] in _KEEPS_ITS_PREFIX


def format_base_in(value: float, unit: str, *, digits: int = 3) -> str:
    """A base-unit value (bytes, seconds) written in a part's declared unit, as `format_in_unit`
    writes the key: every line that prints the value a part asks for prints it the same way."""
    read = _read_unit(unit)
    scale = 1.0 if read is None else read[0]
    return format_in_unit(value / scale, unit, digits=digits)


@lru_cache(maxsize=1024)  # every prompt quotes its chip's figures: work each out once
def quoted(value: float, shown: str, unit: str) -> str:
    """A spec figure in this module's style, keeping every digit and GB or GiB as the spec writes
    it: "1555 GB/s" reads 1.555 TB/s, "32 GiB" stays 32 GiB, "3958 TOPS" reads 3.958 POPS.

    `value` is the figure in `unit` (a key of units.BASE_UNITS); `shown` is how the spec wrote it.
    """
    figure, _, written = shown.partition(" ")
    digits = max(2, len(figure.replace(".", "").lstrip("-0")))
    read = _read_unit(written)
    if read is not None and read[1] == unit:
        return format_quantity(value, unit, digits=digits, binary=read[2])
    if written.endswith("OPS") and written[:-3] in _PREFIX_SCALE:  # integer math: TOPS, not FLOP/s
        mantissa, prefix = _ladder(float(figure) * _PREFIX_SCALE[written[:-3]], _SI, digits)
        return _join(mantissa, prefix + "OPS")
    return _join(number(float(figure), digits), written)


_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)
_UNIT_WORD = (
    r"(?:[kMGTPE]i?)?(?:FLOPs?|FLOP/s|FLOP/B|B|B/s|bytes?|OPS)\b|[mµun]?s\b|min\b|hours?\b|days?\b"
    r"|years?\b|tokens?\b|params?\b|parameters?\b|elements?\b|sequences?\b|layers?\b|%"
)
_SPLITTABLE = re.compile(rf"(?<=\d) (?={_UNIT_WORD})")


def tie_units(text: str) -> str:
    """`text` with every number joined to the unit after it by a no-break space ("2 FLOP per
    parameter" cannot break after the 2); code is left exactly as written."""
    pieces, last = [], 0
    for code in _CODE.finditer(text):
        pieces += [_SPLITTABLE.sub(NBSP, text[last : code.start()]), code[0]]
        last = code.end()
    return "".join([*pieces, _SPLITTABLE.sub(NBSP, text[last:])])


# What a formatted figure looks like: tests scan rendered text for numbers and check each one.
_DIGITS = r"(?:\d{1,3}(?:,\d{3})+|\d{1,3})(?:\.\d+)?"
FIGURE = re.compile(rf"[{MINUS}]?(?:{_DIGITS} × 10[⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+|{_DIGITS}[MBT]?)")
