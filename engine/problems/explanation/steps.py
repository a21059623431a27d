"""Steps for what a template writes itself: a part's answer expression, a `derived:` value, and
the cases of a select-all part, each worked from values the reader has seen."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from perfdrill.engine.errors import PerfdrillError
from perfdrill.engine.model.display_nodes import display as display_node
from perfdrill.engine.model.display_nodes import op, quantity, row, word
from perfdrill.engine.model.evaluation import computed, info
from perfdrill.engine.model.explain import derivation, renamed
from perfdrill.engine.model.formula_trees import Tree, names_in
from perfdrill.engine.model.numbers import NBSP, base_unit, format_quantity
from perfdrill.engine.model.printed import extra_figures
from perfdrill.engine.model.quantity_text import GIVEN_DIGITS, label_of
from perfdrill.engine.model.worked_step import Step
from perfdrill.engine.problems.explanation.values import (
    binary_names,
    categorical,
    units,
    value_text,
    what_if_value,
)
from perfdrill.engine.problems.explanation.whatifs import changes, extends, scenario_change
from perfdrill.engine.problems.templates import Template
from perfdrill.engine.problems.variants import Variant, spec_inputs

Shown = Callable[[str | None, str], str | None]  # (scope, name) -> the text an earlier line showed


def derived_step(
    template: Template, variant: Variant, name: str, shown: Shown, answer: str = ""
) -> Step | None:
    """A `derived:` value worked out, ending in the key's `answer` where a part asks it."""
    derived = next(d for d in template.derived if d.name == name)
    result = answer or value_text(template, variant, name, variant.inputs[name])
    unit = derived.unit or derived.value.unit or "1"
    step = expression_step(template, variant, derived.value, result, shown, unit)
    if step is None:
        return None
    label = label_of(template.workload, name)
    if what_if_value(derived.value) is not None:
        # a what-if's value read off the line above: "draft step time = 1.48 ms", never the
        # what-if's words as its formula ("runtime with the draft model, …")
        return Step(name, label, quantity(step.result), None, step.result, step.value)
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
    if expression is None or isinstance(expression.tree, ast.Name):
        return None
    if (None, name) not in expression.names:
        return _bits_step(template, variant, name, prompt)
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


def input_step(template: Template, variant: Variant, name: str, shown: Shown, prompt: str) -> Step | None:
    """An input the template works out from what the prompt states (`tokens: sequences * sequence`,
    `optimizer_bytes_per_param: 4 + 4 + 4`) as a step, "training tokens = sequences × sequence
    length = 4,096 × 2,048 tokens = 8.389M tokens", never a given the prompt does not show; None
    for an input the prompt shows (`given.tokens`), a conversion (`nic * 1000000000 / 8`) or one
    that is not plain arithmetic or reads a figure the `prompt` writes otherwise. A number written
    among counts carries the input's unit: "one FLOP per element" per kernel is "kernels × 1 FLOP"."""
    expression = template.inputs.get(name)
    if (
        expression is None
        or not isinstance(expression.tree, ast.BinOp)
        or f"given.{name}" in _texts(template)
    ):
        return None
    tree = _tree(expression.tree)
    if tree is None or any(_scope(key) or _name(key) not in variant.params for key in names_in(tree)):
        return None
    if any(abs(number) >= _CONVERSION for number in _numbers(tree)):
        return None
    if any(variant.params[_name(key)] == 0 for key in names_in(tree)):
        return None  # "16 + 0": a term that vanishes here, so the input is the given it reads as
    value = float(variant.inputs[name])
    counts = all(_unit(template.workload, _name(key)) == "1" for key in names_in(tree))

    def leaf(key: str) -> Any:
        if key.startswith("#"):
            number = float(key[1:])
            return quantity(
                value_text(template, variant, name, number) if counts else format_quantity(number, "1")
            )
        return word(label_of(template.workload, _name(key)))

    figures = {
        _name(key): shown(None, _name(key))
        or value_text(template, variant, _name(key), float(variant.lookup(_name(key), None)))
        for key in names_in(tree)
    }
    said = prompt.replace(NBSP, " ")
    if any(text.split(NBSP)[0] not in said for text in figures.values()):
        return None  # a figure the prompt writes otherwise (58112 in code): a given, as it was

    def figure(key: str) -> Any:
        return leaf(key) if key.startswith("#") else quantity(figures[_name(key)])

    named = _named_numbers(tree)
    substituted = display_node(named, figure) if names_in(tree) else None
    result = value_text(template, variant, name, value)
    return Step(
        name, label_of(template.workload, name), display_node(named, leaf), substituted, result, value
    )


