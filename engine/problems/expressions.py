"""Small arithmetic expressions written by template authors, parsed once and evaluated safely.

Templates are untrusted, so their expressions are parsed with `ast` and walked by hand: only
numbers, names, `scenario.name`, arithmetic, comparisons, `and`/`or`/`not`, `a if c else b` and a
few named functions exist. Nothing is ever passed to eval. The same walker evaluates on floats (to
generate a variant) and on pint quantities (to check an answer's dimension).
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from perfdrill.engine.errors import TemplateError

Lookup = Callable[[str, str | None], Any]  # (name, scenario or None) -> value

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Pow: operator.pow,
}
_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
}
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "min": min,
    "max": max,
    "abs": abs,
    "sqrt": math.sqrt,
    "log2": math.log2,
    "ceil": math.ceil,
    "floor": math.floor,
}


@dataclass(frozen=True)
class Expression:
    text: str
    tree: ast.expr
    names: frozenset[tuple[str | None, str]]  # (scenario or None, name) pairs it reads

    def evaluate(self, lookup: Lookup) -> Any:
        return _walk(self.tree, lookup)


def parse_expression(
    text: object, *, file: str | None = None, line: int | None = None, field: str
) -> Expression:
    """Parse `text`; anything outside the small language is a TemplateError naming the field."""
    if isinstance(text, bool) or not isinstance(text, str | int | float):
        raise TemplateError(
            f"expected an expression, got {type(text).__name__}", file=file, line=line, field=field
        )
    source = str(text)
    try:
        tree = ast.parse(source.strip(), mode="eval").body
    except SyntaxError as exc:
        raise TemplateError(
            f"cannot parse expression {source!r}: {exc.msg}", file=file, line=line, field=field
        ) from None
    names: set[tuple[str | None, str]] = set()
    for node in ast.walk(tree):
        problem = _disallowed(node)
        if problem:
            raise TemplateError(f"{problem} in {source!r}", file=file, line=line, field=field)
        if isinstance(node, ast.Attribute):
            assert isinstance(node.value, ast.Name)
            names.add((node.value.id, node.attr))
        elif isinstance(node, ast.Name) and not _is_scope(node, tree) and not _is_function(node, tree):
            names.add((None, node.id))
    return Expression(source, tree, frozenset(names))


_ALLOWED = (
    ast.BinOp,
    ast.UnaryOp,
    ast.BoolOp,
    ast.Compare,
    ast.IfExp,
    ast.Constant,
    ast.Name,
    ast.Load,
    ast.Attribute,
    ast.Call,
    ast.And,
    ast.Or,
    ast.Not,
    ast.USub,
    ast.UAdd,
    *_BINARY,
    *_COMPARE,
)


def _disallowed(node: ast.AST) -> str | None:
    if not isinstance(node, _ALLOWED):
        return f"{type(node).__name__} is not allowed"
    if isinstance(node, ast.Name) and node.id.startswith("_"):
        return f"name {node.id!r} is not allowed"
    if isinstance(node, ast.Attribute) and (
        not isinstance(node.value, ast.Name) or node.attr.startswith("_")
    ):
        return f"attribute {node.attr!r} is not allowed (only scenario.quantity)"
    if isinstance(node, ast.Call) and (
        not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS or node.keywords
    ):
        return f"only these functions may be called: {', '.join(FUNCTIONS)}"
    if isinstance(node, ast.Constant) and not isinstance(node.value, int | float | str):
        return f"constant {node.value!r} is not allowed"
    return None


def _is_scope(node: ast.Name, tree: ast.expr) -> bool:
    return any(isinstance(parent, ast.Attribute) and parent.value is node for parent in ast.walk(tree))


def _is_function(node: ast.Name, tree: ast.expr) -> bool:
    return any(isinstance(parent, ast.Call) and parent.func is node for parent in ast.walk(tree))


def _walk(node: ast.expr, lookup: Lookup) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return lookup(node.id, None)
    if isinstance(node, ast.Attribute):
        assert isinstance(node.value, ast.Name)
        return lookup(node.attr, node.value.id)
    if isinstance(node, ast.BinOp):
        return _BINARY[type(node.op)](_walk(node.left, lookup), _walk(node.right, lookup))
    if isinstance(node, ast.UnaryOp):
        operand = _walk(node.operand, lookup)
        return (
            not operand
            if isinstance(node.op, ast.Not)
            else (-operand if isinstance(node.op, ast.USub) else operand)
        )
    if isinstance(node, ast.BoolOp):
        values = (_walk(value, lookup) for value in node.values)
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.Compare):
        left = _walk(node.left, lookup)
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right = _walk(comparator, lookup)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.IfExp):
        return _walk(node.body, lookup) if _walk(node.test, lookup) else _walk(node.orelse, lookup)
    if isinstance(node, ast.Call):
        assert isinstance(node.func, ast.Name)
        return FUNCTIONS[node.func.id](*(_walk(arg, lookup) for arg in node.args))
    raise AssertionError(f"unchecked node {type(node).__name__}")
