"""Numbers with units that authors write: a parameter's unit, and a quantity such as "10 us" given
as a whole value in `inputs`, `derived` or a scenario.

Both reach expressions in the engine's units (10 us is 1e-05 s), and the unit is kept so that
answer_units.py can check the dimension of what an expression feeds.
"""

from __future__ import annotations

import ast
import re
from functools import cache

from perfdrill.engine.cache import remembered
from perfdrill.engine.errors import PerfdrillError, UnitError
from perfdrill.engine.model.units import BASE_UNITS, base_unit_key, parse_unit, registry, split_number
from perfdrill.engine.problems.expressions import Expression, expression_at
from perfdrill.engine.schema import Where

# A number, then a unit that starts with a letter, µ or %: "10 us", "16 KiB", "2.5e9 B/s".
_LITERAL = re.compile(r"\s*[+-]?(?:\d[\d,_]*(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*[A-Za-zµμ%].*", re.DOTALL)


@cache
def unit_scale(unit: str) -> tuple[str, float]:
    """The engine's unit of `unit`'s dimension (a BASE_UNITS key) and the factor into it:
    "ms" -> ("s", 0.001), "KiB/token" -> ("byte/token", 1024.0). A UnitError names a bad unit."""
    if unit in BASE_UNITS:
        return unit, 1.0
    key, _, factor = str(remembered("unit_scale", unit, lambda: _scale_text(unit))).partition(" ")
    return key, float(factor)


def _scale_text(unit: str) -> str:
    try:
        parsed = parse_unit(unit, what="unit")
    except UnitError:
        raise UnitError(f"{unit!r} is not a unit perfdrill knows (e.g. token, KiB, ms, GB/s)") from None
    key = base_unit_key(parsed)
    if key is None:
        raise UnitError(f"{unit!r} is not a unit the engine computes in ({', '.join(BASE_UNITS)})")
    return f"{key} {registry().Quantity(1.0, parsed).to(BASE_UNITS[key]).magnitude!r}"


def quantity_literal(text: object) -> Expression | None:
    """`text` as a quantity in the engine's units ("10 us" is 1e-05 s), or None when it is not one
    number and a unit (then it is an expression, parsed as usual). A bad unit is a UnitError."""
    if not isinstance(text, str) or not _LITERAL.fullmatch(text):
        return None
    try:
        ast.parse(text.strip(), mode="eval")
        return None  # a valid expression that happens to start with a number: "2 if x else 3"
    except SyntaxError:
        pass
    value, unit_text = split_number(text, what="value")
    key, factor = unit_scale(unit_text)
    return Expression(text, ast.Constant(value * factor), frozenset(), unit=key)


def value_at(where: Where, text: object, *path: str | int) -> Expression:
    """A value an input takes: an expression, or a quantity with its unit ("10 us"); a failure is
    located at `path` in the file `where` reads."""
    try:
        literal = quantity_literal(text)
    except PerfdrillError as exc:
        raise where.error(exc.message, *path) from None
    return literal if literal is not None else expression_at(where, text, *path)
