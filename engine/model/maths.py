"""Formula trees (see codegen.display_tree) made fit for one variant, then drawn for people.

A tree is a name (str), a number, or a tuple ("+", …), ("*", …), ("^", base, exponent), ("max", …),
("min", …), ("floor", x), ("ceil", x), ("pw", (value, condition), …). `Simplifier` puts in the
values that make terms vanish (0 and 1), keeps only the case a piecewise formula takes (and says
why), and folds what is left, so a dense model's parameter count has no MoE term. `display` turns
a tree into format-neutral display nodes (plain dicts, so they travel to Typst as JSON); `text`
writes those in Unicode for the terminal and Markdown; engine/output writes them as Typst and MathML.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from perfdrill.engine.model.numbers import MINUS, NBSP, format_quantity

Tree = Any  # str | int | float | bool | tuple
Node = dict[str, Any]

_NEGATED = {">=": "<", ">": "<=", "<=": ">", "<": ">=", "==": "!=", "!=": "=="}
_SHOWN = {">=": "≥", ">": ">", "<=": "≤", "<": "<", "==": "=", "!=": "≠"}
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


def evaluate(tree: Tree, values: Mapping[str, Any], *, exact_counts: bool = False) -> Any:
    """The value of `tree` with `values` for its names (a condition gives a bool).

    With `exact_counts`, a floor or ceiling whose argument is a whole number but for float noise
    takes it as that number, as exact arithmetic on printed figures does: 6.048 PFLOP/s × 16.06 GB
    ÷ (2 × 16 TB/s × 8.03B) is 378, whose ceiling is 378, not the 379 of 378.00000000000006."""
    if isinstance(tree, str):
        return float(values[tree])
    if not isinstance(tree, tuple):
        return tree
    head, *args = tree
    exact = {"exact_counts": exact_counts}
    if head == "pw":
        return next(
            evaluate(value, values, **exact)
            for value, condition in args
            if evaluate(condition, values, **exact)
        )
    if head in _TESTS:
        return _TESTS[head](evaluate(args[0], values, **exact), evaluate(args[1], values, **exact))
    parts = [evaluate(arg, values, **exact) for arg in args]
    if exact_counts and head in ("floor", "ceil"):
        parts = [_whole_if_noise(parts[0])]
    if head == "+":
        return sum(parts)
    if head == "*":
        return math.prod(parts)
    if head == "^":
        return parts[0] ** parts[1]
    functions: dict[str, Callable[..., Any]] = {
        "max": max,
        "min": min,
        "floor": math.floor,
        "ceil": math.ceil,
        "and": lambda *c: all(c),
        "or": lambda *c: any(c),
        "not": lambda c: not c,
        **FUNCTIONS,
    }
    return functions[head](*parts)


def _whole_if_noise(value: float) -> float:
    """`value`, or the whole number it is within float noise of (a few ulps over a dozen steps)."""
    whole = round(value)
    return float(whole) if abs(value - whole) <= 1e-12 * max(abs(value), 1.0) else value


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


@dataclass(frozen=True)
class Reason:
    """A comparison that decided a case: `left op right`, or a clause in words (`words`)."""

    op: str = ""
    left: Tree = None
    right: Tree = None
    words: str = ""


@dataclass
class Simplifier:
    """Simplifies trees for one variant: `fixed` names become numbers (0 and 1 make terms vanish),
    `aliases` names become the tree they stand for, and each piecewise keeps the case it takes,
    recording in `reasons` the comparisons that chose it."""

    values: Mapping[str, Any]
    fixed: Mapping[str, float] = field(default_factory=dict)
    aliases: Mapping[str, Tree] = field(default_factory=dict)
    words: Mapping[str, Mapping[int, str]] = field(default_factory=dict)  # input -> value -> clause
    order: Mapping[str, int] = field(default_factory=dict)  # the order factors are written in
    reasons: list[Reason] = field(default_factory=list)
    # (larger, smaller) pairs the question settles ("the prefill is compute-bound"): a max of
    # both is the larger, never working out the smaller side from values the prompt does not give
    settled: Collection[tuple[str, str]] = ()

    def run(self, tree: Tree) -> Tree:
        if isinstance(tree, str):
            if tree in self.aliases:
                return self.aliases[tree]
            return _number(self.fixed[tree]) if tree in self.fixed else tree
        if not isinstance(tree, tuple):
            return tree
        head, *args = tree
        if head == "pw":
            return self._case(args)
        if head == "^" and isinstance(args[1], str) and self.fixed.get(args[1]) == 1:
            # x^batch keeps its exponent at batch 1: the formula reads the same in every variant
            return ("^", self.run(args[0]), args[1])
        simplified = [self.run(arg) for arg in args]
        if head == "+":
            return _sum(simplified)
        if head == "*":
            return _product(simplified, self.order)
        if head == "^":
            return _power(*simplified)
        if all(_is_number(arg) for arg in simplified):
            return _number(evaluate((head, *simplified), self.values))
        if head in ("max", "min"):
            return self._extreme(head, simplified)
        return (head, *simplified)

    def _extreme(self, head: str, args: list[Tree]) -> Tree:
        """max(0, x) is x wherever x wins: a constant that does not decide the result is dropped."""
        result = evaluate((head, *args), self.values)
        losers = {pair[head == "max"] for pair in self.settled if pair[head != "max"] in args}
        args = [arg for arg in args if arg not in losers]
        kept = [arg for arg in args if not _is_number(arg) or arg == result]
        kept = kept if any(not _is_number(arg) for arg in kept) else args
        return kept[0] if len(kept) == 1 else (head, *kept)

    def _case(self, branches: list[tuple[Tree, Tree]]) -> Tree:
        for index, (value, condition) in enumerate(branches):
            if evaluate(condition, self.values):
                for _, earlier in branches[:index]:
                    self._explain(earlier, holds=False)
                self._explain(condition, holds=True)
                return self.run(value)
        raise ValueError("no case of a piecewise formula holds")

    def _explain(self, condition: Tree, *, holds: bool) -> None:
        """Record why `condition` holds (or fails): for `and`, the parts that decide it."""
        if condition is True:
            return
        head, *args = condition
        if head == "not":
            self._explain(args[0], holds=not holds)
            return
        if head in ("and", "or"):
            decisive = [c for c in args if bool(evaluate(c, self.values)) == holds]
            conjunction = head == "and"
            for part in decisive if holds == conjunction else decisive[:1]:
                self._explain(part, holds=holds)
            return
        left, right = args
        if head == "==" and isinstance(left, str) and left in self.words:
            if holds:  # a case named by an input ("the timed code copies through the host")
                self.reasons.append(Reason(words=self.words[left][int(evaluate(right, self.values))]))
            return
        op = head if holds else _NEGATED[head]
        self.reasons.append(Reason(op, self._compared(left), self._compared(right)))

    def _compared(self, side: Tree) -> Tree:
        """A side of a comparison: a quantity keeps its name even where it is zero, so the reader
        sees it worked ("SLO latency batch 0 < 1", never a bare "0 < 1")."""
        return (
            side if isinstance(side, str) and side in self.fixed and side in self.values else self.run(side)
        )


def _is_number(tree: Tree) -> bool:
    return isinstance(tree, int | float) and not isinstance(tree, bool)


def _number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else float(value)


def _sum(terms: list[Tree]) -> Tree:
    flat: list[Tree] = []
    for term in terms:
        flat += list(term[1:]) if isinstance(term, tuple) and term[0] == "+" else [term]
    constant = sum(term for term in flat if _is_number(term))
    kept = [term for term in flat if not _is_number(term)]
    if constant:  # "x + 1", but "1 − x" where every other term is subtracted
        first = constant > 0 and all(_negated(term)[0] for term in kept)
        kept.insert(0 if first else len(kept), _number(constant))
    return (0 if not kept else kept[0]) if len(kept) <= 1 else ("+", *kept)


def _product(factors: list[Tree], order: Mapping[str, int]) -> Tree:
    flat: list[Tree] = []
    for factor in factors:
        flat += list(factor[1:]) if isinstance(factor, tuple) and factor[0] == "*" else [factor]
    numerator, denominator = 1.0, 1.0
    kept: list[Tree] = []
    for factor in flat:
        if _is_number(factor):
            numerator *= factor
        elif _is_reciprocal_number(factor):
            denominator *= factor[1]
        else:
            kept.append(factor)
    if numerator == 0:
        return 0
    if numerator.is_integer() and denominator.is_integer():
        common = math.gcd(int(numerator), int(denominator))
        numerator, denominator = numerator / common, denominator / common
    kept.sort(key=lambda f: _rank(f, order))
    front = [] if numerator == 1 else [_number(numerator)]
    back = [] if denominator == 1 else [("^", _number(denominator), -1)]
    if not kept and not back:
        return _number(numerator)
    every = [*front, *kept, *back]
    return every[0] if len(every) == 1 else ("*", *every)


def _rank(factor: Tree, order: Mapping[str, int]) -> int:
    """Where a factor goes in a product: names in `order`, powers with their base, brackets last."""
    if isinstance(factor, tuple) and factor[0] == "^":
        return _rank(factor[1], order)
    return order.get(factor, len(order)) if isinstance(factor, str) else len(order) + 1


def _is_reciprocal_number(tree: Tree) -> bool:
    return isinstance(tree, tuple) and tree[0] == "^" and _is_number(tree[1]) and tree[2] == -1


def _power(base: Tree, exponent: Tree) -> Tree:
    if exponent == 1 or base == 1:
        return base
    if _is_number(base) and _is_number(exponent) and exponent >= 0:
        return _number(base**exponent)
    return ("^", base, exponent)


# --- display nodes -------------------------------------------------------------------------------


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
    if _is_number(tree):
        return quantity(format_quantity(abs(tree), "1"))
    head, *args = tree
    if head == "+":
        items = [display(args[0], leaf)]
        for term in args[1:]:
            negative, rest = _negated(term)
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
        if _is_number(args[1]) and args[1] < 0:
            return {"k": "frac", "n": quantity("1"), "d": _power_node(base, -args[1], leaf)}
        return _power_node(base, args[1], leaf)
    if head in ("floor", "ceil", "sqrt"):
        return {"k": head, "c": display(args[0], leaf)}
    return {"k": "fn", "t": "log₂" if head == "log2" else head, "c": [display(arg, leaf) for arg in args]}


def _power_node(base: Node, exponent: Tree, leaf: Callable[[str], Node]) -> Node:
    return base if exponent == 1 else {"k": "pow", "c": base, "e": display(exponent, leaf)}


def _negated(term: Tree) -> tuple[bool, Tree]:
    if _is_number(term) and term < 0:
        return True, -term
    if isinstance(term, tuple) and term[0] == "*" and _is_number(term[1]) and term[1] < 0:
        rest = (term[1] * -1, *term[2:]) if term[1] != -1 else term[2:]
        return True, rest[0] if len(rest) == 1 else ("*", *rest)
    return False, term


def _display_product(factors: list[Tree], leaf: Callable[[str], Node]) -> Node:
    above: list[Tree] = []
    below: list[Tree] = []
    for factor in factors:
        if isinstance(factor, tuple) and factor[0] == "^" and _is_number(factor[2]) and factor[2] < 0:
            below.append(factor[1] if factor[2] == -1 else ("^", factor[1], -factor[2]))
        else:
            above.append(factor)
    if above and above[0] == -1:
        rest = _display_product(above[1:] + [("^", f, -1) for f in below], leaf)
        return row(op(MINUS), rest)
    below.sort(key=lambda f: not _is_number(f))  # 2 × experts per token
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


# --- Unicode text --------------------------------------------------------------------------------

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
