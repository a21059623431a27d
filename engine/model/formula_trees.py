"""Formula trees (see codegen.display_tree): what they are made of, their value, the names they read.

A tree is a name (str), a number, or a tuple ("+", …), ("*", …), ("^", base, exponent), ("max", …),
("min", …), ("floor", x), ("ceil", x), ("pw", (value, condition), …); a condition is a tuple (">=",
a, b), ("and", …), ("or", …), ("not", c) or True. simplifier.py fits a tree to one variant and
display_nodes.py draws it for people.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from perfdrill.engine.model.float_noise import whole_if_noise

Tree = Any  # str | int | float | bool | tuple

_TESTS: dict[str, Callable[[float, float], bool]] = {
    ">=": lambda a, b: a >= b,
    ">": lambda a, b: a > b,
    "<=": lambda a, b: a <= b,
    "<": lambda a, b: a < b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
}
# The functions a tree may call besides max, min, floor and ceil (codegen writes only these).
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "sqrt": math.sqrt,
    "log": math.log,
    "log2": math.log2,
    "exp": math.exp,
    "abs": abs,
}


def evaluate(tree: Tree, values: Mapping[str, Any]) -> Any:
    """The value of `tree` with `values` for its names (a condition gives a bool). A floor or
    ceiling of a whole number but for float noise is that number, as in the generated formulas."""
    if isinstance(tree, str):
        return float(values[tree])
    if not isinstance(tree, tuple):
        return tree
    head, *args = tree
    if head == "pw":
        return next(evaluate(value, values) for value, condition in args if evaluate(condition, values))
    if head in _TESTS:
        return _TESTS[head](evaluate(args[0], values), evaluate(args[1], values))
    parts = [evaluate(arg, values) for arg in args]
    if head == "+":
        return sum(parts)
    if head == "*":
        return math.prod(parts)
    if head == "^":
        return parts[0] ** parts[1]
    functions: dict[str, Callable[..., Any]] = {
        "max": max,
        "min": min,
        "floor": lambda x: math.floor(whole_if_noise(x)),
        "ceil": lambda x: math.ceil(whole_if_noise(x)),
        "and": lambda *c: all(c),
        "or": lambda *c: any(c),
        "not": lambda c: not c,
        **FUNCTIONS,
    }
    return functions[head](*parts)


def names_in(tree: Tree) -> list[str]:
    """The names `tree` reads, each once, left to right."""
    found: list[str] = []

    def walk(node: Tree) -> None:
        if isinstance(node, str):
            if node not in found:
                found.append(node)
        elif isinstance(node, tuple):
            for arg in node[1:]:
                walk(arg)

    walk(tree)
    return found


def is_number(tree: Tree) -> bool:
    """True for a number in a tree (never a bool, which is a condition's value)."""
    return isinstance(tree, int | float) and not isinstance(tree, bool)


def negated(term: Tree) -> tuple[bool, Tree]:
    """Whether a term is subtracted (−3, −2 × x), and what is subtracted (3, 2 × x)."""
    if is_number(term) and term < 0:
        return True, -term
    if isinstance(term, tuple) and term[0] == "*" and is_number(term[1]) and term[1] < 0:
        rest = (term[1] * -1, *term[2:]) if term[1] != -1 else term[2:]
        return True, rest[0] if len(rest) == 1 else ("*", *rest)
    return False, term
