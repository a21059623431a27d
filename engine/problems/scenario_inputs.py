"""The engine inputs a template's scenario gives: the drawn chip's and model's figures, the
template's `inputs` block, measured rates, and what a named scenario's other chip or model changes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from perfdrill.engine.errors import PerfdrillError, TemplateError, UsageError
from perfdrill.engine.model import generated_display
from perfdrill.engine.model.evaluation import computed, info
from perfdrill.engine.model.formula_inputs import hardware, model_inputs
from perfdrill.engine.model.measured import MEASURED_FACTS, measured_facts
from perfdrill.engine.model.specs import Chip, Model, SpecBook
from perfdrill.engine.problems.expressions import describe
from perfdrill.engine.problems.parameter_draws import parameter_value
from perfdrill.engine.problems.templates import Template


def chip_facts(chip: Chip, dtype: str) -> dict[str, float]:
    """Spec facts a question may constrain on or a mistake may misread, beyond the roofline inputs."""
    facts: dict[str, float] = {}
    if dtype in chip.sparse_peak_flops:
        facts["sparse_peak_flops"] = chip.sparse_peak_flops[dtype]
    number, _, unit = chip.memory.shown.partition(" ")
    if unit == "GiB":
        facts["memory_capacity_read_as_gb"] = float(number) * 1e9
    if chip.link_domain is not None:
        facts["link_domain"] = float(chip.link_domain)
    if chip.network_nics is not None:
        facts["network_nics"] = chip.network_nics.value
    for other, peak in chip.peak_flops.items():  # the peak a lower-precision path runs at (W8A8, FP4)
        facts[f"{other}_peak_flops"] = peak.value
    return facts


@cache
def _workload_inputs(workload: str) -> frozenset[str]:
    """The inputs `workload`'s formulas read."""
    table = computed(workload)
    return frozenset(arg for name in table for arg in info(workload, name).args) - frozenset(table)


def _shown(value: Any) -> str:
    if isinstance(value, Chip | Model):
        return f"the {type(value).__name__.lower()} {value.id!r}"
    return repr(value)


