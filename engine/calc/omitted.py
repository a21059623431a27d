"""Which options would give a result that could not be computed, in a user's words.

The engine says which formula inputs a quantity lacks; people type options. Walking the formula's
dependencies, each unknown name can come from the options that supply it (`--memory`, or `--chip`
for every chip fact) or from its own dependencies together. The ways that remain are minimal sets
of options, smallest first: "give --kv-bytes-per-token, --model or --layers + --kv-heads + --head-dim".
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from perfdrill.engine import UsageError
from perfdrill.engine.model import Available, computed, dependencies, evaluate_available, info

Way = frozenset[str]
MAX_WAYS = 4  # enough to show each kind of answer; more only lists larger sets of flags

# Why a quantity has no value where its formula divides by zero for the inputs given, in a
# reader's words; one not listed says "undefined (division by zero)".
NEVER_REACHED = {
    "compute_bound_m": "never compute-bound: however large the batch, a row's 2·k·n FLOPs never outgrow "
    "the ridge point × its activation bytes, a·(k + n)",
}


def suppliers(options: Iterable[tuple[str, Sequence[str]]]) -> dict[str, list[str]]:
    """Formula name -> the flags that supply it, from (flag, names it supplies) pairs."""
    table: dict[str, list[str]] = {}
    for flag, names in options:
        for name in names:
            table.setdefault(name, []).append(flag)
    return table


def ways(
    workload: str,
    name: str,
    known: Collection[str],
    supplied_by: Mapping[str, Sequence[str]],
    order: Sequence[str],
) -> list[tuple[str, ...]]:
    """The smallest sets of flags that would make `name` computable, each in `order`, at most MAX_WAYS."""
    formulas = set(computed(workload))
    rank = {flag: index for index, flag in enumerate(order)}
    memo: dict[str, set[Way]] = {}

    def minimal(candidates: set[Way]) -> set[Way]:
        ordered = sorted(candidates, key=lambda way: (len(way), sorted(rank.get(f, len(rank)) for f in way)))
        kept: list[Way] = []
        for way in ordered:
            if not any(smaller <= way for smaller in kept):
                kept.append(way)
        return set(kept[: MAX_WAYS * 2])  # a margin, so products keep their best combinations

    def options_for(item: str) -> set[Way]:
        if item in known:
            return {frozenset()}
        if item not in memo:
            found = {frozenset([flag]) for flag in supplied_by.get(item, ())}
            if item in formulas:
                together: set[Way] = {frozenset()}
                for arg in info(workload, item).args:
                    together = minimal({a | b for a in together for b in options_for(arg)})
                found |= together
            memo[item] = minimal(found)
        return memo[item]

    best = sorted(options_for(name), key=lambda way: (len(way), sorted(rank.get(f, len(rank)) for f in way)))
    return [tuple(sorted(way, key=lambda f: rank.get(f, len(rank)))) for way in best[:MAX_WAYS]]


def phrase(options: Sequence[tuple[str, ...]]) -> str:
    """ "give --memory or --chip"; "give --kv-bytes-per-token, --model or --layers + --head-dim"."""
    if not options:
        return "no option gives it"
    parts = [" + ".join(way) for way in options]
    return "give " + (parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " or " + parts[-1])


def nothing_computed(omitted: Mapping[str, list[str]], reasons: Mapping[str, str]) -> UsageError:
    """The error when no result can be computed: the easiest few ways to get one."""
    easiest = sorted(lines(omitted, reasons), key=len)
    more = f"; and {len(easiest) - 3} more" if len(easiest) > 3 else ""
    return UsageError("nothing can be computed from these options; " + "; ".join(easiest[:3]) + more)


def lines(omitted: Mapping[str, list[str]], reasons: Mapping[str, str]) -> list[str]:
    """One line per distinct reason, naming the results it leaves out, in the contract's order."""
    grouped: dict[str, list[str]] = {}
    for result in omitted:
        grouped.setdefault(reasons[result], []).append(result)
    return [f"{', '.join(results)}: {reason}" for reason, results in grouped.items()]


class Hints:
    """Why each result of one calculation was left out, in options a person can give."""

    def __init__(
        self,
        workload: str,
        known: Mapping[str, Any],
        supplied_by: Mapping[str, Sequence[str]],
        order: Sequence[str],
        zero_inputs: Mapping[str, str],
    ) -> None:
        self.workload = workload
        self.known = known
        self.supplied_by = supplied_by
        self.order = order
        self.zero_inputs = zero_inputs  # input given as 0 -> its flag

    def ways(self, quantity: str) -> list[tuple[str, ...]]:
        return ways(self.workload, quantity, self.known, self.supplied_by, self.order)

    def omission(self, result: str, quantity: str, available: Available) -> tuple[list[str], str]:
        """(the ways to get it, each as flags joined by spaces; the reason as a phrase).

        A result that a zero input leaves undefined (max_batch at --context 0) says so, even when
        other inputs are missing too, since giving them would not help. A result with no finite
        value (an overflow) is not an omission but an error.
        """
        if quantity in available.lacking:  # would the missing inputs help? try them as 1
            probe = {**self.known, **dict.fromkeys(available.lacking[quantity], 1.0)}
            if (
                evaluate_available(self.workload, probe, [quantity]).undefined.get(quantity)
                != "division by zero"
            ):
                found = self.ways(quantity)
                return [" ".join(way) for way in found], phrase(found)
        elif available.undefined.get(quantity) != "division by zero":
            raise UsageError(f"{result} is too large or too small to represent: check the magnitudes given")
        rests_on = dependencies(self.workload, [quantity])
        flags = [flag for name, flag in self.zero_inputs.items() if name in rests_on]
        if flags:
            return flags, f"undefined when {' and '.join(flags)} is 0"
        return flags, NEVER_REACHED.get(quantity, "undefined (division by zero)")
