"""`perfdrill specs measured`: the published measurements perfdrill reads, with who measured them."""

from __future__ import annotations

from typing import Any

from perfdrill.engine.model import format_quantity
from perfdrill.engine.model.measured import Source, load_measurements


def _source(source: Source) -> dict[str, str]:
    return {
        "who": source.who,
        "repository": source.repository,
        "path": source.path,
        "commit": source.commit,
        "licence": source.licence,
        "method": source.method,
    }


def measured_json() -> dict[str, Any]:
    book = load_measurements()
    return {
        "matmul": {
            chip: {
                "dtypes": {dtype: len(rows) for dtype, rows in tables.items()},
                "source": _source(book.matmul_source[chip]),
            }
            for chip, tables in book.matmul.items()
        },
        "mamf": {
            chip: {
                dtype: {
                    "value": f.flops,
                    "unit": "FLOP/s",
                    "shape": f.shape,
                    "software": f.software,
                    "source": _source(f.source),
                }
                for dtype, f in figures.items()
            }
            for chip, figures in book.mamf.items()
        },
        "all_reduce": {
            sweep_id: {
                "chip": sweep.chip,
                "ranks": sweep.ranks,
                "nodes": sweep.nodes,
                "tool": sweep.tool,
                "rows": [{"bytes": int(size), "busbw_GBps": busbw} for size, busbw in sweep.rows],
                "source": _source(book.all_reduce_source[sweep_id]),
            }
            for sweep_id, sweep in book.all_reduce.items()
        },
    }


def print_measured(console: Any) -> None:
    from rich.table import Table

    book = load_measurements()
    table = Table(title="Measured tables (who measured them, and where)")
    for column in ("table", "chip", "what", "source"):
        table.add_column(column)
    for chip, tables in book.matmul.items():
        source = book.matmul_source[chip]
        counts = ", ".join(f"{dtype}: {len(rows)} shapes" for dtype, rows in tables.items())
        table.add_row("matmul", chip, counts, f"{source.who}; {source.cite()}")
    for chip, figures in book.mamf.items():
        for dtype, figure in figures.items():
            what = f"MAMF {dtype} {format_quantity(figure.flops, 'FLOP/s')} at {figure.shape}"
            table.add_row("mamf", chip, what, f"{figure.source.who}; {figure.source.cite()}")
    for sweep_id, sweep in book.all_reduce.items():
        source = book.all_reduce_source[sweep_id]
        what = f"{sweep_id}: {sweep.ranks} ranks on {sweep.nodes} node(s), {len(sweep.rows)} payloads"
        table.add_row("all_reduce", sweep.chip, what, f"{source.who}; {source.cite()}")
    console.print(table)
