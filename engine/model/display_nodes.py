"""Formula trees drawn for people: `display` turns a tree into format-neutral display nodes (plain
dicts, so they travel to Typst as JSON); `text` writes those in Unicode for the terminal and
Markdown; engine/output writes them as Typst and MathML.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from perfdrill.engine.model.formula_trees import Tree, is_number, negated
from perfdrill.engine.model.numbers import MINUS, NBSP, format_quantity

Node = dict[str, Any]

_SHOWN = {">=": "≥", ">": ">", "<=": "≤", "<": "<", "==": "=", "!=": "≠"}


def word(text: str) -> Node:
    """A quantity's label inside a formula ("KV heads")."""
    return {"k": "word", "t": text}


def figure(text: str, unit: str = "") -> Node:
    """A number as the formatter wrote it, with its unit; "2.66 × 10²³" becomes mantissa and power."""
    mantissa, _, power = text.partition(" × 10")
    node: Node = {"k": "num", "t": mantissa, "u": unit}
    if power:
        node["e"] = power.translate(str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789" + MINUS))
    return node


def quantity(text: str) -> Node:
    """A formatted quantity ("63.6 GB", "8.03B params", "1,024") as a display node."""
    number, _, unit = text.partition(NBSP)
    return figure(number, unit)


def op(symbol: str) -> Node:
    return {"k": "op", "t": symbol}


def row(*items: Node) -> Node:
    return {"k": "row", "c": list(items)}


def display(tree: Tree, leaf: Callable[[str], Node]) -> Node:
    """`tree` as display nodes; each name becomes `leaf(name)` (a label, or a value)."""
    if isinstance(tree, str):
        return leaf(tree)
    if is_number(tree):
        return quantity(format_quantity(abs(tree), "1"))
    head, *args = tree
    if head == "+":
        items = [display(args[0], leaf)]
        for term in args[1:]:
            negative, rest = negated(term)
            shown = display(rest, leaf)
            if negative and isinstance(rest, tuple) and rest[0] == "+":
                shown = {"k": "paren", "c": shown}  # a − (b − c): the sum subtracted whole
            items += [op(MINUS if negative else "+"), shown]
        return row(*items)
    if head == "*":
        return _display_product(args, leaf)
    if head == "^":
        base = display(args[0], leaf)
        if isinstance(args[0], tuple) or (base["k"] == "num" and base["u"]):
            base = {"k": "paren", "c": base}  # (4,096 tokens)², never 4,096 tokens²
        if is_number(args[1]) and args[1] < 0:
            return {"k": "frac", "n": quantity("1"), "d": _power_node(base, -args[1], leaf)}
        return _power_node(base, args[1], leaf)
    if head in ("floor", "ceil", "sqrt"):
        return {"k": head, "c": display(args[0], leaf)}
    return {"k": "fn", "t": "log₂" if head == "log2" else head, "c": [display(arg, leaf) for arg in args]}


def _power_node(base: Node, exponent: Tree, leaf: Callable[[str], Node]) -> Node:
    return base if exponent == 1 else {"k": "pow", "c": base, "e": display(exponent, leaf)}


def _display_product(factors: list[Tree], leaf: Callable[[str], Node]) -> Node:
    above: list[Tree] = []
    below: list[Tree] = []
    for factor in factors:
        if isinstance(factor, tuple) and factor[0] == "^" and is_number(factor[2]) and factor[2] < 0:
            below.append(factor[1] if factor[2] == -1 else ("^", factor[1], -factor[2]))
        else:
            above.append(factor)
    if above and above[0] == -1:
        rest = _display_product(above[1:] + [("^", f, -1) for f in below], leaf)
        return row(op(MINUS), rest)
    below.sort(key=lambda f: not is_number(f))  # 2 × experts per token
    numerator = _factors(above, leaf) if above else quantity("1")
    return numerator if not below else {"k": "frac", "n": numerator, "d": _factors(below, leaf)}


def _factors(factors: list[Tree], leaf: Callable[[str], Node]) -> Node:
    """Factors joined by ×; a sum among other factors is bracketed (alone, a fraction bar holds it)."""
    items: list[Node] = []
    for factor in factors:
        shown = display(factor, leaf)
        if isinstance(factor, tuple) and factor[0] == "+" and len(factors) > 1:
            shown = {"k": "paren", "c": shown}
        items += [op("×"), shown] if items else [shown]
    return items[0] if len(items) == 1 else row(*items)


def relation(symbol: str) -> Node:
    return op(_SHOWN[symbol])


_SUPERSCRIPT = str.maketrans("0123456789" + MINUS, "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def text(node: Node) -> str:
    """A display node in Unicode: 2 × 8 × 128, a ÷ (b × c), prompt², ⌊x⌋, 63.6 GB (no-break space)."""
    kind = node["k"]
    if kind in ("word", "text"):
        return str(node["t"])
    if kind == "num":
        shown = node["t"] + (f" × 10{node['e'].translate(_SUPERSCRIPT)}" if "e" in node else "")
        return f"{shown}{NBSP}{node['u']}" if node["u"] else shown
    if kind == "op":
        return f" {node['t']} "
    if kind == "row":
        items = node["c"]
        lead = items[0]["t"] if items and items[0]["k"] == "op" else ""  # −x, not " − x"
        shown = lead
        for before, item in zip([None, *items], items, strict=False):
            if lead and before is None:
                continue
            apart = before is not None and before["k"] != "op" and item["k"] != "op"
            shown += (" " if apart else "") + text(item)  # a label and its value: "compute time 373 ns"
        return shown
    if kind == "paren":
        return f"({text(node['c'])})"
    if kind == "frac":
        above, below = node["n"], node["d"]
        top = f"({text(above)})" if _has_op(above, {"+", MINUS}) else text(above)
        bottom = f"({text(below)})" if _has_op(below, None) or below["k"] == "frac" else text(below)
        return f"{top} ÷ {bottom}"
    if kind == "pow":
        exponent = text(node["e"])
        shown = exponent.translate(_SUPERSCRIPT) if exponent.lstrip(MINUS).isdigit() else f"^({exponent})"
        return text(node["c"]) + shown
    if kind in ("floor", "ceil"):
        left, right = ("⌊", "⌋") if kind == "floor" else ("⌈", "⌉")
        return f"{left}{text(node['c'])}{right}"
    if kind == "sqrt":
        inner = node["c"]
        bracketed = inner["k"] in ("row", "frac") or "e" in inner  # √(6.38 × 10²³ FLOP)
        return f"√({text(inner)})" if bracketed else f"√{text(inner)}"
    if kind == "fn":
        return f"{node['t']}({', '.join(text(arg) for arg in node['c'])})"
    raise ValueError(f"unknown display node {kind!r}")


def _has_op(node: Node, ops: set[str] | None) -> bool:
    """True when `node` is a row joined by one of `ops` (any operator when None)."""
    return node["k"] == "row" and any(
        item["k"] == "op" and (ops is None or item["t"] in ops) for item in node["c"]
    )
