"""Formula trees fit for one variant: `Simplifier` puts in the values that make terms vanish (0
and 1), keeps only the case a piecewise formula takes (and says why, as `Reason`s), and folds what
is left, so a dense model's parameter count has no MoE term.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from perfdrill.engine.model.formula_trees import Tree, evaluate, is_number, negated

_NEGATED = {">=": "<", ">": "<=", "<=": ">", "<": ">=", "==": "!=", "!=": "=="}


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
        if all(is_number(arg) for arg in simplified):
            return _number(evaluate((head, *simplified), self.values))
        if head in ("max", "min"):
            return self._extreme(head, simplified)
        return (head, *simplified)

    def _extreme(self, head: str, args: list[Tree]) -> Tree:
        """max(0, x) is x wherever x wins: a constant that does not decide the result is dropped."""
        result = evaluate((head, *args), self.values)
        losers = {pair[head == "max"] for pair in self.settled if pair[head != "max"] in args}
        args = [arg for arg in args if arg not in losers]
        kept = [arg for arg in args if not is_number(arg) or arg == result]
        kept = kept if any(not is_number(arg) for arg in kept) else args
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


def _number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else float(value)


def _sum(terms: list[Tree]) -> Tree:
    flat: list[Tree] = []
    for term in terms:
        flat += list(term[1:]) if isinstance(term, tuple) and term[0] == "+" else [term]
    constant = sum(term for term in flat if is_number(term))
    kept = [term for term in flat if not is_number(term)]
    if constant:  # "x + 1", but "1 − x" where every other term is subtracted
        first = constant > 0 and all(negated(term)[0] for term in kept)
        kept.insert(0 if first else len(kept), _number(constant))
    return (0 if not kept else kept[0]) if len(kept) <= 1 else ("+", *kept)


def _product(factors: list[Tree], order: Mapping[str, int]) -> Tree:
    flat: list[Tree] = []
    for factor in factors:
        flat += list(factor[1:]) if isinstance(factor, tuple) and factor[0] == "*" else [factor]
    numerator, denominator = 1.0, 1.0
    kept: list[Tree] = []
    for factor in flat:
        if is_number(factor):
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
    return isinstance(tree, tuple) and tree[0] == "^" and is_number(tree[1]) and tree[2] == -1


def _power(base: Tree, exponent: Tree) -> Tree:
    if exponent == 1 or base == 1:
        return base
    if is_number(base) and is_number(exponent) and exponent >= 0:
        return _number(base**exponent)
    return ("^", base, exponent)
