"""Steps for what a template writes itself: a part's answer expression, a `derived:` value, and
the cases of a select-all part, each worked from values the reader has seen."""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Mapping
from typing import Any

from perfdrill.engine.model.evaluation import computed
from perfdrill.engine.model.explain import GIVEN_DIGITS, Step, label_of, renamed
from perfdrill.engine.model.maths import Tree, evaluate, names_in, op, quantity, row, word
from perfdrill.engine.model.maths import display as display_node
from perfdrill.engine.model.numbers import NBSP, format_quantity
from perfdrill.engine.problems.explanation.values import categorical, value_text
from perfdrill.engine.problems.explanation.whatifs import scenario_change
from perfdrill.engine.problems.templates import Template
from perfdrill.engine.problems.variants import Variant, spec_inputs

Shown = Callable[[str | None, str], str | None]  # (scope, name) -> the text an earlier line showed


def derived_step(template: Template, variant: Variant, name: str, shown: Shown) -> Step | None:
    derived = next(d for d in template.derived if d.name == name)
    result = value_text(template, variant, name, variant.inputs[name])
    step = expression_step(template, variant, derived.value, result, shown)
    if step is None:
        return None
    label = label_of(template.workload, name)
    return Step(name, label, step.formula, step.substituted, step.result, step.value)


def reads_what_if(template: Template, name: str) -> bool:
    """True for a derived value that reads a what-if, itself or through another derived value."""
    by_name = {d.name: d for d in template.derived}
    return any(
        scope is not None or (used in by_name and used != name and reads_what_if(template, used))
        for scope, used in by_name[name].value.names
    )


def derated_step(
    template: Template, variant: Variant, name: str, shown: Callable[[str], str], prompt: str
) -> Step | None:
    """An input the template derates from the chip's own figure (`link_bandwidth: link_bandwidth *
    efficiency`) as a step, "link bandwidth = datasheet link bandwidth × efficiency = 900 GB/s × 80 %
    = 720 GB/s", so the reader sees where the factor enters; None for any other input. `shown`
    writes a drawn factor as the `prompt` does, and a NIC the prompt quotes in Gb/s stays in Gb/s."""
    expression = template.inputs.get(name)
    if expression is None or (None, name) not in expression.names or isinstance(expression.tree, ast.Name):
        return None
    tree = _tree(expression.tree)
    if tree is None:
        return None
    spec = spec_inputs(template, variant.params)

    def value_of(key: str) -> Any:
        own = _name(key)
        if own != name:
            return quantity(shown(value_text(template, variant, own, float(variant.lookup(own, None)))))
        bits = f"{format_quantity(spec[own] * 8 / 1e9, '1')}{NBSP}Gb/s"  # the chip's figure, as quoted
        if bits.replace(NBSP, " ") in prompt.replace(NBSP, " "):
            return row(quantity(bits), op("÷"), quantity("8"))
        return quantity(value_text(template, variant, own, spec[own]))

    def name_of(key: str) -> Any:
        own = label_of(template.workload, _name(key))
        return word(f"datasheet {own}" if _name(key) == name else own)

    value = float(variant.inputs[name])
    result = value_text(template, variant, name, value)
    formula, substituted = display_node(tree, name_of), display_node(tree, value_of)
    return Step(name, label_of(template.workload, name), formula, substituted, result, value)


def expression_step(
    template: Template, variant: Variant, expression: Any, result: str, shown: Shown
) -> Step | None:
    """A template expression worked out: `formula = values = result`, or None for one that is not
    plain arithmetic (a comparison or a condition). Each value is written as an earlier line
    showed it, unless the figures as printed would not give the result (a difference of two
    near-equal times): then every value gets the figures it needs."""
    tree = _tree(expression.tree)
    if tree is None:
        return None
    workload = template.workload
    keys = names_in(tree)
    values = {key: float(variant.lookup(_name(key), _scope(key))) for key in keys}
    digits = {key: 3 if _name(key) in computed(workload) else GIVEN_DIGITS for key in keys}
    value = float(expression.evaluate(variant.lookup))
    extra = _extra_digits(tree, values, digits, value)

    def name_of(key: str) -> str:
        scope, name = _scope(key), _name(key)
        title = label_of(workload, renamed(workload, name, variant.values(scope)))
        if scope and name in template.scenarios[scope]:
            return f"{title} in the what-if"  # not "KV cache per token with twice the KV cache per token"
        words = "" if scope is None else f"with {scenario_change(template, variant, scope)}"
        return f"{title} {words}".strip()

    def value_of(key: str) -> Any:
        name = key.rpartition(":")[2]
        if categorical(workload, name):  # a yes/no quantity counts as 1 or 0 inside arithmetic
            return quantity(format_quantity(values[key], "1"))
        scope = _scope(key)
        earlier = shown(scope, name) or shown(scope, renamed(workload, name, variant.values(scope)))
        if earlier is not None and not extra:
            return quantity(earlier)
        return quantity(value_text(template, variant, name, values[key], digits=digits[key] + extra))

    formula = display_node(tree, lambda key: word(name_of(key)))
    substituted = display_node(tree, value_of) if keys and not isinstance(tree, str) else None
    return Step("", "", formula, substituted, result, value)


def _scope(key: str) -> str | None:
    return key.rpartition(":")[0] or None


def _name(key: str) -> str:
    return key.rpartition(":")[2]


def _extra_digits(tree: Tree, values: Mapping[str, float], digits: Mapping[str, int], value: float) -> int:
    """Figures to add to every value a step shows so that the values as printed still give its
    result within 1%: the difference of two near-equal times (948.45 ms − 948.26 ms) needs more."""
    scale = max((abs(v) for v in values.values()), default=0.0)
    for extra in range(5):
        rounded = {key: float(f"{v:.{digits[key] + extra - 1}e}") for key, v in values.items()}
        try:
            face = float(evaluate(tree, rounded))
        except (ArithmeticError, ValueError):
            return 0
        if math.isclose(face, value, rel_tol=0.01, abs_tol=1e-12 * scale):
            return extra
    return 0


_OPERATORS: dict[type[ast.operator], str] = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.Pow: "^",
}


def _tree(node: ast.expr) -> Tree | None:
    """A template expression's syntax as a formula tree (names as "scope:name"), or None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return node.value
    if isinstance(node, ast.Name):
        return f":{node.id}"
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}:{node.attr}"
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _tree(node.operand)
        return None if inner is None else ("*", -1, inner)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left, right = _tree(node.left), _tree(node.right)
        if left is None or right is None:
            return None
        kind = _OPERATORS[type(node.op)]
        if kind == "-":
            return ("+", left, ("*", -1, right))
        if kind == "/":
            return ("*", left, ("^", right, -1))
        return ("+" if kind == "+" else "*" if kind == "*" else "^", left, right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        args = [_tree(arg) for arg in node.args]
        return None if any(arg is None for arg in args) else (node.func.id, *args)
    return None
