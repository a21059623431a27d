"""A drawn variant's values in every scenario, and the answer a given mistake would give.

parameter_draws.py draws the parameters; scenario_inputs.py gives the engine inputs each scenario
starts from.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from perfdrill.engine.errors import UsageError
from perfdrill.engine.model.evaluation import computed, fill
from perfdrill.engine.problems.expressions import Expression
from perfdrill.engine.problems.mistakes import ANSWER, Mistake
from perfdrill.engine.problems.parameter_draws import parameter_value
from perfdrill.engine.problems.scenario_inputs import spec_inputs as spec_inputs  # re-exported
from perfdrill.engine.problems.scenario_inputs import swapped_inputs
from perfdrill.engine.problems.templates import Template


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
