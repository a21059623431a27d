"""Worked explanations generated from the compiled formulas: formula, substitution, result."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from perfdrill.engine.model.evaluation import info
from perfdrill.engine.model.units import format_quantity


@dataclass(frozen=True)
class Step:
    name: str
    formula: str  # "compute_time = flops/system_flops"
    substituted: str  # "(1.6 TFLOP)/(989 TFLOP/s)"
    result: str  # "1.62 ms"
    doc: str


def label(workload: str, name: str, value: Any) -> str | None:
    """The word for a yes/no quantity's value ("compute", "memory", "yes"…), or None for a number."""
    labels = info(workload, name).labels
    return None if labels is None else labels[round(float(value))]


def display(workload: str, name: str, value: Any) -> str:
    """A value as a person reads it: units with prefixes, or the label of a yes/no quantity."""
    word = label(workload, name, value)
    return word if word is not None else format_quantity(float(value), info(workload, name).unit)


def _operand(workload: str, name: str, value: Any) -> str:
    text = display(workload, name, value)
    return f"({text})" if " " in text else text


def step(workload: str, name: str, values: Mapping[str, Any]) -> Step:
    meta = info(workload, name)
    if meta.labels is not None:  # a piecewise rule reads better with the compared values shown
        substituted = ", ".join(f"{arg} = {display(workload, arg, values[arg])}" for arg in meta.args)
    else:
        substituted = meta.template
        for arg in meta.args:
            substituted = substituted.replace("{" + arg + "}", _operand(workload, arg, values[arg]))
    return Step(
        name, f"{name} = {meta.formula}", substituted, display(workload, name, values[name]), meta.doc
    )


def derivation(
    workload: str, names: list[str], values: Mapping[str, Any], given: Collection[str] = ()
) -> list[Step]:
    """Steps for `names` and every computed quantity they rest on, dependencies first.

    Names in `given` were supplied directly (inputs or overrides) and are not derived.
    """
    ordered: list[str] = []

    def visit(name: str) -> None:
        if name in ordered or name not in values or name in given:
            return
        meta = info(workload, name)
        if not meta.args:  # an input, or an override given directly
            return
        for arg in meta.args:
            visit(arg)
        ordered.append(name)

    for name in names:
        visit(name)
    return [step(workload, name, values) for name in ordered]
