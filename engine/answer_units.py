"""The dimension of an answer expression, found by evaluating it on units instead of numbers.

Each engine quantity declares its unit, so walking `memory_time / compute_time` with pint units
gives the answer's dimension; a part that declares seconds for an expression that computes bytes
is caught when the template is checked, not when a student is marked wrong.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from engine.compiled import compiled_module, info
from engine.disk_memo import remembered
from engine.errors import PerfdrillError, TemplateError, UnitError
from engine.templates import Part, Template
from engine.units import BASE_UNITS, parse_unit, registry


def _unit_of(template: Template, name: str) -> Any:
    module = compiled_module()
    if name in module.TABLE[template.workload] or name in module.INPUTS:
        unit = info(template.workload, name).unit
        return registry().Quantity(1.0, BASE_UNITS.get(unit, unit))
    return registry().Quantity(1.0, "dimensionless")  # parameters are plain numbers


@cache
def answer_factor(template: Template, part: Part) -> float:
    """Factor from the answer's base-unit value to the part's declared unit.

    Checked factors are kept on disk under the formulas' hash, so generating a known template does
    not import pint (a third of a second); a mismatch is never cached and is reported every time.
    """
    assert part.answer is not None
    key = f"{template.workload}|{part.answer.text}|{part.unit}"
    return float(remembered("answer_units", key, lambda: _checked_factor(template, part)))


def _checked_factor(template: Template, part: Part) -> float:
    assert part.answer is not None
    where = {"file": template.file, "line": part.line, "field": f"parts.{part.name}.unit"}
    try:
        computed = part.answer.evaluate(lambda name, _scope: _unit_of(template, name))
        declared = parse_unit(part.unit, what="unit")
    except (UnitError, PerfdrillError) as exc:
        raise TemplateError(exc.message, **where) from None  # type: ignore[arg-type]
    except Exception as exc:  # pint raises its own types for mixed dimensions (bytes + seconds)
        raise TemplateError(f"answer mixes incompatible units: {exc}", **where) from None  # type: ignore[arg-type]
    if not hasattr(computed, "units"):
        computed = registry().Quantity(float(computed), "dimensionless")
    if computed.dimensionality != declared.dimensionality:
        raise TemplateError(
            f"answer {part.answer.text!r} computes {computed.units:~} but the unit is {part.unit!r}",
            **where,  # type: ignore[arg-type]
        )
    return float(registry().Quantity(1.0, computed.units).to(declared).magnitude)
