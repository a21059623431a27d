"""The dimension of an answer expression, found by evaluating it on units instead of numbers.

Each engine quantity declares its unit, so walking `memory_time / compute_time` with pint units
gives the answer's dimension; a part that declares seconds for an expression that computes bytes
is caught when the template is checked, not when a student is marked wrong.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from perfdrill.engine.cache import remembered
from perfdrill.engine.errors import PerfdrillError, TemplateError, UnitError
from perfdrill.engine.model.evaluation import INPUTS, computed, info
from perfdrill.engine.model.units import BASE_UNITS, parse_unit, registry
from perfdrill.engine.problems.templates import Part, Template


def _unit_of(template: Template, name: str) -> Any:
    if name in computed(template.workload) or name in INPUTS:
        unit = info(template.workload, name).unit
        return registry().Quantity(1.0, BASE_UNITS.get(unit, unit))
    return registry().Quantity(1.0, "dimensionless")  # parameters are plain numbers


@cache
def answer_factor(template: Template, part: Part) -> float:
    """Factor from the answer's base-unit value to the part's declared unit.

    Checked factors are kept in the cache (engine/cache.py), so generating a known template does
    not import pint (a third of a second); a mismatch is never cached and is reported every time.
    """
    assert part.answer is not None
    key = f"{template.workload}|{part.answer.text}|{part.unit}"
    return float(remembered("answer_units", key, lambda: _checked_factor(template, part)))


def _checked_factor(template: Template, part: Part) -> float:
    assert part.answer is not None
    where = {"file": template.file, "line": part.line, "field": f"parts.{part.name}.unit"}
    try:
        answer_unit = part.answer.evaluate(lambda name, _scope: _unit_of(template, name))
        declared = parse_unit(part.unit, what="unit")
    except (UnitError, PerfdrillError) as exc:
        raise TemplateError(exc.message, **where) from None  # type: ignore[arg-type]
    except Exception as exc:  # pint raises its own types for mixed dimensions (bytes + seconds)
        raise TemplateError(f"answer mixes incompatible units: {exc}", **where) from None  # type: ignore[arg-type]
    if not hasattr(answer_unit, "units"):
        answer_unit = registry().Quantity(float(answer_unit), "dimensionless")
    if answer_unit.dimensionality != declared.dimensionality:
        raise TemplateError(
            f"answer {part.answer.text!r} computes {answer_unit.units:~} but the unit is {part.unit!r}",
            **where,  # type: ignore[arg-type]
        )
    return float(registry().Quantity(1.0, answer_unit.units).to(declared).magnitude)
