"""Evaluate workloads through the generated formula modules (see codegen.py): plain Python, no sympy."""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from types import ModuleType
from typing import Any, NamedTuple

from perfdrill.engine.errors import UsageError
from perfdrill.engine.model import generated_scalar

INPUTS: Mapping[str, tuple[str, str]] = generated_scalar.INPUTS  # name -> (unit, meaning)


class CountRule(NamedTuple):
    """A whole count defined as the largest (or smallest) `counted` at which `need` ≤ `have`.

    Evaluating `need` and `have` at a count someone gave says why it is not the answer: `fails`
    phrases a count past the boundary and `holds` one short of it, with {value}, {need} and {have}.
    """

    counted: str  # the input counted, e.g. "batch"
    largest: bool
    need: str
    have: str
    fails: str
    holds: str


@dataclass(frozen=True)
class QuantityInfo:
    name: str
    unit: str
    doc: str
    formula: str  # e.g. "flops/system_flops"
    template: str  # e.g. "{flops}/{system_flops}"
    args: tuple[str, ...]
    labels: tuple[str, ...] | None
    exact: bool = False  # a whole count, graded exactly wherever it is the answer
    count_rule: CountRule | None = None


def _module(vector: bool) -> ModuleType:
    if vector:  # numpy only for the callers that evaluate arrays
        from perfdrill.engine.model import generated_numpy

        return generated_numpy
    return generated_scalar


def workload_names() -> list[str]:
    """Every workload's name, sorted."""
    return sorted(generated_scalar.TABLE)


def computed(workload: str) -> tuple[str, ...]:
    """The quantities `workload` computes (an unknown workload computes nothing)."""
    return tuple(generated_scalar.TABLE.get(workload, ()))


@cache
def info(workload: str, name: str) -> QuantityInfo:
    """Unit, meaning and formula text of a computed quantity or an input."""
    module = generated_scalar
    if name in module.TABLE.get(workload, {}):
        unit, doc, formula, template, labels, exact = module.META[f"{name}@{workload}"]
        rule = CountRule(*exact) if isinstance(exact, tuple) else None
        args = module.TABLE[workload][name][1]
        return QuantityInfo(name, unit, doc, formula, template, args, labels, bool(exact), rule)
    if name in module.INPUTS:
        unit, doc = module.INPUTS[name]
        return QuantityInfo(name, unit, doc, name, "{" + name + "}", (), None)
    raise UsageError(f"unknown quantity {name!r} in workload {workload!r}")


def evaluate(
    workload: str, inputs: Mapping[str, Any], wanted: list[str], *, vector: bool = False
) -> dict[str, Any]:
    """Values of `wanted` (and everything they need), computing only what `inputs` does not give.

    Any computed quantity present in `inputs` is an override: `params` given directly wins over
    the architecture. Values are floats in base units, or numpy arrays when `vector` is true.
    """
    values: dict[str, Any] = dict(inputs)
    fill(workload, values, wanted, vector=vector)
    return values


def fill(workload: str, values: dict[str, Any], wanted: list[str], *, vector: bool = False) -> None:
    """Compute `wanted` into `values` in place, reusing whatever `values` already holds."""
    table: dict[str, tuple[Callable[..., Any], tuple[str, ...]]] = _module(vector).TABLE[workload]

    def need(name: str, parent: str | None) -> Any:
        if name in values:
            return values[name]
        if name not in table:
            wanted_by = f" (needed by {parent})" if parent else ""
            raise UsageError(f"missing input {name!r}{wanted_by}")
        function, args = table[name]
        # A list, not a generator: this runs for every quantity of every variant drawn.
        values[name] = function(*[values[arg] if arg in values else need(arg, name) for arg in args])
        return values[name]

    for name in wanted:
        need(name, None)


def dependencies(workload: str, wanted: Iterable[str], known: Collection[str] = ()) -> frozenset[str]:
    """Every name `wanted` rests on in `workload`, the wanted names included.

    A name in `known` counts as given: what it would be computed from is not visited, so a
    parameter count given directly hides the architecture behind it.
    """
    return _dependencies(workload, tuple(wanted), frozenset(known))


@lru_cache(maxsize=4096)  # calc asks the same of every calculation of a subcommand
def _dependencies(workload: str, wanted: tuple[str, ...], known: frozenset[str]) -> frozenset[str]:
    table = generated_scalar.TABLE.get(workload, {})
    reached: set[str] = set()
    pending = list(wanted)
    while pending:
        name = pending.pop()
        if name in reached:
            continue
        reached.add(name)
        if name not in known and name in table:
            pending.extend(table[name][1])
    return frozenset(reached)


@dataclass(frozen=True)
class Available:
    """What `evaluate_available` could compute, and why it left the rest out."""

    values: dict[str, float]  # the inputs, plus each computable wanted quantity and what it rests on
    lacking: dict[str, tuple[str, ...]]  # left out: wanted quantity -> the inputs it lacks, sorted
    undefined: dict[str, str]  # left out: wanted quantity -> "division by zero" or "not finite"


def evaluate_available(workload: str, inputs: Mapping[str, float], wanted: Iterable[str]) -> Available:
    """Compute each wanted quantity whose inputs are all known; report the others instead of raising.

    A quantity that lacks an input is listed in `lacking` with every input it lacks; one whose
    arithmetic has no finite value (a division by zero, an overflow) is listed in `undefined`.
    Neither stops the other quantities. Scalar inputs only; `evaluate` stays all-or-error.
    """
    table: dict[str, tuple[Callable[..., Any], tuple[str, ...]]] = _module(False).TABLE[workload]
    values: dict[str, float] = dict(inputs)
    failed: dict[str, str] = {}  # computed quantity -> why it, or something it rests on, has no value
    blocked: set[str] = set()  # computed quantities that lack an input

    def compute(name: str) -> bool:
        if name in values:
            return True
        if name in failed or name in blocked or name not in table:
            return False
        function, args = table[name]
        for arg in args:
            if not compute(arg):
                if arg in failed:
                    failed[name] = failed[arg]
                else:
                    blocked.add(name)
                return False
        try:
            value = function(*(values[arg] for arg in args))
        except ZeroDivisionError:
            failed[name] = "division by zero"
            return False
        except (OverflowError, ValueError):  # math.floor(inf), math.ceil(nan)
            failed[name] = "not finite"
            return False
        if not math.isfinite(value):
            failed[name] = "not finite"
            return False
        values[name] = value
        return True

    lacking: dict[str, tuple[str, ...]] = {}
    undefined: dict[str, str] = {}
    for name in wanted:
        if compute(name):
            continue
        missing = sorted(
            n for n in dependencies(workload, [name], values) if n not in values and n not in table
        )
        if missing:
            lacking[name] = tuple(missing)
        else:
            undefined[name] = failed.get(name, "not finite")
    return Available(values, lacking, undefined)
