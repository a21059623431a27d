"""Small arithmetic expressions written by template authors, parsed once and evaluated safely.

Templates are untrusted, so their expressions are parsed with `ast` and walked by hand: only
numbers, names, `scenario.name`, arithmetic, comparisons, `and`/`or`/`not`, `a if c else b` and a
few named functions exist. Nothing is ever passed to eval. The same walker evaluates on floats (to
generate a variant) and on pint quantities (to check an answer's dimension).

Every expression is small by construction: at most MAX_CHARACTERS characters and MAX_DEPTH levels
of nesting, so parsing and walking it are bounded. Whole numbers are combined as floats, so
`9**9**9` overflows at once (an error) instead of computing a number with 370 million digits.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from perfdrill.engine.errors import TemplateError

if TYPE_CHECKING:
    from perfdrill.engine.schema import Where

MAX_CHARACTERS = 1_000  # the longest expression in the bank is under 200
MAX_DEPTH = 40  # levels of nesting, well past `(a + b) * (c - d) / e` and short of any recursion limit
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
    unit: str | None = None  # a quantity written with its unit ("10 us"): its engine unit, e.g. "s"

    def evaluate(self, lookup: Lookup) -> Any:
        return _walk(self.tree, lookup)

    @property
    def is_condition(self) -> bool:
        """Whether it can only be true or false: a comparison, or and/or/not of conditions."""
        return _is_condition(self.tree)

    def substituted(self, shown: Callable[[str | None, str], str]) -> str:
        """The expression with each name replaced by `shown(scope, name)`, e.g. "(20 ms) / (5 ms)"."""
        marks: dict[str, str] = {}

        class Marker(ast.NodeTransformer):
            def visit_Name(self, node: ast.Name) -> ast.AST:
                return self.mark(None, node.id)

            def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
                assert isinstance(node.value, ast.Name)
                return self.mark(node.value.id, node.attr)

            def visit_Call(self, node: ast.Call) -> ast.AST:
                node.args = [self.visit(arg) for arg in node.args]  # the function name stays
                return node

            def mark(self, scope: str | None, name: str) -> ast.Name:
                text = shown(scope, name)
                marks[f"_v{len(marks)}_"] = f"({text})" if " " in text else text
                return ast.Name(id=f"_v{len(marks) - 1}_", ctx=ast.Load())

        tree = Marker().visit(ast.parse(self.text.strip(), mode="eval"))
        text = ast.unparse(tree)
        for mark, value in marks.items():
            text = text.replace(mark, value)
        return text


def parse_expression(
    text: object, *, file: str | None = None, line: int | None = None, field: str
) -> Expression:
    """Parse `text`; anything outside the small language is a TemplateError naming the field."""
    if isinstance(text, bool) or not isinstance(text, str | int | float):
        raise TemplateError(
            f"expected an expression, got {type(text).__name__}", file=file, line=line, field=field
        )
    source = str(text)
    if len(source) > MAX_CHARACTERS:
        raise TemplateError(
            f"expression {shorten(source)} is {len(source):,} characters long; at most {MAX_CHARACTERS:,}",
            file=file, line=line, field=field,
        )  # fmt: skip
    try:
        tree = ast.parse(source.strip(), mode="eval").body
    except SyntaxError as exc:
        raise TemplateError(
            f"cannot parse expression {shorten(source)}: {exc.msg}", file=file, line=line, field=field
        ) from None
    except (RecursionError, MemoryError):
        raise TemplateError(
            f"expression {shorten(source)} is nested too deeply", file=file, line=line, field=field
        ) from None
    if _depth(tree) > MAX_DEPTH:
        raise TemplateError(
            f"expression {shorten(source)} is nested more than {MAX_DEPTH} levels deep",
            file=file, line=line, field=field,
        )  # fmt: skip
    names: set[tuple[str | None, str]] = set()
    for node in ast.walk(tree):
        problem = _disallowed(node)
        if problem:
            raise TemplateError(f"{problem} in {shorten(source)}", file=file, line=line, field=field)
        if isinstance(node, ast.Attribute):
            assert isinstance(node.value, ast.Name)
            names.add((node.value.id, node.attr))
        elif isinstance(node, ast.Name) and not _is_scope(node, tree) and not _is_function(node, tree):
            names.add((None, node.id))
    return Expression(source, tree, frozenset(names))


def expression_at(where: Where, text: object, *path: str | int) -> Expression:
    """`text` parsed, a failure located at `path` in the file `where` reads."""
    try:
        return parse_expression(text, field="")
    except TemplateError as exc:  # located only when it fails: most expressions are fine
        raise where.error(exc.message, *path) from None


def describe(error: Exception) -> str:
    """What went wrong while evaluating, in words and one short line."""
    if isinstance(error, OverflowError):
        return "a number too large to compute (past 1e308)"
    if isinstance(error, ZeroDivisionError):
        return "division by zero"
    text = " ".join(str(error).split())
    return text if len(text) <= 200 else text[:197] + "..."


def shorten(text: str, limit: int = 80) -> str:
    """`text` quoted, cut to `limit` characters: messages stay one readable line."""
    return repr(text) if len(text) <= limit else repr(text[: limit - 3] + "...")


def _depth(tree: ast.AST) -> int:
    """Levels of nesting, counted without recursion."""
    deepest, stack = 0, [(tree, 1)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in ast.iter_child_nodes(node))
    return deepest


def _is_condition(node: ast.expr) -> bool:
    if isinstance(node, ast.Compare):
        return True
    if isinstance(node, ast.BoolOp):
        return all(_is_condition(value) for value in node.values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return True
    if isinstance(node, ast.IfExp):
        return _is_condition(node.body) and _is_condition(node.orelse)
    return False


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
        left, right = _walk(node.left, lookup), _walk(node.right, lookup)
        if _whole(left) and _whole(right):  # floats overflow at once; ints could take hours
            left, right = float(left), float(right)
        return _BINARY[type(node.op)](left, right)
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


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