_CONVERSION = 100  # 1024, 1e9 / 8, a percent ÷ 100: a change of unit, not a quantity the prompt states


def _unit(workload: str, name: str) -> str:
    try:
        return info(workload, name).unit
    except PerfdrillError:  # a template parameter the engine does not know: a count
        return "1"


def _texts(template: Template) -> str:
    return " ".join([template.prompt, *(part.prompt for part in template.parts), *template.hints])


def _numbers(tree: Tree) -> list[float]:
    if isinstance(tree, int | float):
        return [float(tree)]
    if isinstance(tree, tuple):
        return [number for arg in tree[1:] for number in _numbers(arg) if number != -1]
    return []


def _named_numbers(tree: Tree) -> Tree:
    """`tree` with each number but the −1 of a difference as a leaf "#4", so it can carry a unit."""
    if isinstance(tree, int | float) and tree != -1:
        return f"#{tree}"
    if isinstance(tree, tuple):
        head, *args = tree
        if head == "^":
            return (head, _named_numbers(args[0]), args[1])
        return (head, *(_named_numbers(arg) for arg in args))
    return tree


def decimal_step(template: Template, variant: Variant, name: str) -> Step | None:
    """A chip memory its spec quotes in GiB, converted before the working adds decimal GB of
    weights and cache to it: "memory per chip = 32 GiB = 34.36 GB"; None for any other value."""
    if name != "memory_capacity" or name not in binary_names(template, variant):
        return None
    value = float(variant.lookup(name, None))
    decimal = format_quantity(value, "byte", digits=4)
    shown = quantity(value_text(template, variant, name, value))
    return Step(name, label_of(template.workload, name), shown, None, decimal, value)


def _bits_step(template: Template, variant: Variant, name: str, prompt: str) -> Step | None:
    """A bandwidth the template draws in bytes from a NIC the prompt quotes in Gb/s (`nic * 1e9 /
    8`), worked as "network bandwidth = 400 Gb/s ÷ 8 = 50 GB/s"; None for any other input."""
    value = float(variant.inputs[name])
    bits = f"{format_quantity(value * 8 / 1e9, '1')}{NBSP}Gb/s"
    if base_unit(info(template.workload, name).unit) != "byte/s" or bits.replace(
        NBSP, " "
    ) not in prompt.replace(NBSP, " "):
        return None
    formula = row(quantity(bits), op("÷"), quantity("8"))
    result = value_text(template, variant, name, value)
    return Step(name, label_of(template.workload, name), formula, None, result, value)


