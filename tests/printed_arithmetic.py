"""Reading a printed step back: `substituted = result` as a reader sees it, parsed into numbers
with the printed rounding and units, and evaluated with interval arithmetic.

Written independently of the engine's formatter: the units, prefixes and grammar here are what
the terminal shows (issue 21), so a bracket the printer loses or a word inside the arithmetic
is a parse or value failure, not something the test can print its way around.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

NBSP = "\u00a0"
MINUS = "\u2212"
SUPERSCRIPTS = "⁰¹²³⁴⁵⁶⁷⁸⁹⁻"

# Units as printed, in a common base (bytes, seconds, FLOP, counts): only scale matters, since
# both sides of a step are read in the same base.
_DECIMAL = {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}
_SMALL = {"m": 1e-3, "µ": 1e-6, "n": 1e-9}
_BINARY = {"Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40, "Pi": 2.0**50}
_PREFIXED = ("B", "FLOP", "FLOP/s", "B/s", "B/token", "FLOP/token", "OP/s", "OP")
_PLAIN = {
    "FLOP/B": 1.0,
    "B/param": 1.0,
    "params": 1.0,
    "param": 1.0,
    "tokens": 1.0,
    "token": 1.0,
    "tokens/s": 1.0,
    "token/s": 1.0,
    "FLOP/param": 1.0,
    "FLOP/param/token": 1.0,
    "%": 0.01,
    "min": 60.0,
    "hour": 3600.0,
    "hours": 3600.0,
    "day": 86400.0,
    "days": 86400.0,
    "year": 365.25 * 86400,
    "years": 365.25 * 86400,
    "bits": 1.0,
    "bit": 1.0,
    "bits/value": 1.0,
    "GPU-hours": 3600.0,
    "USD": 1.0,  # prices: both sides of a step carry them alike (USD/h beside 3,600 s/h)
    "USD/h": 1.0,
    "USD/token": 1.0,
    "Gb/s": 1e9,  # a NIC quoted in gigabits per second: the step divides by 8 bits a byte itself
}
_COUNT_SUFFIX = {"": 1.0, "K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}


def unit_scale(unit: str) -> float | None:
    """The factor that takes a printed unit to the common base, or None for one not known."""
    if unit in _PLAIN:
        return _PLAIN[unit]
    for prefix, scale in [*_BINARY.items(), *_DECIMAL.items(), *_SMALL.items()]:
        rest = unit[len(prefix) :]
        if unit.startswith(prefix) and (rest in _PREFIXED or (rest == "s" and prefix in ("", *_SMALL))):
            return scale
    return None


@dataclass(frozen=True)
class Interval:
    low: float
    high: float

    @property
    def middle(self) -> float:
        return (self.low + self.high) / 2

    def __add__(self, other: Interval) -> Interval:
        return Interval(self.low + other.low, self.high + other.high)

    def __sub__(self, other: Interval) -> Interval:
        return Interval(self.low - other.high, self.high - other.low)

    def __mul__(self, other: Interval) -> Interval:
        corners = [a * b for a in (self.low, self.high) for b in (other.low, other.high)]
        return Interval(min(corners), max(corners))

    def __truediv__(self, other: Interval) -> Interval:
        if other.low <= 0 <= other.high:
            return Interval(-math.inf, math.inf)
        return self * Interval(1 / other.high, 1 / other.low)

    def __pow__(self, other: Interval) -> Interval:
        corners = []
        for base in (self.low, self.high):
            for exponent in (other.low, other.high):
                try:
                    corners.append(float(base**exponent))
                except (OverflowError, ZeroDivisionError):
                    corners.append(math.inf)
                if isinstance(corners[-1], complex):
                    raise PrintedError("a negative base to a fractional power")
        return Interval(min(corners), max(corners))

    def map(self, function: object) -> Interval:
        """A monotonic function applied to both ends."""
        values = sorted((function(self.low), function(self.high)))  # type: ignore[operator]
        return Interval(values[0], values[1])

    def meets(self, other: Interval, slack: float = 0.0) -> bool:
        return self.low - slack <= other.high and other.low - slack <= self.high


class PrintedError(ValueError):
    """A printed step that cannot be read as arithmetic."""


# A figure as printed: digits with commas and decimals, a count suffix (44M, 8.03B), an optional
# power of ten (1.59 × 10²⁴), then a no-break space and a unit.
_FIGURE = re.compile(
    rf"(?P<digits>\d{{1,3}}(?:,\d{{3}})*(?:\.\d+)?)(?P<suffix>[KMBT]?)(?P<power> × 10[{SUPERSCRIPTS}]+)?"
    rf"(?:{NBSP}(?P<unit>[^\s(),⌋⌉]+))?"
)


def figure_interval(
    digits: str, suffix: str, power: str | None, unit: str | None, *, face: bool = False
) -> Interval:
    """The interval a printed figure stands for: ± half a unit of its last printed digit (a whole
    number with trailing zeros, such as 12,300, may have been rounded at its first zero)."""
    plain = digits.replace(",", "")
    value = float(plain)
    if "." in plain:
        ulp = 10.0 ** -len(plain.split(".")[1])
    else:
        stripped = plain.rstrip("0") or "0"
        ulp = 10.0 ** (len(plain) - len(stripped)) if value else 1.0
    scale = _COUNT_SUFFIX[suffix]
    if power:
        exponent = power.split("10", 1)[1].translate(str.maketrans(SUPERSCRIPTS, "0123456789-"))
        scale *= 10.0 ** int(exponent)
    if unit is not None:
        unit_factor = unit_scale(unit)
        if unit_factor is None:
            raise PrintedError(f"unknown unit {unit!r}")
        scale *= unit_factor
    # The formatter writes a whole number below a million in full (2,048, 11,776) and rounds any
    # other to 3 figures, so four significant digits or more mean an exact whole number.
    exact = not suffix and not power and "." not in plain and len(plain.strip("0")) >= 4
    half = 0.0 if exact or face else ulp / 2  # `face`: the figure taken as printed
    return Interval((value - half) * scale, (value + half) * scale)


_TOKEN = re.compile(
    rf"\s+|(?P<figure>{_FIGURE.pattern})|(?P<sup>[{SUPERSCRIPTS}]+)|(?P<fn>max|min|log₂|log|exp)\("
    rf"|(?P<op>[+{MINUS}×÷(),⌊⌋⌈⌉√^])"
)


def tokens(text: str) -> list[tuple[str, str]]:
    """(kind, text) of a printed expression; a word that is neither a figure, a unit nor an
    operator (a choice's text, a category) is an error."""
    found: list[tuple[str, str]] = []
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            raise PrintedError(f"not arithmetic at {text[position : position + 30]!r}")
        position = match.end()
        kind = match.lastgroup
        if kind is None or kind in ("digits", "suffix", "power", "unit"):
            kind = "figure" if match["figure"] else None
        if kind is not None:
            found.append((kind, match[0]))
    return found


class _Parser:
    """expr := term (± term)*; term := unary (×|÷ unary)*; unary := −unary | power;
    power := atom [superscript | ^(expr)]; atom := figure | (expr) | ⌊expr⌋ | ⌈expr⌉ | √atom | fn(expr, …)."""

    def __init__(self, found: list[tuple[str, str]], *, face: bool) -> None:
        self.found = found
        self.face = face
        self.at = 0

    def peek(self) -> str:
        return self.found[self.at][1] if self.at < len(self.found) else ""

    def take(self, expected: str | None = None) -> tuple[str, str]:
        if self.at >= len(self.found):
            raise PrintedError(f"expression ends early, expected {expected!r}")
        token = self.found[self.at]
        if expected is not None and token[1] != expected:
            raise PrintedError(f"expected {expected!r}, found {token[1]!r}")
        self.at += 1
        return token

    def whole(self) -> Interval:
        value = self.expression()
        if self.at != len(self.found):
            raise PrintedError(f"unread: {' '.join(t for _, t in self.found[self.at :])!r}")
        return value

    def expression(self) -> Interval:
        value = self.term()
        while self.peek() in ("+", MINUS):
            sign = self.take()[1]
            right = self.term()
            value = value + right if sign == "+" else value - right
        return value

    def term(self) -> Interval:
        value = self.unary()
        while self.peek() in ("×", "÷"):
            sign = self.take()[1]
            right = self.unary()
            value = value * right if sign == "×" else value / right
        return value

    def unary(self) -> Interval:
        if self.peek() == MINUS:
            self.take()
            inner = self.unary()
            return Interval(-inner.high, -inner.low)
        return self.power()

    def power(self) -> Interval:
        base = self.atom()
        if self.at < len(self.found) and self.found[self.at][0] == "sup":
            text = self.take()[1].translate(str.maketrans(SUPERSCRIPTS, "0123456789-"))
            exponent = float(text)
            return base ** Interval(exponent, exponent)
        if self.peek() == "^":
            self.take()
            self.take("(")
            exponent_interval = self.expression()
            self.take(")")
            return base**exponent_interval
        return base

    def atom(self) -> Interval:
        kind, text = self.take()
        if kind == "figure":
            match = _FIGURE.fullmatch(text)
            assert match is not None
            return figure_interval(
                match["digits"], match["suffix"], match["power"], match["unit"], face=self.face
            )
        if text == "(":
            inner = self.expression()
            self.take(")")
            return inner
        if text in ("⌊", "⌈"):
            inner = self.expression()
            self.take("⌋" if text == "⌊" else "⌉")
            rounding = math.floor if text == "⌊" else math.ceil
            return inner.map(lambda bound: rounding(_exact_whole(bound)))
        if text == "√":
            inner = self.atom()
            return Interval(math.sqrt(max(inner.low, 0.0)), math.sqrt(max(inner.high, 0.0)))
        if kind == "fn":
            args = [self.expression()]
            while self.peek() == ",":
                self.take()
                args.append(self.expression())
            self.take(")")
            name = text[:-1]
            if name == "max":
                return Interval(max(a.low for a in args), max(a.high for a in args))
            if name == "min":
                return Interval(min(a.low for a in args), min(a.high for a in args))
            function = {"log₂": math.log2, "log": math.log, "exp": math.exp}[name]
            return args[0].map(function)
        raise PrintedError(f"unexpected {text!r}")


def _exact_whole(value: float) -> float:
    """A bound as exact arithmetic gives it: 6.048 × 138 ÷ (2 × 16 × 69) × 1,000 is 378, which
    floats make 378.00000000000006 (a teacher's ceiling is 378, not 379)."""
    if math.isfinite(value) and abs(value - round(value)) <= 1e-12 * max(abs(value), 1.0):
        return float(round(value))
    return value


def evaluate(text: str) -> Interval:
    """The interval a printed expression stands for, each figure ± half its last digit."""
    return _Parser(tokens(text), face=False).whole()


def face_value(text: str) -> float:
    """A printed expression worked with its figures exactly as printed."""
    return _Parser(tokens(text), face=True).whole().low


def result_interval(text: str) -> Interval:
    """The interval a printed result stands for ("256", "37.7 GB", "1.87 days")."""
    match = _FIGURE.fullmatch(text.lstrip(MINUS))
    if match is None:
        raise PrintedError(f"result {text!r} is not a figure")
    value = figure_interval(match["digits"], match["suffix"], match["power"], match["unit"])
    return Interval(-value.high, -value.low) if text.startswith(MINUS) else value


def last_place(text: str) -> Interval:
    """A printed result ± half a unit in its last printed digit, as a teacher reads it: "3,227"
    is 3,226.5…3,227.5 and "12,300" 12,250…12,350 (its zeros may be rounding), "0.0777 days"
    0.07765…0.07775 days."""
    match = _FIGURE.fullmatch(text.lstrip(MINUS))
    if match is None:
        raise PrintedError(f"result {text!r} is not a figure")
    face = figure_interval(match["digits"], match["suffix"], match["power"], match["unit"], face=True)
    plain = match["digits"].replace(",", "")
    if "." in plain:
        ulp = 10.0 ** -len(plain.split(".")[1])
    else:
        ulp = 10.0 ** (len(plain) - len(plain.rstrip("0") or "0")) if float(plain) else 1.0
    half = ulp / 2 * face.low / float(plain) if float(plain) else 0.0
    value = Interval(face.low - half, face.low + half)
    return Interval(-value.high, -value.low) if text.startswith(MINUS) else value


def figures(text: str) -> list[str]:
    """The figures (number and unit as printed) an expression uses."""
    return [token for kind, token in tokens(text) if kind == "figure"]


def bracket_faults(text: str) -> list[str]:
    """Unbalanced brackets, and a root of a power of ten left unbracketed (√1.59 × 10²⁴)."""
    faults = []
    for left, right in ("()", "⌊⌋", "⌈⌉"):
        depth = 0
        for char in text:
            depth += (char == left) - (char == right)
            if depth < 0:
                break
        if depth != 0:
            faults.append(f"unbalanced {left}{right}")
    if re.search(rf"√\d[\d,.]*[KMBT]? × 10[{SUPERSCRIPTS}]", text):
        faults.append("a root of a power of ten without brackets")
    return faults


def shown_as(figure: str, text: str) -> bool:
    """True when `text` shows `figure`, or shows the same value to fewer or more figures: a step
    may write 948.105 ms or 1,026 GFLOP where it needs the digits, after an earlier line showed
    948 ms or 1,030 GFLOP (same unit; each figure's rounding covers the other); a spec the prompt
    quotes with a plain space ("400 Gb/s") is shown too."""
    if figure in text or figure.replace(NBSP, " ") in text:
        return True
    used = _FIGURE.fullmatch(figure)
    if used is None:
        return False
    key = (used["unit"], used["suffix"], used["power"])
    exact = figure_interval(used["digits"], used["suffix"], used["power"], used["unit"], face=True)
    rounded_used = figure_interval(used["digits"], used["suffix"], used["power"], used["unit"])
    for shown in _FIGURE.finditer(text):
        if (shown["unit"], shown["suffix"], shown["power"]) != key:
            continue
        face = figure_interval(shown["digits"], shown["suffix"], shown["power"], shown["unit"], face=True)
        rounded = figure_interval(shown["digits"], shown["suffix"], shown["power"], shown["unit"])
        slack = 1e-9 * abs(exact.low)
        if rounded.meets(exact, slack=slack) or rounded_used.meets(face, slack=slack):
            return True
    return False
