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
from typing import Any

from perfdrill.engine.errors import PerfdrillError, SpecError, TemplateError, UsageError
from perfdrill.engine.model.evaluation import computed, fill
from perfdrill.engine.model.formula_inputs import hardware, model_inputs
from perfdrill.engine.model.inefficiencies import DEFAULT_INPUTS
from perfdrill.engine.model.specs import Chip, Model, SpecBook
from perfdrill.engine.problems.expressions import Expression
from perfdrill.engine.problems.mistakes import ANSWER, Mistake
from perfdrill.engine.problems.templates import Parameter, Template

MAX_DRAWS = 200  # rejection-sampling budget before a template's constraints count as unmeetable
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
            return int(value) if float(parameter.step).is_integer() else value
        assert parameter.sig_figs is not None
        return round_sig(value, parameter.sig_figs)
    options = candidates(parameter, specs, template)
    if not options:
        raise _parameter_error(parameter, template, "no value matches its filters")
    return options[int(rng.random() * len(options))]


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
            return self.params[name]
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
            for name, expression in self.template.scenarios[scope].items():
                inputs[name] = float(base.evaluate(expression))
        correct = self.correct
        if self.mistake is not None and correct is not None:
            for target, expression in self.mistake.expressions():
                if target != ANSWER and (target in inputs or target in self._table):
                    try:
                        slipped = expression.evaluate(lambda name, _: correct.lookup(name, scope))
                    except UsageError:  # it reads a fact this variant lacks (no sparse figure…)
                        raise MistakeNotApplicable(self.mistake.id) from None
                    inputs[target] = float(slipped)
        return inputs


def _constant(value: float) -> Callable[[str, str | None], float]:
    return lambda _name, _scope: value


class MistakeNotApplicable(Exception):
    """The slip cannot happen in this variant."""


def mistake_value(variant: Variant, answer: Expression, mistake: Mistake) -> float | None:
    """`answer` as someone who made `mistake` would compute it, or None where the slip cannot happen
    here or leaves the answer exactly as it is (a sparse peak on a memory-bound kernel)."""
    try:
        value = float(
            Variant(variant.template, variant.params, variant.inputs, mistake, variant).evaluate(answer)
        )
    except MistakeNotApplicable:
        return None
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
    for other, peak in chip.peak_flops.items():  # the peak a lower-precision path runs at (W8A8, FP4)
        facts[f"{other}_peak_flops"] = peak.value
    return facts


def scenario_inputs(template: Template, params: Mapping[str, Any], specs: SpecBook) -> dict[str, float]:
    """Engine inputs from the template's scenario (chip, model, dtypes) and its `inputs` block."""
    scenario = template.scenario

    def resolve(key: str, default: Any) -> Any:
        value = scenario.get(key, default)
        return params[value] if isinstance(value, str) and value in params else value

    inputs: dict[str, float] = dict(DEFAULT_INPUTS)
    try:
        chip = resolve("chip", None)
        if chip is not None:
            dtype = resolve("dtype", "bf16")
            inputs.update(
                hardware(chip, dtype, chips=int(resolve("chips", 1)), mfu=float(resolve("mfu", 1.0))).inputs()
            )
            inputs.update(chip_facts(chip, dtype))
        model = resolve("model", None)
        if model is not None:
            inputs.update(
                model_inputs(
                    model, weight_dtype=resolve("weight_dtype", "bf16"), kv_dtype=resolve("kv_dtype", "bf16")
                )
            )
    except (SpecError, UsageError) as exc:
        raise TemplateError(
            exc.message, file=template.file, line=template.line_of("scenario"), field="scenario"
        ) from None
    for name, expression in template.inputs.items():

        def look(n: str, s: str | None) -> Any:
            if s is None and n in params:
                return params[n]
            if s is None and n in inputs:
                return inputs[n]
            raise UsageError(f"unknown name {n!r}: inputs may use parameters and scenario values")

        try:
            inputs[name] = float(expression.evaluate(look))
        except (PerfdrillError, ArithmeticError, TypeError, ValueError) as exc:
            raise TemplateError(
                str(exc), file=template.file, line=template.line_of("inputs"), field=f"inputs.{name}"
            ) from None
    return inputs