def expression_step(
    template: Template, variant: Variant, expression: Any, result: str, shown: Shown, unit: str
) -> Step | None:
    """A template expression worked out: `formula = values = result` (`result` in `unit`, a part's
    declared unit or an engine one), or None for one that is not plain arithmetic (a comparison
    or a condition). Each value is written as an earlier line showed it, unless the figures as
    printed would not give the result to its last digit (a difference of two near-equal times):
    then every value gets the figures it needs."""
    tree = _tree(expression.tree)
    if tree is None:
        return None
    workload = template.workload
    keys = names_in(tree)
    scopes = {_scope(key) for key in keys}
    values = {key: float(variant.lookup(_name(key), _scope(key))) for key in keys}
    digits = {key: 3 if _name(key) in computed(workload) else GIVEN_DIGITS for key in keys}
    value = float(expression.evaluate(variant.lookup))
    derived_units = units(template)

    def unit_of(key: str) -> str:
        name = _name(key)
        if name in derived_units:
            return derived_units[name]
        if categorical(workload, name):
            return "1"
        try:
            return info(workload, name).unit
        except PerfdrillError:  # a template parameter the engine does not know
            return "1"

    def name_of(key: str) -> str:
        scope, name = _scope(key), _name(key)
        title = label_of(workload, renamed(workload, name, variant.values(scope)))
        if scope and name in template.scenarios[scope]:
            return f"{title} in the what-if"  # not "KV cache per token with twice the KV cache per token"
        base = next((other for other in scopes if extends(template, other, scope)), None)
        if base is not None:  # read beside the case it extends: said by what it adds to it
            return f"{title} then with {changes(template, variant, base, scope, brief=True)}"
        words = "" if scope is None else f"with {scenario_change(template, variant, scope)}"
        return f"{title} {words}".strip()

    def figure(key: str, extra: int) -> str:
        name = key.rpartition(":")[2]
        if categorical(workload, name):  # a yes/no quantity counts as 1 or 0 inside arithmetic
            return format_quantity(values[key], "1")
        scope = _scope(key)
        earlier = shown(scope, name) or shown(scope, renamed(workload, name, variant.values(scope)))
        if earlier is not None and not extra:
            return earlier
        return value_text(template, variant, name, values[key], digits[key] + extra, whole_count=extra == 0)

    extra = extra_figures(
        tree, lambda more: {k: figure(k, more) for k in keys}, unit_of, result, base_unit(unit)
    )
    formula = display_node(tree, lambda key: word(name_of(key)))
    substituted = (
        display_node(tree, lambda key: quantity(figure(key, extra)))
        if keys and not isinstance(tree, str)
        else None
    )
    return Step("", "", formula, substituted, result, value)


def _constrained(template: Template, scope: str | None) -> list[tuple[str, str]]:
    """The (larger, smaller) pairs the template's constraints settle in `scope`: from
    `prefill_compute_time > 1.25 * prefill_memory_time` (the prompt says the prefill is
    compute-bound), the prefill's runtime is its compute time, worked without the memory side."""
    pairs = []
    for expression, _ in template.constraints:
        node = expression.tree
        if not (isinstance(node, ast.Compare) and len(node.ops) == 1):
            continue
        kind, left, right = type(node.ops[0]), node.left, node.comparators[0]
        if kind in (ast.Lt, ast.LtE):
            left, right = right, left
        elif kind not in (ast.Gt, ast.GtE):
            continue
        if isinstance(right, ast.BinOp) and isinstance(right.op, ast.Mult):  # larger > k × smaller, k ≥ 1
            factor, right = (
                (right.left, right.right)
                if isinstance(right.left, ast.Constant)
                else (right.right, right.left)
            )
            if not (
                isinstance(factor, ast.Constant)
                and isinstance(factor.value, int | float)
                and factor.value >= 1
            ):
                continue
        larger, smaller = _tree(left), _tree(right)
        if (
            isinstance(larger, str)
            and isinstance(smaller, str)
            and _scope(larger) == _scope(smaller) == scope
        ):
            pairs.append((_name(larger), _name(smaller)))
    return pairs


def settled(
    template: Template, variant: Variant, prompt: str, given: set[str], scope: str | None
) -> list[tuple[str, str]]:
    """The pairs the constraints settle whose losing side would read a rate the prompt never
    quotes (a memory bandwidth where the prompt says compute-bound); a roofline the prompt gives
    both sides of keeps its max, the comparison the student is asked to make."""
    values, said = variant.values(scope), prompt.replace(NBSP, " ")

    def unquoted(name: str) -> bool:
        texts = {  # to the figures the prompt may quote it with (a datasheet's 1.3074 PFLOP/s)
            value_text(template, variant, name, float(values[name]), digits).replace(NBSP, " ")
            for digits in range(3, 7)
        }
        # a rate (a bandwidth, a peak) is a figure a prompt quotes or leaves out; counts and sizes
        # it gives in words ("in bf16" is 2 B per element)
        return all(text.endswith("/s") and text not in said for text in texts)

    return [
        (larger, smaller)
        for larger, smaller in _constrained(template, scope)
        if any(unquoted(name) for name in derivation(template.workload, [smaller], values, given).givens)
    ]


def _scope(key: str) -> str | None:
    return key.rpartition(":")[0] or None


def _name(key: str) -> str:
    return key.rpartition(":")[2]


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
