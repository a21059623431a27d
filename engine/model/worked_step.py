"""One line of working, `label = formula = substituted = result` (or a case's `label: reasons, so
phrase`), built from a formula tree already simplified for the variant: the formula in labels, the
figures it reads to as many places as give its printed result, each comparison that decided a case
to as many as show which side is larger.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any

from perfdrill.engine.model.display_nodes import Node, op, quantity, relation, row, text, word
from perfdrill.engine.model.display_nodes import display as display_node
from perfdrill.engine.model.evaluation import info
from perfdrill.engine.model.formula_trees import Tree, evaluate, names_in
from perfdrill.engine.model.numbers import NBSP, format_quantity
from perfdrill.engine.model.printed import MOST_EXTRA_FIGURES, extra_figures, shows_order
from perfdrill.engine.model.quantity_text import GIVEN_DIGITS, display, label_of, phrase
from perfdrill.engine.model.simplifier import Reason


@dataclass(frozen=True)
class Step:
    """One line of working: `label = formula = substituted = result`, or for a case decided by a
    comparison, `label: reasons, so phrase`."""

    name: str
    label: str
    formula: Node | None  # in labels; None where comparisons decide a categorical value
    substituted: Node | None  # with values; None where it would only repeat the result
    result: str
    value: float
    reasons: tuple[Node, ...] = ()
    phrase: str | None = None  # a categorical result in a sentence
    doc: str = ""

    @cached_property
    def shown_formula(self) -> Node | None:
        """The formula, unless it only repeats the result (a case that picks a constant: "best
        draft length = 2, since…", not "= 2 = 2")."""
        return None if self.formula is None or text(self.formula) == self.result else self.formula

    def line(self) -> str:
        """The step as one line of Unicode text."""
        why = ", ".join(text(reason) for reason in self.reasons)
        if self.formula is None:
            said = f"{self.label[0].upper()}{self.label[1:]}: "
            return said + (f"{why}, so {self.phrase}" if why else f"{self.phrase}")
        formula = [] if self.shown_formula is None else [text(self.shown_formula)]
        pieces = [self.label, *formula] if self.label else formula
        if self.substituted is not None:
            pieces.append(text(self.substituted))
        pieces.append(self.result)
        return " = ".join(pieces) + (f", since {why}" if why else "")


@dataclass
class StepContext:
    """What every step of one derivation shares: the variant's values and how each is shown."""

    workload: str
    values: Mapping[str, Any]
    given: Collection[str]
    binary: Collection[str]
    units: Mapping[str, str]
    table: frozenset[str] = field(default_factory=frozenset)
    asked_in: Mapping[str, str] = field(default_factory=dict)  # name -> the unit a part asks it in
    shown: dict[str, str] = field(default_factory=dict)  # each value is formatted once

    def value_text(self, name: str) -> str:
        if name not in self.shown:
            self.shown[name] = self._text(name)
        return self.shown[name]

    def _text(self, name: str, extra: int = 0) -> str:
        given = name not in self.table  # an input; a quantity worked out, even if overridden, gets 3
        return display(
            self.workload,
            name,
            self.values[name],
            # in GiB as its source quotes it, unless an earlier line wrote it in GB (34.36 GB)
            binary=name in self.binary and self.shown.get(name, "iB").endswith("iB"),
            unit=self.units.get(name),
            digits=(GIVEN_DIGITS if given else 3) + extra,
            asked_in=self.asked_in.get(name),
            whole_count=extra == 0,  # 655.6, where the whole 656 would not give the result
        )

    def figure(self, name: str, extra: int = 0) -> str:
        """A value inside arithmetic: a yes/no quantity as the 1 or 0 it counts as, never its words;
        with `extra` figures where the step needs them to recompute its result."""
        if self.categorical(name):
            return format_quantity(float(self.values[name]), "1")
        return self.value_text(name) if extra == 0 else self._text(name, extra)

    def unit_of(self, name: str) -> str:
        """The engine unit a name's value is in."""
        if self.categorical(name):
            return "1"
        return self.units.get(name) or info(self.workload, name).unit

    def categorical(self, name: str) -> bool:
        return name in self.table and info(self.workload, name).labels is not None


def build_step(context: StepContext, name: str, tree: Tree, reasons: list[Reason]) -> Step:
    """The step that works out `name` from its simplified formula `tree`, with the `reasons` that
    chose its case."""
    workload, value = context.workload, context.values[name]
    title = label_of(workload, name)
    shown_reasons = tuple(_reason(context, reason) for reason in reasons)
    meta = info(workload, name)
    if context.categorical(name):
        return Step(
            name,
            title,
            None,
            None,
            context.value_text(name),
            float(value),
            shown_reasons,
            phrase(workload, name, value),
            meta.doc,
        )
    formula = _formula(workload, tree)
    substituted = None
    if names_in(tree) and not isinstance(tree, str):
        substituted = _substituted(context, tree, context.value_text(name), context.unit_of(name))
    return Step(
        name,
        title,
        formula,
        substituted,
        context.value_text(name),
        float(value),
        shown_reasons,
        None,
        meta.doc,
    )


@lru_cache(maxsize=4096)  # the same simplified formula recurs across variants: draw it once
def _formula(workload: str, tree: Tree) -> Node:
    """A formula in labels. Shared between steps, so never modified."""
    return display_node(tree, lambda name: word(label_of(workload, name)))


def _substituted(context: StepContext, tree: Tree, result: str, unit: str) -> Node:
    """`tree` with each name's figure, to as many figures as it takes to give `result` (in `unit`)."""
    names = names_in(tree)
    extra = extra_figures(
        tree, lambda more: {n: context.figure(n, more) for n in names}, context.unit_of, result, unit
    )
    return display_node(tree, lambda n: quantity(context.figure(n, extra)))


def _reason(context: StepContext, reason: Reason) -> Node:
    """A comparison as printed, each side to as few figures as show which side is larger."""
    if reason.words:
        return word(reason.words)
    left, right = reason.left, reason.right
    if reason.op in ("==", "!=") and isinstance(left, str) and context.categorical(left):
        return word(phrase(context.workload, left, context.values[left]) or "")  # "memory-bound"
    unit = _unit_of(context, (reason.op, left, right))
    percent = any(isinstance(side, str) and context.value_text(side).endswith("%") for side in (left, right))
    differ = evaluate(left, context.values) != evaluate(right, context.values)
    for extra in range(MOST_EXTRA_FIGURES + 1):
        sides = [_side(context, side, unit, percent, extra) for side in (left, right)]
        if shows_order(reason.op, sides[0][1], sides[1][1], unit, differ=differ):
            break
    else:  # sides apart only by the engine's float rounding: no figures show it
        sides = [_side(context, side, unit, percent) for side in (left, right)]
    return row(sides[0][0], relation(reason.op), sides[1][0])


def _side(
    context: StepContext, tree: Tree, unit: str, percent: bool = False, extra: int = 0
) -> tuple[Node, str]:
    """One side of a comparison and the figure it ends in: "compute time 373 ns", "k × c = 6 ×
    0.1147 = 0.688" (an expression shows the figures it reads, like a step), or "0"; a threshold
    against a value shown in percent is in percent too ("71.8 % ≥ 30 %", never "≥ 0.3"). With
    `extra`, each figure has that many more (a sign the sides' order needs them)."""
    if isinstance(tree, str):
        shown = context.value_text(tree) if not extra else context.figure(tree, extra)
        return row(word(label_of(context.workload, tree)), quantity(shown)), shown
    if not names_in(tree):
        number = float(evaluate(tree, {}))
        if percent:
            shown = f"{format_quantity(number * 100, '1')}{NBSP}%"
            return quantity(shown), shown
        constant = display_node(tree, word)
        return constant, text(constant)
    labels = display_node(tree, lambda n: word(label_of(context.workload, n)))
    value = format_quantity(float(evaluate(tree, context.values)), unit, digits=3 + extra)
    return row(labels, op("="), _substituted(context, tree, value, unit), op("="), quantity(value)), value


def _unit_of(context: StepContext, comparison: Tree) -> str:
    """The unit both sides of a comparison are in: that of the first name in it with a unit
    (chips per node × memory per chip is memory, like the memory it is compared with)."""
    units = [info(context.workload, name).unit for name in names_in(comparison)]
    return next((unit for unit in units if unit != "1"), "1")
