"""How calc and sweep show results: the JSON document, or a table with steps."""

from __future__ import annotations

import json
from typing import Any

from perfdrill.cli import terminal
from perfdrill.engine.model import derivation, display


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
