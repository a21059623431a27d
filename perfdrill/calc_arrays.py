"""perfdrill.calc over arrays: every element of the array options evaluated at once with numpy.

The options are first checked as the command checks them, at the arrays' extremes (and at any
non-whole or NaN element, so a reader refuses it). Where the formula inputs follow the array
options one for one (a batch is the `batch` input), the generated numpy formulas evaluate every
element in one pass; otherwise (a context that is 0 for some elements and not others changes which
formulas apply) each element is calculated alone, which is slower and as exact.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from perfdrill.calc import Result, Results
from perfdrill.engine import UsageError
from perfdrill.engine.model import evaluate, info

Scalar = Callable[[Mapping[str, Any]], Results]


def run_arrays(spec: Any, options: Mapping[str, Any], arrays: Mapping[str, Any], scalar: Scalar) -> Results:
    """`spec` evaluated over `arrays` (option dest -> numbers in base units), broadcast together."""
    try:
        grids = np.broadcast_arrays(*(np.asarray(value, dtype=float) for value in arrays.values()))
    except ValueError as exc:
        raise UsageError(
            f"calc {spec.name}: array options hold numbers in base units that broadcast ({exc})"
        ) from None
    if grids[0].size == 0:
        raise UsageError(f"calc {spec.name}: an array option is empty")
    shape = grids[0].shape
    flat = {dest: grid.ravel() for dest, grid in zip(arrays, grids, strict=True)}
    low = scalar({**options, **{d: v.min() for d, v in flat.items()}})
    high = scalar({**options, **{d: v.max() for d, v in flat.items()}})
    for dest, column in flat.items():  # a reader refuses 2.5 batches or NaN with its own message
        odd = column[np.isnan(column) | (column != np.floor(column))]
        if odd.size:
            scalar({**options, dest: float(odd[0])})
    inputs = _vector_inputs(low, high, flat, shape)
    if inputs is None:
        return _element_by_element(options, flat, shape, scalar)
    first = next(iter(low.results.values()))
    workload = first.workload
    wanted = [result.quantity for result in low.results.values()]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        values = evaluate(workload, inputs, wanted, vector=True)
    results = {
        name: _result(workload, result.quantity, np.broadcast_to(values[result.quantity], shape))
        for name, result in low.results.items()
    }
    echo = _echo(spec, low.inputs, flat, shape)
    return Results(spec.name, echo, results, low.omitted, low.notes, reasons=low.reasons)


def _vector_inputs(
    low: Results, high: Results, flat: Mapping[str, Any], shape: tuple[int, ...]
) -> dict[str, Any] | None:
    """The formula inputs with each array option's inputs as its array, or None where an input does
    not simply equal an option's value (or the two extremes use different formulas)."""
    a, b = low.formula_inputs, high.formula_inputs
    if set(a) != set(b) or low.omitted != high.omitted or set(low.results) != set(high.results):
        return None
    inputs: dict[str, Any] = dict(a)
    for name in a:
        if a[name] == b[name]:
            continue
        source = [v for v in flat.values() if float(v.min()) == a[name] and float(v.max()) == b[name]]
        if len(source) != 1:
            return None
        inputs[name] = source[0].reshape(shape)
    return inputs


def _result(workload: str, quantity: str, values: Any) -> Result:
    meta = info(workload, quantity)
    if meta.labels is None:
        return Result(np.asarray(values, dtype=float), meta.unit, quantity, workload)
    index = np.rint(values).astype(int)
    if meta.labels == ("no", "yes"):
        return Result(index == 1, None, quantity, workload)
    return Result(np.asarray(meta.labels)[index], None, quantity, workload)


def _echo(
    spec: Any, echo: Mapping[str, Any], flat: Mapping[str, Any], shape: tuple[int, ...]
) -> dict[str, Any]:
    shown = dict(echo)
    for option in spec.all_options():
        if option.dest in flat:
            shown[option.echo or option.dest] = flat[option.dest].reshape(shape)
    return shown


def _element_by_element(
    options: Mapping[str, Any], flat: Mapping[str, Any], shape: tuple[int, ...], scalar: Scalar
) -> Results:
    """Each element calculated alone; a result some elements leave out is NaN (a label: None) there."""
    size = next(iter(flat.values())).size
    rows = [scalar({**options, **{d: float(v[i]) for d, v in flat.items()}}) for i in range(size)]
    names = list(dict.fromkeys(name for row in rows for name in row.results))
    results: dict[str, Result] = {}
    notes = list(dict.fromkeys(note for row in rows for note in row.notes))
    for name in names:
        some = next(row.results[name] for row in rows if name in row.results)
        blank = None if some.unit is None else float("nan")
        column = [row.results[name].value if name in row.results else blank for row in rows]
        results[name] = Result(np.asarray(column).reshape(shape), some.unit, some.quantity, some.workload)
        lacking = [row for row in rows if name not in row.results]
        if lacking:
            notes.append(f"{name}: {blank} where it is {lacking[0].reasons[name]}")
    first = rows[0]
    echo = dict(first.inputs)
    for key in first.inputs:
        column = [row.inputs[key] for row in rows]
        if any(value != column[0] for value in column):
            echo[key] = np.asarray(column).reshape(shape)
    omitted = {n: ways for n, ways in first.omitted.items() if n not in results}
    return Results(first.subcommand, echo, results, omitted, notes, reasons=first.reasons)
