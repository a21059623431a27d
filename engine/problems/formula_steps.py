"""The question's own formulas as worked steps, beside the engine's.

The engine explains its own quantities (explain.derivation). A template adds formulas of its own:
derived values (`speedup: {value: drafting.runtime / runtime}`) and answers that are expressions
(`(1 - alpha**(k + 1)) / (1 - alpha)`). Each becomes a step with its name, its formula as the
author wrote it, the values put in, and the result, so "speed-up" is derived like any quantity.
The steps are data (explain.Step); how they are drawn is the renderers' business.
"""

from __future__ import annotations

import ast
from typing import Any

from perfdrill.engine.model.evaluation import computed
from perfdrill.engine.model.explain import Step, display
from perfdrill.engine.problems.expressions import Expression
from perfdrill.engine.problems.prompts import plain_number, show_quantity
from perfdrill.engine.problems.templates import Template
from perfdrill.engine.problems.variants import Variant

FORMULAS_HEADING = "the question's own formulas"


def _used_derived(template: Template) -> list[str]:
    """Derived values the answers read, directly or through other derived values, in file order."""
    derived = {d.name: d for d in template.derived}
    wanted: set[str] = set()
    stack = [name for part in template.parts if part.answer for _, name in part.answer.names]
    while stack:
        name = stack.pop()
        if name in derived and name not in wanted:
            wanted.add(name)
            stack += [read for _, read in derived[name].value.names]
    return [name for name in derived if name in wanted]


def explained_names(template: Template) -> list[tuple[str | None, str]]:
    """(scenario, engine quantity) pairs the explanation derives: those the answers read, and those
    the derived values they use read."""
    expressions = [p.answer for p in template.parts if p.answer is not None and p.sweep is None]
    derived = {d.name: d.value for d in template.derived}
    expressions += [derived[name] for name in _used_derived(template)]
    table = computed(template.workload)
    pairs: list[tuple[str | None, str]] = []
    for expression in expressions:
        for pair in sorted(expression.names, key=lambda p: (p[0] or "", p[1])):
            if pair[1] in table and pair not in pairs:
                pairs.append(pair)
    return pairs


def _shown(variant: Variant, units: dict[str, str], scope: str | None, name: str) -> str:
    value = variant.lookup(name, scope)
    if name in units:
        return show_quantity(float(value), units[name])
    if name in variant.template.parameters_by_name and scope is None:
        return plain_number(variant.params[name])
    try:
        return display(variant.template.workload, name, value)
    except Exception:  # a chip fact or a value with no unit of its own
        return plain_number(value)


def _is_name(expression: Expression) -> bool:
    return isinstance(expression.tree, ast.Name | ast.Attribute)


def formula_steps(variant: Variant, units: dict[str, str], answers: dict[str, str]) -> tuple[Step, ...]:
    """Steps for the derived values the answers use, then for each numeric answer that is a formula.

    `units` gives the unit of each parameter and derived value that has one; `answers` each
    numeric part's shown answer, by part name."""
    template = variant.template

    def substituted(expression: Expression) -> str:
        return expression.substituted(lambda scope, name: _shown(variant, units, scope, name))

    steps = []
    derived = {d.name: d for d in template.derived}
    for name in _used_derived(template):
        item = derived[name]
        value: Any = variant.lookup(name, None)
        result = show_quantity(float(value), units[name]) if name in units else plain_number(value)
        steps.append(
            Step(name, f"{name} = {item.value.text}", substituted(item.value), result,
                 f"the question's own formula, rounded to {item.sig_figs} significant figures")
        )  # fmt: skip
    for part in template.parts:
        if part.kind == "numeric" and part.answer is not None and not _is_name(part.answer):
            steps.append(
                Step(part.name, f"{part.name} = {part.answer.text}", substituted(part.answer),
                     answers[part.name], "the question's own formula for this answer")
            )  # fmt: skip
    return tuple(steps)
