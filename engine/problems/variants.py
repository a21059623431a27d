"""Drawing a template's parameters for a seed and evaluating its quantities in every scenario.

A variant is fully determined by (template id, seed): the generator is seeded from a hash of
both and only `random()` is used, whose sequence Python guarantees across versions and machines.
Displayed values are rounded when drawn, so answers are computed from exactly what is shown.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Callable, Mapping
from decimal import Decimal
from functools import cache
from typing import Any

from perfdrill.engine.errors import PerfdrillError, TemplateError, UsageError
from perfdrill.engine.model import generated_display
from perfdrill.engine.model.evaluation import computed, fill, info
from perfdrill.engine.model.formula_inputs import hardware, model_inputs
from perfdrill.engine.model.measured import MEASURED_FACTS, measured_facts
from perfdrill.engine.model.specs import Chip, Model, SpecBook
from perfdrill.engine.problems.expressions import Expression, describe
from perfdrill.engine.problems.mistakes import ANSWER, Mistake
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


class Variant:
    """One variant's values: parameters, engine inputs and every quantity asked for, per scenario.

    Scenario None is the variant itself; named scenarios re-run the engine with some inputs
    replaced. A mistake variant replaces one quantity in every scenario with its slipped value.
    """

    def __init__(
        self,
        template: Template,
        params: Mapping[str, Any],
        inputs: Mapping[str, float],
        mistake: Mistake | None = None,
        correct: Variant | None = None,
    ) -> None:
        self.template = template
        self.params = params
        self.inputs = dict(inputs)
        self.mistake = mistake
        self.correct = correct
        self._table = frozenset(computed(template.workload))
        self._values: dict[str | None, dict[str, Any]] = {}

    def lookup(self, name: str, scope: str | None) -> Any:
        if scope is None and name in self.params and name not in self.inputs:
            return parameter_value(self.template, self.params, name)
        values = self.values(scope)
        if name not in values:
            if name not in self._table:
                where = f"scenario {scope!r}" if scope else "this template"
                raise UsageError(f"unknown name {name!r} in {where}")
            fill(self.template.workload, values, [name])
        return values[name]

    def evaluate(self, expression: Expression) -> Any:
        return expression.evaluate(self.lookup)

    def values(self, scope: str | None) -> dict[str, Any]:
        if scope not in self._values:
            self._values[scope] = self._scope_inputs(scope)
        return self._values[scope]

    def _scope_inputs(self, scope: str | None) -> dict[str, Any]:
        if scope is None:
            inputs = dict(self.inputs)
        else:
            if scope not in self.template.scenarios:
                raise UsageError(
                    f"unknown scenario {scope!r}; scenarios: {', '.join(self.template.scenarios)}"
                )
            base = self.correct or self
            inputs = dict(self.inputs)
            if scope in self.template.scenario_specs:  # another chip, model or dtype
                changed, dropped = swapped_inputs(self.template, self.params, scope)
                inputs.update(changed)
                for name in dropped:
                    inputs.pop(name, None)
            for name, expression in self.template.scenarios[scope].items():
                inputs[name] = float(base.evaluate(expression))
        correct = self.correct
        if self.mistake is not None and correct is not None:
            for target, expression in self.mistake.expressions():
                if target != ANSWER and (target in inputs or target in self._table):
                    try:
                        slipped = expression.evaluate(lambda name, _: correct.lookup(name, scope))
                    except UsageError:  # it reads a fact this variant lacks (no sparse figure…):
                        continue  # this replacement cannot happen here; the mistake's others still can
                    inputs[target] = float(slipped)
        return inputs


def _constant(value: float) -> Callable[[str, str | None], float]:
    return lambda _name, _scope: value


def mistake_value(variant: Variant, answer: Expression, mistake: Mistake) -> float | None:
    """`answer` as someone who made `mistake` would compute it, or None where the slip cannot happen
    here or leaves the answer exactly as it is (a sparse peak on a memory-bound kernel)."""
    value = float(
        Variant(variant.template, variant.params, variant.inputs, mistake, variant).evaluate(answer)
    )
    for target, expression in mistake.expressions():
        if target == ANSWER:
            value = float(expression.evaluate(_constant(value)))
    right = float(variant.evaluate(answer))
    return None if math.isclose(value, right, rel_tol=1e-12, abs_tol=0.0) else value


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
