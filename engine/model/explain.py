"""Worked steps: the shortest path from the givens to the asked quantities, as a person writes it.

Each quantity's formula tree (generated_display.py) is simplified for the variant: factors of 1 and
terms that are 0 vanish (a dense model has no MoE term, an untied model no tie term), a piecewise
formula keeps the case it takes and says why, and a quantity that becomes another one's alias
(system FLOP/s of one chip at full MFU is its peak) is not a step at all. What is left is visited
dependencies first, in the order the formulas read them. Labels stand for the quantities, so no
identifier ever reaches a reader. simplifier.py does the simplifying; worked_step.py writes each
line.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from perfdrill.engine.model import generated_display
from perfdrill.engine.model.evaluation import INPUTS, computed
from perfdrill.engine.model.formula_trees import Tree, names_in
from perfdrill.engine.model.simplifier import Reason, Simplifier
from perfdrill.engine.model.worked_step import Step, StepContext, build_step

# Counts whose factor of 1 still teaches something (MQA's one KV head, one input and one output).
_COUNTED_EVEN_AT_ONE = frozenset({"heads", "kv_heads", "inputs", "outputs"})


@dataclass(frozen=True)
class Derivation:
    steps: tuple[Step, ...]
    givens: tuple[str, ...]  # the given names the steps read, in the order they are first read


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
    context = StepContext(
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
        steps.append(build_step(context, name, simplified, simplifier.reasons))

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
    context = StepContext(workload, values, (), (), {}, frozenset(computed(workload)))
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
    context: StepContext, names: Collection[str], settled_cases: Collection[str] = ()
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
