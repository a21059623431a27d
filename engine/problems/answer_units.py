"""The dimension of an answer expression, found by evaluating it on units instead of numbers.

Each engine quantity declares its unit, so walking `memory_time / compute_time` with pint units
gives the answer's dimension; a part that declares seconds for an expression that computes bytes
is caught when the template is checked, not when a student is marked wrong.
"""

from __future__ import annotations

import zlib
from functools import cache
from typing import Any

from perfdrill.engine.cache import remembered
from perfdrill.engine.errors import PerfdrillError, TemplateError, UnitError
from perfdrill.engine.model.evaluation import INPUTS, computed, info
from perfdrill.engine.model.measured import MEASURED_FACTS
from perfdrill.engine.model.units import BASE_UNITS, DIMENSION_EXAMPLES, base_unit_key, parse_unit, registry
from perfdrill.engine.problems.expressions import Expression, describe, shorten
from perfdrill.engine.problems.quantities import unit_scale
from perfdrill.engine.problems.templates import Derived, Part, Template


def _sample(name: str) -> float:
    """A magnitude for `name` that no formula is likely to cancel: `1 - alpha` with alpha = 1
    divided by zero when every name was 1."""
    return 1.0 + (zlib.crc32(name.encode()) % 997) / 1009


def _quantity(unit: str, name: str) -> Any:
    return registry().Quantity(_sample(name), BASE_UNITS.get(unit, unit))


@cache
def name_units(template: Template) -> dict[str, str]:
    """The unit (a BASE_UNITS key) of every parameter that has one and of every derived value."""
    return _derived_facts(template)[0]


@cache
def derived_scales(template: Template) -> dict[str, float]:
    """The factor that attaches a derived value's declared unit: 1024 for `{value: 16, unit: KiB}`,
    1 where the value already computes that unit. A unit that does not fit is a located error."""
    return _derived_facts(template)[1]


def _derived_facts(template: Template) -> tuple[dict[str, str], dict[str, float]]:
    units = {p.name: unit_scale(p.unit)[0] for p in template.parameters if p.unit}
    if not template.derived:
        return units, {}
    key = "|".join(
        [template.workload, *(f"{n}:{u}" for n, u in sorted(units.items()))]
        + [f"{d.name}={d.value.text}@{d.unit}" for d in template.derived]
    )
    text = str(remembered("derived_units", key, lambda: _inferred(template, dict(units))))
    scales = {}
    for entry in text.split(";"):
        name, unit, scale = entry.split(" ")
        units[name] = unit
        if float(scale) != 1.0:
            scales[name] = float(scale)
    return units, scales


def _inferred(template: Template, units: dict[str, str]) -> str:
    """Each derived value's unit and scale, as cached text: "name unit scale;..."."""
    entries = []
    for derived in template.derived:
        try:
            unit, scale = _derived_unit(template, derived, units)
        except UnitError as exc:
            field = "unit" if derived.unit is not None else "value"
            raise TemplateError(
                exc.message, file=template.file, line=template.line("derived", derived.name, field),
                field=f"derived.{derived.name}.{field}",
            ) from None  # fmt: skip
        units[derived.name] = unit
        entries.append(f"{derived.name} {unit} {scale!r}")
    return ";".join(entries)


def _derived_unit(template: Template, derived: Derived, units: dict[str, str]) -> tuple[str, float]:
    computes = expression_unit(template, derived.value, units)
    if derived.unit is None:
        return computes, 1.0
    declared, factor = unit_scale(derived.unit)
    if computes == "1":  # a plain number: the unit attaches
        return declared, factor
    if computes != declared:
        raise UnitError(f"the value computes {computes} but the unit is {derived.unit!r}")
    return declared, 1.0


def expression_unit(template: Template, expression: Expression, units: dict[str, str]) -> str:
    """The BASE_UNITS key (or pint's text) of what `expression` computes."""
    value = _walked(template, expression, units)
    key = base_unit_key(value.units)
    if key is None or " " in key:
        return key or f"{value.units:~}".replace(" ", "")
    return key


def _unit_of(template: Template, name: str, units: dict[str, str]) -> Any:
    if name in units:
        return _quantity(units[name], name)
    if name in computed(template.workload) or name in INPUTS:
        return _quantity(info(template.workload, name).unit, name)
    if name in MEASURED_FACTS:
        return _quantity(MEASURED_FACTS[name], name)
    return _quantity("1", name)  # a plain parameter, or a chip or model fact


def _walked(template: Template, expression: Expression, units: dict[str, str]) -> Any:
    if expression.unit is not None:  # "10 us", held as 1e-05 s
        return registry().Quantity(float(expression.evaluate(lambda *_: 0.0)), BASE_UNITS[expression.unit])
    try:
        value = expression.evaluate(lambda name, _scope: _unit_of(template, name, units))
    except PerfdrillError:
        raise
    except ArithmeticError as exc:  # 9**9**9 overflows before any unit matters
        raise UnitError(f"{shorten(expression.text)}: {describe(exc)}") from None
    except Exception as exc:  # pint raises its own types for mixed dimensions (bytes + seconds)
        raise UnitError(f"{shorten(expression.text)} mixes incompatible units: {exc}") from None
    return value if hasattr(value, "units") else registry().Quantity(float(value), "dimensionless")


