"""Worked steps: the shortest path from the givens to the asked quantities, as a person writes it.

Each quantity's formula tree (generated_display.py) is simplified for the variant: factors of 1 and
terms that are 0 vanish (a dense model has no MoE term, an untied model no tie term), a piecewise
formula keeps the case it takes and says why, and a quantity that becomes another one's alias
(system FLOP/s of one chip at full MFU is its peak) is not a step at all. What is left is visited
dependencies first, in the order the formulas read them. Labels stand for the quantities, so no
identifier ever reaches a reader.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any

from perfdrill.engine.model import generated_display
from perfdrill.engine.model.evaluation import INPUTS, computed, info
from perfdrill.engine.model.maths import (
    Node,
    Reason,
    Simplifier,
    Tree,
    evaluate,
    names_in,
    op,
    quantity,
    relation,
    row,
    text,
    word,
)
from perfdrill.engine.model.maths import (
    display as display_node,
)
from perfdrill.engine.model.numbers import NBSP, format_base_in, format_quantity
from perfdrill.engine.model.printed import MOST_EXTRA_FIGURES, extra_figures, shows_order
from perfdrill.engine.model.spoken import spoken

# Counts whose factor of 1 still teaches something (MQA's one KV head, one input and one output).
_COUNTED_EVEN_AT_ONE = frozenset({"heads", "kv_heads", "inputs", "outputs"})


def label_of(workload: str, name: str) -> str:
    """What a person calls a quantity ("KV cache per token"); any other name reads with spaces."""
    entry = generated_display.QUANTITIES.get(f"{name}@{workload}")
    if entry is not None:
        return str(entry[0])
    return str(generated_display.INPUT_LABELS.get(name, spoken(name)))


def is_whole(workload: str, name: str) -> bool:
    """True for a count (batch, chips, the largest batch): never shown with a fraction."""
    entry = generated_display.QUANTITIES.get(f"{name}@{workload}")
    return bool(entry[2]) if entry is not None else name in generated_display.WHOLE_INPUTS


def label(workload: str, name: str, value: Any) -> str | None:
    """The word for a yes/no quantity's value ("compute", "memory", "yes"…), or None for a number."""
    labels = info(workload, name).labels
    return None if labels is None else labels[round(float(value))]


def phrase(workload: str, name: str, value: Any) -> str | None:
    """A categorical value in a sentence ("memory-bound", "it fits"), or None for a number."""
    word_ = label(workload, name, value)
    entry = generated_display.QUANTITIES.get(f"{name}@{workload}")
    phrases = entry[1] if entry is not None else None
    return phrases[round(float(value))] if phrases else word_


def display(
    workload: str,
    name: str,
    value: Any,
    *,
    binary: bool = False,
    unit: str | None = None,
    digits: int = 3,
    asked_in: str | None = None,
    whole_count: bool = True,
) -> str:
    """A value as a person reads it: units with prefixes, or the label of a yes/no quantity.

    `unit` serves names the engine does not know (a template's own derived value); `asked_in` is
    the unit a part asks this value in ("GB", "ms"): it is then written in that unit, as the key is.
    A count is shown whole unless `whole_count` is False (a step that needs its fraction).
    """
    if asked_in is not None and (unit is not None or label(workload, name, value) is None):
        return format_base_in(float(value), asked_in, digits=digits)
    if unit is None:
        word_ = label(workload, name, value)
        if word_ is not None:
            return word_
        unit = info(workload, name).unit
    whole = whole_count and is_whole(workload, name)
    return format_quantity(float(value), unit, digits=digits, binary=binary, whole_number=whole)


# Givens are shown with a figure more than results: a spec's 1.555 TB/s is not rounded to 1.56.
GIVEN_DIGITS = 4


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


@dataclass(frozen=True)
class Derivation:
    steps: tuple[Step, ...]
    givens: tuple[str, ...]  # the given names the steps read, in the order they are first read


@dataclass
class _Context:
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


