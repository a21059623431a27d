"""`perfdrill calc sweep`: decode across batch sizes, and the batch that maximises throughput."""

from __future__ import annotations

import argparse
import json
from typing import Any

from perfdrill.cli.values import json_value
from perfdrill.engine.model import display, evaluate

SWEEP_COLUMNS = [
    "compute_time",
    "memory_time",
    "runtime",
    "bound",
    "memory_required",
    "fits",
    "tokens_per_second",
]


def sweep_rows(workload: str, inputs: dict[str, Any], batches: list[int]) -> list[dict[str, Any]]:
    rows = []
    for batch in batches:
        values = evaluate(workload, {**inputs, "batch": batch}, SWEEP_COLUMNS)
        rows.append({"batch": batch, **{name: values[name] for name in SWEEP_COLUMNS}})
    return rows


def optimal_row(rows: list[dict[str, Any]]) -> int | None:
    """The seeds' rule over the swept batches: the smallest compute-bound batch that fits,
    else the largest batch that fits, else None."""
    fitting = [row for row in rows if row["fits"] == 1]
    compute_bound = [row for row in fitting if row["bound"] == 1]
    if compute_bound:
        return int(min(row["batch"] for row in compute_bound))
    return int(max(row["batch"] for row in fitting)) if fitting else None


def run_sweep(args: argparse.Namespace, workload: str, inputs: dict[str, Any], echo: dict[str, Any]) -> int:
    rows = sweep_rows(workload, inputs, args.batches)
    best = optimal_row(rows)
    knee = evaluate(workload, {**inputs, "batch": 1}, ["knee_batch", "optimal_batch", "optimal_is_knee"])
    if args.json:
        results = {
            "rows": [
                {
                    "batch": row["batch"],
                    **{c: json_value(workload, c, row[c])["value"] for c in SWEEP_COLUMNS},
                }
                for row in rows
            ],
            "optimal_batch": best,
            "exact_optimal_batch": int(knee["optimal_batch"]),
        }
        print(json.dumps({"inputs": {**echo, "batches": args.batches}, "results": results}, indent=2))
        return 0
    from rich.console import Console
    from rich.table import Table

    table = Table(title="decode sweep", header_style="bold")
    for column in ("batch", "compute", "memory", "runtime", "bound", "needs", "fits", "tokens/s"):
        table.add_column(column, justify="right")
    for row in rows:
        style = "bold green" if row["batch"] == best else None
        cells = [display(workload, c, row[c]) for c in SWEEP_COLUMNS]
        cells[-1] = cells[-1].replace(" tokens/s", "")
        table.add_row(str(row["batch"]), *cells, style=style)
    console = Console(highlight=False)
    console.print(table)
    case = display(workload, "optimal_is_knee", knee["optimal_is_knee"])
    console.print(
        f"optimal batch among these: {best if best is not None else 'none fits'}; "
        f"exact optimum: {int(knee['optimal_batch'])} ({case})"
    )
    return 0