def _count(value: Any, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or not float(value).is_integer():
        raise UsageError(f"{key} must be a whole number, not {_shown(value)}")
    return int(value)


def _fraction(value: Any, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise UsageError(f"{key} must be a number, not {_shown(value)}")
    return float(value)


def spec_inputs(template: Template, params: Mapping[str, Any]) -> dict[str, float]:
    """The engine inputs the chip and model give, before the template's `inputs` block replaces any."""
    return _spec_inputs(template, template.scenario, params)


def _spec_inputs(
    template: Template, scenario: Mapping[str, Any], params: Mapping[str, Any]
) -> dict[str, float]:
    def resolve(key: str, default: Any) -> Any:
        value = scenario.get(key, default)
        return params[value] if isinstance(value, str) and value in params else value

    inputs: dict[str, float] = dict(generated_display.DEFAULT_INPUTS)  # sympy-free, for start-up
    chip = resolve("chip", None)
    if chip is not None:
        dtype = resolve("dtype", "bf16")
        # A question that reads no FLOP/s (a collective) runs on a chip without this dtype's peak.
        unused = "peak_flops" not in _workload_inputs(template.workload) and dtype not in chip.peak_flops
        chips, mfu = _count(resolve("chips", 1), "chips"), _fraction(resolve("mfu", 1.0), "mfu")
        inputs.update(_chip_inputs(chip, dtype, chips, mfu, unused))
    model = resolve("model", None)
    if model is not None:
        inputs.update(_model_inputs(model, resolve("weight_dtype", "bf16"), resolve("kv_dtype", "bf16")))
    return inputs


# Rejection sampling asks for the same chip's and model's inputs draw after draw. Specs are frozen
# but not hashable (they hold dicts), so entries are keyed by identity and keep their spec alive,
# which makes an id unique while its entry lives. Callers only read the dicts returned.
_REMEMBERED: dict[tuple[Any, ...], tuple[object, dict[str, float]]] = {}


def _remembered(spec: object, key: tuple[Any, ...], make: Callable[[], dict[str, float]]) -> dict[str, float]:
    slot = (id(spec), *key)
    try:
        hit = _REMEMBERED.get(slot)
    except TypeError:  # a malformed template's dtype (a list, a mapping): make() says what is wrong
        return make()
    if hit is not None and hit[0] is spec:
        return hit[1]
    if len(_REMEMBERED) > 4096:
        _REMEMBERED.clear()
    values = make()
    _REMEMBERED[slot] = (spec, values)
    return values


def _chip_inputs(chip: Chip, dtype: str, chips: int, mfu: float, unused: bool) -> dict[str, float]:
    def make() -> dict[str, float]:
        values = hardware(chip, dtype, flops=1.0 if unused else None, chips=chips, mfu=mfu).inputs()
        if unused:
            del values["peak_flops"]
        return {**values, **chip_facts(chip, dtype)}

    return _remembered(chip, ("chip", dtype, chips, mfu, unused), make)


def _model_inputs(model: Model, weight_dtype: str, kv_dtype: str) -> dict[str, float]:
    def make() -> dict[str, float]:
        return model_inputs(model, weight_dtype=weight_dtype, kv_dtype=kv_dtype)

    return _remembered(model, ("model", weight_dtype, kv_dtype), make)


def scenario_inputs(
    template: Template, params: Mapping[str, Any], specs: SpecBook | None = None, scope: str | None = None
) -> dict[str, float]:
    """Engine inputs from the template's scenario (chip, model, dtypes) and its `inputs` block;
    `scope` names a scenario that swaps in another chip, model or dtype."""
    scenario = {**template.scenario, **template.scenario_specs.get(scope or "", {})}
    path = ("scenarios", scope) if scope in template.scenario_specs else ("scenario",)
    try:
        inputs = _spec_inputs(template, scenario, params)
    except (PerfdrillError, TypeError, ValueError) as exc:
        message = exc.message if isinstance(exc, PerfdrillError) else describe(exc)
        raise TemplateError(
            message, file=template.file, line=template.line(*path), field=".".join(map(str, path))
        ) from None
    _check_parameters_reach_the_engine(template, inputs)
    chip, dtype = (scenario.get(key, "bf16") for key in ("chip", "dtype"))
    drawn = params.get(chip) if isinstance(chip, str) else None

    def measured() -> dict[str, float]:  # rates measured for this chip, dtype and shape (specs/measured/)
        if not isinstance(drawn, Chip) or not isinstance(dtype, str):
            return {}
        return measured_facts(drawn.id, str(params.get(dtype, dtype)), inputs)

    for name, expression in template.inputs.items():

        def look(n: str, s: str | None) -> Any:
            if s is None and n in params:
                return parameter_value(template, params, n)
            if s is None and n in inputs:
                return inputs[n]
            if s is None and n in MEASURED_FACTS:
                if n not in (facts := measured()):
                    raise UsageError(f"no measurement gives {n!r} for this chip, dtype and shape")
                return facts[n]
            raise UsageError(f"unknown name {n!r}: inputs may use parameters and scenario values")

        try:
            inputs[name] = float(expression.evaluate(look))
        except (PerfdrillError, ArithmeticError, TypeError, ValueError) as exc:
            raise TemplateError(
                exc.message if isinstance(exc, PerfdrillError) else describe(exc),
                file=template.file, line=template.line("inputs", name), field=f"inputs.{name}",
            ) from None  # fmt: skip
    inputs.update(measured())
    return inputs


@cache
def _read_beyond_inputs(template: Template) -> frozenset[str]:
    """Names read, outside any scenario, by derived values, scenarios, constraints and answers."""
    expressions = [d.value for d in template.derived] + [c for c, _ in template.constraints]
    expressions += [e for overrides in template.scenarios.values() for e in overrides.values()]
    expressions += [p.answer for p in template.parts if p.answer is not None]
    return frozenset(name for e in expressions for scope, name in e.names if scope is None)


def _check_parameters_reach_the_engine(template: Template, engine: Mapping[str, float]) -> None:
    """A parameter named like an input the chip, the model or a default sets must be what feeds it:
    otherwise every expression reads the engine's value (mfu 1) while the prompt shows the drawn one."""
    for parameter in template.parameters:
        name = parameter.name
        if name not in _read_beyond_inputs(template) or name not in engine or name in template.inputs:
            continue  # `inputs` read parameters first: `participants: chips` is the drawn chips
        if template.scenario.get(name) == name or any(d.name == name for d in template.derived):
            continue
        raise TemplateError(
            f"{name!r} is also the name of an engine input, which the scenario sets itself, so every "
            f"expression reads the engine's {name} and not this parameter: feed it (inputs: "
            f"{{{name}: {name}}}) or call the parameter something else",
            file=template.file, line=parameter.line, field=f"parameters.{name}",
        )  # fmt: skip


def swapped_inputs(
    template: Template, params: Mapping[str, Any], scope: str
) -> tuple[dict[str, float], set[str]]:
    """What scenario `scope`'s chip, model or dtypes change in the inputs, and what they drop
    (a chip without a sparse figure); inputs a variant replaced itself (a sweep) stay replaced."""
    before, after = scenario_inputs(template, params), scenario_inputs(template, params, scope=scope)
    changed = {name: value for name, value in after.items() if before.get(name) != value}
    return changed, set(before) - set(after)