@cache
def answer_factor(template: Template, part: Part) -> float:
    """Factor from the answer's base-unit value to the part's declared unit.

    Checked factors are kept in the cache (engine/cache.py), so generating a known template does
    not import pint (a third of a second); a mismatch is never cached and is reported every time.
    """
    assert part.answer is not None
    where = {"file": template.file, "line": part.answer_line or part.line}
    try:
        units = name_units(template)
    except UnitError as exc:  # a parameter's or derived value's unit: reported where it is given
        raise TemplateError(exc.message, **where, field=f"parts.{part.name}.answer") from None  # type: ignore[arg-type]
    read = sorted(f"{name}:{units[name]}" for _, name in part.answer.names if name in units)
    key = f"{template.workload}|{part.answer.text}|{part.unit}|{','.join(read)}"
    return float(remembered("answer_units", key, lambda: _checked_factor(template, part, units)))


def _checked_factor(template: Template, part: Part, units: dict[str, str]) -> float:
    assert part.answer is not None
    where = {"file": template.file, "line": part.answer_line or part.line}
    try:
        answer_unit = _walked(template, part.answer, units)
    except PerfdrillError as exc:
        raise TemplateError(exc.message, **where, field=f"parts.{part.name}.answer") from None  # type: ignore[arg-type]
    try:
        declared = parse_unit(part.unit, what="unit")
    except PerfdrillError as exc:
        raise TemplateError(exc.message, **where, field=f"parts.{part.name}.unit") from None  # type: ignore[arg-type]
    if answer_unit.dimensionality != declared.dimensionality:
        computes = f"{answer_unit.units:~}" or "a plain number"
        raise TemplateError(
            f"answer {shorten(part.answer.text)} computes {computes} "
            f"but the unit is {part.unit!r}",
            **where, field=f"parts.{part.name}.unit",  # type: ignore[arg-type]
        )  # fmt: skip
    return float(registry().Quantity(1.0, answer_unit.units).to(declared).magnitude)


# Counted things a plain count may take: `m: tokens` (rows of a matmul), `batch: tokens`.
_COUNTS = ("token", "parameter")


def _feeds(template: Template) -> list[tuple[tuple[str | int, ...], str, Expression]]:
    """(field path, engine name, expression) of every value the template gives an engine input."""
    feeds: list[tuple[tuple[str | int, ...], str, Expression]] = [
        (("inputs", name), name, expression) for name, expression in template.inputs.items()
    ]
    for scenario, overrides in template.scenarios.items():
        feeds += [(("scenarios", scenario, name), name, value) for name, value in overrides.items()]
    return feeds + [(("derived", d.name, "value"), d.name, d.value) for d in template.derived]


def _engine_unit(template: Template, name: str) -> str | None:
    if name in INPUTS or name in computed(template.workload):
        return info(template.workload, name).unit
    return None


@cache
def check_input_units(template: Template) -> None:
    """Every value an engine input takes has that input's dimension, or none (a plain number is read
    in the engine's unit): a parameter drawn in ms that feeds `collective_bytes` is a located error,
    not "a gradient buffer of 580 µs". Checked results are kept in the cache, as answer_factor's."""
    units = name_units(template)
    feeds = [
        (path, name, expression)
        for path, name, expression in _feeds(template)
        if _engine_unit(template, name)
    ]
    read = sorted(f"{n}:{u}" for n, u in units.items())
    key = "|".join([template.workload, *read, *(f"{'.'.join(map(str, p))}={e.text}" for p, _, e in feeds)])
    remembered("input_units", key, lambda: _checked_feeds(template, feeds, units))


def _checked_feeds(
    template: Template, feeds: list[tuple[tuple[str | int, ...], str, Expression]], units: dict[str, str]
) -> str:
    for path, name, expression in feeds:
        wanted = _engine_unit(template, name)
        computes = units[name] if path[0] == "derived" else None
        try:
            computes = computes or expression_unit(template, expression, units)
        except UnitError:  # `max(16, context_window)`: a plain number beside tokens, read in tokens
            continue
        if computes not in ("1", wanted) and not (wanted == "1" and computes in _COUNTS):
            raise TemplateError(
                f"{shorten(expression.text)} is {_kind(computes)}, but {name} is {_kind(str(wanted))}",
                file=template.file, line=template.line(*path), field=".".join(map(str, path)),
            )  # fmt: skip
    return "ok"


def _kind(unit: str) -> str:
    """ "s" -> "a time (s)": how a dimension is named in a message."""
    example = DIMENSION_EXAMPLES.get(unit, "")
    return f"{example.split(',')[0]} ({unit})" if example else f"in {unit}"
