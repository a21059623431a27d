"""Whole-number answers ("the largest batch that fits", "the fewest chips") are graded exactly.

A numeric part is exact when its answer is a floor or ceiling, or one engine quantity flagged
`exact` in engine/model (max_batch, knee_batch, optimal_batch, min_chips…). Where that quantity
carries a CountRule, a wrong count is explained by evaluating the rule at the count given, so
"372" is told that 372 needs more memory than there is rather than only "too high".
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass

from perfdrill.engine.model.evaluation import CountRule, computed, info
from perfdrill.engine.model.units import format_quantity
from perfdrill.engine.problems.templates import Part, Template
from perfdrill.engine.problems.variants import Variant

EXACT = ("absolute", 0.0)  # the tolerance of an exact part: its JSON export says so too
# A count whose rule compares two modelled times (a knee: compute time reaches memory time) is graded
# exactly only where its boundary is clear: the count meets the rule, and the next one misses it, each
# by at least 1%. Nearer than that (a decode knee near batch 500 moves 0.2% a batch), inputs shown to 3
# figures can put a careful answer one count off while the throughput differs by a hair, so one count
# either way is accepted (ON_THE_EDGE), and the key and the feedback say so. A limit (the memory a
# batch needs against what there is) stays exact: one sequence past it does not fit, however close.
BOUNDARY_MARGIN = 0.01
ON_THE_EDGE = ("absolute", 1.0)
EDGE_NOTE = "(one either way accepted: the boundary is within 1%)"
_ROUNDING = ("floor", "ceil")
_MAX_DIGITS = 9


@dataclass(frozen=True, eq=False)
class ExactCount:
    """How to explain a wrong answer to one exact part of one variant."""

    variant: Variant
    scope: str | None
    rule: CountRule | None

    def why_not(self, value: float, answer: float) -> str:
        """One sentence saying why `value` is not the count `answer`, never naming the answer."""
        rule = self.rule
        if abs(value - round(value)) > 1e-9 * max(1.0, abs(value)):  # 1.1k is 1,100.0000000000002
            rounding = "" if rule is None else f": round {'down' if rule.largest else 'up'}"
            return f"{value:g} is not a whole number{rounding}"
        value = round(value)
        reason = self._evaluated(rule, value, answer) if rule is not None else None
        return reason or ("too high" if value > answer else "too low")

    def tolerance(self, answer: float) -> tuple[str, float]:
        """EXACT, or ON_THE_EDGE where the count's boundary lies within BOUNDARY_MARGIN of it."""
        margin = self.boundary_margin(answer)
        return ON_THE_EDGE if margin is not None and margin < BOUNDARY_MARGIN else EXACT

    def boundary_margin(self, answer: float) -> float | None:
        """How clearly `answer` meets its rule of two times and the next count misses it, as the
        smaller of the two relative gaps (have/need − 1 at the answer, need/have − 1 one count past
        it); None where the count has no such rule."""
        rule = self.rule
        if rule is None or (
            self.scope is not None and rule.counted in self.variant.template.scenarios[self.scope]
        ):
            return None
        if info(self.variant.template.workload, rule.need).unit != "s":
            return None  # a limit, not a crossover of two times: graded exactly
        sides = []
        for count in (answer, answer + 1 if rule.largest else answer - 1):
            probe = Variant(
                self.variant.template, self.variant.params, {**self.variant.inputs, rule.counted: count}
            )
            try:
                sides.append(
                    (float(probe.lookup(rule.need, self.scope)), float(probe.lookup(rule.have, self.scope)))
                )
            except (ArithmeticError, ValueError):
                return None
        (need, have), (next_need, next_have) = sides
        if min(need, have, next_need, next_have) <= 0:
            return None  # a count of 0 or a side of 0: no ratio to speak of
        return min(have / need - 1, next_need / next_have - 1)

    def _evaluated(self, rule: CountRule, value: float, answer: float) -> str | None:
        """The rule's two sides at `value`, or None where they cannot say why (see below)."""
        if self.scope is not None and rule.counted in self.variant.template.scenarios[self.scope]:
            return None  # the scenario fixes the count itself, so it cannot be varied
        variant = self.variant
        probe = Variant(variant.template, variant.params, {**variant.inputs, rule.counted: value})
        try:
            need = float(probe.lookup(rule.need, self.scope))
            have = float(probe.lookup(rule.have, self.scope))
        except (ArithmeticError, ValueError):
            return None
        holds = need <= have
        past_the_boundary = value > answer if rule.largest else value < answer
        if holds == past_the_boundary:
            return None  # floating-point rounding exactly at the boundary: say nothing wrong
        shown_need, shown_have = _distinct(variant.template.workload, rule, need, have)
        phrase = rule.holds if holds else rule.fails
        return phrase.format(value=f"{int(value):,}", need=shown_need, have=shown_have)


def _distinct(workload: str, rule: CountRule, need: float, have: float) -> tuple[str, str]:
    """Both values with as few digits as tell them apart ("24.1 GB" and "24 GB", not "24 GB" twice)."""
    need_unit, have_unit = info(workload, rule.need).unit, info(workload, rule.have).unit
    for digits in range(3, _MAX_DIGITS + 1):
        shown = (
            format_quantity(need, need_unit, digits=digits),
            format_quantity(have, have_unit, digits=digits),
        )
        if shown[0] != shown[1] or not math.isfinite(need - have):
            break
    return shown


def exact_count(template: Template, part: Part, variant: Variant, factor: float) -> ExactCount | None:
    """The exact-grading of `part` in this variant, or None when the part keeps its tolerance."""
    answer = part.answer
    if answer is None or factor != 1:
        return None
    tree = answer.tree
    if isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name) and tree.func.id in _ROUNDING:
        return ExactCount(variant, None, None)
    if not isinstance(tree, ast.Name | ast.Attribute):
        return None  # an expression around a count (max_batch * context) is no longer one
    ((scope, name),) = answer.names
    if name not in computed(template.workload):
        return None
    quantity = info(template.workload, name)
    if not quantity.exact:
        return None
    return ExactCount(variant, scope, quantity.count_rule or _chosen_rule(template, variant, name, scope))


def _chosen_rule(template: Template, variant: Variant, name: str, scope: str | None) -> CountRule | None:
    """The rule of the count that a choice between counts chose here (optimal_batch: knee or largest fit)."""
    value = variant.lookup(name, scope)
    for arg in info(template.workload, name).args:
        rule = info(template.workload, arg).count_rule
        if rule is not None and variant.lookup(arg, scope) == value:
            return rule
    return None
