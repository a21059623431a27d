"""`perfdrill calc sweep`: decode across batch sizes, and the batch that maximises throughput.

Columns whose inputs are missing (`fits` without a memory size) are left out of every row and
listed with the options that would give them, as in the other calc subcommands.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from perfdrill.calc import SCHEMA
from perfdrill.cli import terminal
from perfdrill.cli.values import print_json
from perfdrill.engine.calc.omitted import lines, nothing_computed
from perfdrill.engine.calc.results import json_value
from perfdrill.engine.model import display, evaluate_available

SWEEP_COLUMNS = [
    "compute_time",
    "memory_time",
    "runtime",
    "bound",
    "memory_required",
    "fits",
    "tokens_per_second",
]
HEADERS = {
    "compute_time": "compute",
    "memory_time": "memory",
    "runtime": "runtime",
    "bound": "bound",
    "memory_required": "needs",
    "fits": "fits",
    "tokens_per_second": "tokens/s",
}
EXACT = ["optimal_batch", "optimal_is_knee"]


def optimal_row(rows: list[dict[str, Any]]) -> int | None:
    """The seeds' rule over the swept batches: the smallest compute-bound batch that fits,
    else the largest batch that fits, else None."""
    fitting = [row for row in rows if row["fits"] == 1]
    compute_bound = [row for row in fitting if row["bound"] == 1]
    if compute_bound:
        return int(min(row["batch"] for row in compute_bound))
    return int(max(row["batch"] for row in fitting)) if fitting else None


def run(args: argparse.Namespace, prepare: Callable[[list[str]], Any]) -> int:
    calculation = prepare([*SWEEP_COLUMNS, *EXACT])
    workload, inputs, hints = calculation.workload, calculation.inputs, calculation.hints
    batches: list[int] = calculation.echo["batches"]
    omitted: dict[str, list[str]] = {}
    reasons: dict[str, str] = {}
    rows = []
    columns = list(SWEEP_COLUMNS)
    for batch in batches:
        available = evaluate_available(workload, {**inputs, "batch": batch}, SWEEP_COLUMNS)
        for column in [c for c in columns if c not in available.values]:
            omitted[column], reasons[column] = hints.omission(column, column, available)
            columns.remove(column)
        rows.append({"batch": batch, **available.values})
    if not columns:
        raise nothing_computed(omitted, reasons)
    best = None
    if {"fits", "bound"} <= set(columns):
        best = optimal_row(rows)
    else:
        omitted["optimal_batch"] = omitted.get("fits") or omitted.get("bound") or []
        reasons["optimal_batch"] = reasons.get("fits") or reasons.get("bound") or ""
    exact = evaluate_available(workload, inputs, EXACT)
    if not set(EXACT) <= set(exact.values):
        omitted["exact_optimal_batch"], reasons["exact_optimal_batch"] = hints.omission(
            "exact_optimal_batch", "optimal_batch", exact
        )
    if args.json:
        results: dict[str, Any] = {
            "rows": [
                {"batch": row["batch"], **{c: json_value(workload, c, row[c])["value"] for c in columns}}
                for row in rows
            ]
        }
        if "optimal_batch" not in omitted:
            results["optimal_batch"] = best
        if "exact_optimal_batch" not in omitted:
            results["exact_optimal_batch"] = int(exact.values["optimal_batch"])
        document = {"inputs": calculation.echo, "results": results, "omitted": omitted}
        print_json({"schema": SCHEMA, **document, "notes": calculation.notes})
        return 0
    _print_table(workload, rows, columns, best)
    if "exact_optimal_batch" not in omitted:
        optimum = exact.values["optimal_batch"]
        case = display(workload, "optimal_is_knee", exact.values["optimal_is_knee"])
        print(f"exact optimum: {int(optimum)} ({case})")
    for line in lines(omitted, reasons):
        print(line)
    return 0


def _print_table(workload: str, rows: list[dict[str, Any]], columns: list[str], best: int | None) -> None:
    from rich.table import Table

    table = Table(title="decode sweep", header_style="bold")
    for header in ("batch", *(HEADERS[c] for c in columns)):
        table.add_column(header, justify="right")
    for row in rows:
        style = "bold green" if row["batch"] == best else None
        cells = [display(workload, c, row[c]).replace(" tokens/s", "") for c in columns]
        table.add_row(str(row["batch"]), *cells, style=style)
    console = terminal.console(highlight=False)
    console.print(table)
    if "fits" in columns and "bound" in columns:
        console.print(f"optimal batch among these: {best if best is not None else 'none fits'}")
