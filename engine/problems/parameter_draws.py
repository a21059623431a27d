"""Drawing a template's parameters for a seed: the values each can take and the one a seed picks.

A variant is fully determined by (template id, seed): the generator is seeded from a hash of
both and only `random()` is used, whose sequence Python guarantees across versions and machines.
Displayed values are rounded when drawn, so answers are computed from exactly what is shown.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Mapping
from decimal import Decimal
from functools import cache
from typing import Any

from perfdrill.engine.errors import PerfdrillError, TemplateError
from perfdrill.engine.model.specs import Chip, Model, SpecBook
from perfdrill.engine.problems.quantities import unit_scale
from perfdrill.engine.problems.templates import Parameter, Template

MAX_DRAWS = 1000  # rejection-sampling budget before a template's constraints count as unmeetable;
# the two-model templates accept about one draw in 20, so 200 failed one seed in about ten thousand
CHIP_FILTERS = ("ids", "exclude", "vendor", "dtype", "has")
MODEL_FILTERS = ("ids", "exclude", "moe", "gqa", "mla")


def rng_for(template_id: str, seed: int) -> random.Random:
    digest = hashlib.sha256(f"{template_id}#{seed}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def round_sig(value: float, sig_figs: int) -> float:
    return 0.0 if value == 0 else float(f"{value:.{sig_figs}g}")


_CANDIDATES: dict[tuple[int, int], tuple[Parameter, SpecBook, list[Any]]] = {}


def candidates(parameter: Parameter, specs: SpecBook, template: Template) -> list[Any]:
    """Every value the parameter can take, in a fixed order (filtered once per spec book)."""
    key = (id(parameter), id(specs))
    if key not in _CANDIDATES:  # the entry holds both objects, so their ids stay theirs
        _CANDIDATES[key] = (parameter, specs, _filtered(parameter, specs, template))
    return _CANDIDATES[key][2]


def _filtered(parameter: Parameter, specs: SpecBook, template: Template) -> list[Any]:
    if parameter.kind == "choice":
        return list(parameter.choices)
    if parameter.kind == "chip":
        return [c for _, c in sorted(specs.chips.items()) if _chip_matches(c, parameter, template)]
    if parameter.kind == "model":
        return [m for _, m in sorted(specs.models.items()) if _model_matches(m, parameter, template)]
    raise AssertionError(parameter.kind)


def draw(parameter: Parameter, rng: random.Random, specs: SpecBook, template: Template) -> Any:
    if parameter.kind == "range":
        u = rng.random()
        if parameter.log:
            value = math.exp(
                math.log(parameter.low) + u * (math.log(parameter.high) - math.log(parameter.low))
            )
        else:
            value = parameter.low + u * (parameter.high - parameter.low)
        if parameter.step is not None:
            value = min(max(round(value / parameter.step) * parameter.step, parameter.low), parameter.high)
            if float(parameter.step).is_integer():
                return int(value)
            return round(value, _decimals(parameter.step))  # 0.6, not 0.6000000000000001
        assert parameter.sig_figs is not None
        return round_sig(value, parameter.sig_figs)
    options = candidates(parameter, specs, template)
    if not options:
        raise _parameter_error(parameter, template, "no value matches its filters")
    return options[int(rng.random() * len(options))]


def _decimals(step: float) -> int:
    """Decimal places of `step` as written: 0.05 -> 2, 1e-05 -> 5."""
    exponent = Decimal(repr(float(step))).as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


@cache
def parameter_scales(template: Template) -> dict[str, float]:
    """Factor from each parameter's unit to the engine's (ms -> s is 0.001); a bad unit is located."""
    scales = {}
    for parameter in template.parameters:
        if parameter.unit:
            try:
                scales[parameter.name] = unit_scale(parameter.unit)[1]
            except PerfdrillError as exc:
                raise TemplateError(
                    exc.message, file=template.file, line=template.line("parameters", parameter.name, "unit"),
                    field=f"parameters.{parameter.name}.unit",
                ) from None  # fmt: skip
    return scales


def parameter_value(template: Template, params: Mapping[str, Any], name: str) -> Any:
    """A parameter as expressions see it: the number drawn, in the engine's unit."""
    scale = parameter_scales(template).get(name)
    return params[name] if scale is None else params[name] * scale


def _parameter_error(parameter: Parameter, template: Template, message: str) -> TemplateError:
    return TemplateError(
        message, file=template.file, line=parameter.line, field=f"parameters.{parameter.name}"
    )


def _chip_matches(chip: Chip, parameter: Parameter, template: Template) -> bool:
    where = parameter.where
    _known_filters(where, CHIP_FILTERS, parameter, template)
    dtypes = where.get("dtype", [])
    has = where.get("has", [])
    return (
        chip.id in _as_list(where.get("ids", chip.id))
        and chip.id not in where.get("exclude", [])
        and chip.vendor in _as_list(where.get("vendor", chip.vendor))
        and all(d in chip.peak_flops for d in _as_list(dtypes))
        and all(getattr(chip, h, None) is not None for h in _as_list(has))
    )


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else [value]


def _model_matches(model: Model, parameter: Parameter, template: Template) -> bool:
    where = parameter.where
    _known_filters(where, MODEL_FILTERS, parameter, template)
    mla = model.kv_elements_per_token_per_layer is not None
    return (
        model.id in _as_list(where.get("ids", model.id))
        and model.id not in where.get("exclude", [])
        and where.get("moe", model.is_moe) == model.is_moe
        and where.get("gqa", model.kv_heads < model.heads) == (model.kv_heads < model.heads)
        and where.get("mla", mla) == mla
    )


def _known_filters(
    where: Mapping[str, Any], allowed: tuple[str, ...], parameter: Parameter, t: Template
) -> None:
    for key in where:
        if key not in allowed:
            raise _parameter_error(parameter, t, f"unknown filter {key!r}; allowed: {', '.join(allowed)}")