def derivation(
    workload: str,
    names: list[str],
    values: Mapping[str, Any],
    given: Collection[str] = (),
    *,
    binary: Collection[str] = (),
    units: Mapping[str, str] | None = None,
    asked: Collection[str] | None = None,
    shown: Mapping[str, str] | None = None,
    asked_in: Mapping[str, str] | None = None,
    settled: Collection[tuple[str, str]] = (),
) -> Derivation:
    """Steps for `names` and every computed quantity they rest on, dependencies first.

    Names in `given` were supplied directly (inputs or overrides) and are not derived; `binary`
    names are shown in GiB (their source is); `units` gives the unit of names the engine lacks.
    A name in `asked` (all of `names` unless given) is always a step, even where it only renames
    another quantity; any other such name is read as the quantity it renames. `shown` holds the
    text earlier lines (or the key) gave a value: every step writes that value so again;
    `asked_in` the unit a part asks a name in, which every line showing it keeps; `settled` the
    (larger, smaller) pairs the question settles, so a max of both is worked as the larger.
    """
    context = _Context(
        workload,
        values,
        given,
        binary,
        units or {},
        frozenset(computed(workload)),
        asked_in=_renames_asked(workload, values, asked_in or {}),
    )
    context.shown.update(shown or {})
    asked = names if asked is None else asked
    fixed = _vanishing(context, asked, settled_cases=set(names))
    words = generated_display.VALUE_WORDS
    aliases: dict[str, Tree] = {}
    steps: list[Step] = []
    givens: list[str] = []
    visited: set[str] = set()

    def visit(name: str, compared: bool = False) -> None:
        if name in visited:
            return
        visited.add(name)
        if name in fixed and not compared:  # kept only by a formula (an exponent of 1): a given;
            # a vanishing value a comparison reads (a zero compared) is still worked
            if name in values:
                givens.append(name)
            return
        if name not in context.table or name in given:
            if name in values:
                givens.append(name)
            return
        tree = generated_display.QUANTITIES[f"{name}@{workload}"][3]
        order = generated_display.FACTOR_ORDER
        simplifier = Simplifier(values, fixed, {}, words, order, settled=settled)
        simplified = simplifier.run(tree)
        in_reasons = _reason_names(simplifier.reasons)
        needs = names_in(simplified) + in_reasons
        for needed in needs:
            visit(needed, needed in in_reasons)
        if any(needed in aliases for needed in needs):  # again, reading each alias as what it renames
            simplifier = Simplifier(values, fixed, aliases, words, order, settled=settled)
            simplified = simplifier.run(tree)
        if isinstance(simplified, str) and name not in asked and not context.categorical(name):
            aliases[name] = simplified  # one chip at full MFU: system FLOP/s is the peak itself
            return
        steps.append(_step(context, name, simplified, simplifier.reasons))

    for name in names:
        visit(name)
    return Derivation(tuple(steps), tuple(givens))


def _renames_asked(workload: str, values: Mapping[str, Any], asked_in: Mapping[str, str]) -> dict[str, str]:
    """`asked_in`, and for a name asked that only renames another (TTFT is the prefill's runtime),
    that one in the same unit: "prefill runtime = 1,360 ms", then "TTFT = 1,360 ms"."""
    found = dict(asked_in)
    for name, unit in asked_in.items():
        if name in values and name in computed(workload):
            found.setdefault(renamed(workload, name, values), unit)
    return found


def renamed(workload: str, name: str, values: Mapping[str, Any]) -> str:
    """The quantity `name` only renames here (one chip at full MFU: system FLOP/s is peak FLOP/s),
    followed to the end; `name` itself where it is worked out from more than one thing."""
    context = _Context(workload, values, (), (), {}, frozenset(computed(workload)))
    fixed = _vanishing(context, ())
    seen = {name}
    while name in context.table and not context.categorical(name):
        tree = Simplifier(values, fixed, {}, generated_display.VALUE_WORDS).run(
            generated_display.QUANTITIES[f"{name}@{workload}"][3]
        )
        if not isinstance(tree, str) or tree in seen:
            break
        name = tree
        seen.add(name)
    return name


def _vanishing(
    context: _Context, names: Collection[str], settled_cases: Collection[str] = ()
) -> dict[str, float]:
    """Names whose value makes a term vanish here: zeros, dimensionless inputs equal to one, and a
    yes/no another step reads (weights fit L2 = 1), which reads the case the yes/no settled, not
    "1.18 MB × (1 − 1)"; a yes/no being worked itself (in `settled_cases`) is never one."""
    fixed: dict[str, float] = {}
    for name, value in context.values.items():
        if name in names or not isinstance(value, int | float):
            continue
        if context.categorical(name):
            if value in (0, 1) and name in context.table and name not in settled_cases:
                fixed[name] = float(value)
            continue
        one = value == 1 and name not in context.table and name not in _COUNTED_EVEN_AT_ONE
        if value == 0 or (one and name in generated_display.INPUT_LABELS and _unitless(name)):
            fixed[name] = float(value)
    return fixed


def _unitless(name: str) -> bool:
    return name in INPUTS and INPUTS[name][0] == "1"


def _reason_names(reasons: list[Reason]) -> list[str]:
    return [
        n for reason in reasons if not reason.words for n in names_in((reason.op, reason.left, reason.right))
    ]


def _step(context: _Context, name: str, tree: Tree, reasons: list[Reason]) -> Step:
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


def _substituted(context: _Context, tree: Tree, result: str, unit: str) -> Node:
    """`tree` with each name's figure, to as many figures as it takes to give `result` (in `unit`)."""
    names = names_in(tree)
    extra = extra_figures(
        tree, lambda more: {n: context.figure(n, more) for n in names}, context.unit_of, result, unit
    )
    return display_node(tree, lambda n: quantity(context.figure(n, extra)))


def _reason(context: _Context, reason: Reason) -> Node:
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
    context: _Context, tree: Tree, unit: str, percent: bool = False, extra: int = 0
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


def _unit_of(context: _Context, comparison: Tree) -> str:
    """The unit both sides of a comparison are in: that of the first name in it with a unit
    (chips per node × memory per chip is memory, like the memory it is compared with)."""
    units = [info(context.workload, name).unit for name in names_in(comparison)]
    return next((unit for unit in units if unit != "1"), "1")
