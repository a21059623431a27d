"""How calc and sweep show results: JSON values in base units (or a label), or a table with steps."""

from __future__ import annotations

import json
from typing import Any

from perfdrill.cli import terminal
from perfdrill.engine.model import derivation, display, info, label


def json_value(workload: str, quantity: str, value: Any) -> dict[str, Any]:
    meta = info(workload, quantity)
    word = label(workload, quantity, value)
    if word is not None:
        return {"value": word == "yes" if meta.labels == ("no", "yes") else word, "unit": None}
    number = float(value)
    if meta.unit == "1" and number.is_integer():
        return {"value": int(number), "unit": "1"}
    return {"value": number, "unit": meta.unit}


def print_json(document: dict[str, Any]) -> None:
    """A calculation's JSON document; strict JSON, so a NaN or an infinity is a bug, not output."""
    print(json.dumps(document, indent=2, allow_nan=False))


def print_results(
    workload: str, pairs: list[tuple[str, str]], values: dict[str, Any], given: set[str], *, explain: bool
) -> None:
    """The results by the names `--json` and the omitted notes use, their values written by the one
    formatter; with `explain`, the working behind them in labels."""
    from rich.table import Table
    from rich.text import Text

    from perfdrill.tui.wrapped import Wrapped

    console = terminal.console(highlight=False)
    table = Table(show_header=True, header_style="bold")
    table.add_column("result")
    table.add_column("value", justify="right")
    for result, quantity in pairs:
        table.add_row(result, display(workload, quantity, values[quantity]))
    console.print(table)
    if explain:
        steps = derivation(workload, [q for _, q in pairs], values, given).steps
        lines = [(Text(step.line()).append(f"  # {step.doc}", style="dim"), 4) for step in steps]
        console.print(Wrapped(lines))  # a number never leaves its unit at a line break
