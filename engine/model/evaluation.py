"""Evaluate workloads through the generated formula modules (see codegen.py): plain Python, no sympy."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
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

    def need(name: str, chain: tuple[str, ...]) -> Any:
        if name in values:
            return values[name]
        if name not in table:
            wanted_by = f" (needed by {chain[-1]})" if chain else ""
            raise UsageError(f"missing input {name!r}{wanted_by}")
        function, args = table[name]
        values[name] = function(*(need(arg, (*chain, name)) for arg in args))
        return values[name]

    for name in wanted:
        need(name, ())
