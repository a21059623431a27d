"""`perfdrill specs [chips|models] [--json]`: what the engine knows, with sources."""

from __future__ import annotations

import argparse
import json
from typing import Any

from perfdrill.cli import terminal
from perfdrill.cli.options import add_specs_option
from perfdrill.cli.specs_measured import measured_json, print_measured
from perfdrill.engine.model import Sourced, SpecBook, format_quantity, load_specs


def register(commands: Any) -> None:
    parser = commands.add_parser("specs", help="list known chips, models and measured tables")
    parser.add_argument(
        "kind",
        nargs="?",
        choices=("chips", "models", "measured"),
        help="only chips, only models, or only the published measurements (with their sources)",
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    add_specs_option(parser)
    parser.set_defaults(handler=run)


def _sourced(value: Sourced | None, unit: str, **extra: str) -> dict[str, Any] | None:
    if value is None:
        return None
    return {"value": value.value, "unit": unit, "as_written": value.shown, **extra, "source": value.source}


def as_json(book: SpecBook, kind: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if kind in (None, "chips"):
        out["chips"] = {
            c.id: {
                "name": c.name,
                "vendor": c.vendor,
                "peak_flops": {d: _sourced(s, "FLOP/s") for d, s in c.peak_flops.items()},
                "memory": _sourced(c.memory, "byte"),
                "memory_bandwidth": _sourced(c.memory_bandwidth, "byte/s"),
                "link_bandwidth": _sourced(c.link_bandwidth, "byte/s", direction="one-way"),
                "host_link_bandwidth": _sourced(c.host_link_bandwidth, "byte/s", direction="one-way"),
                "price_per_hour": _sourced(c.price_per_hour, "USD/h"),
            }
            for c in book.chips.values()
        }
    if kind in (None, "models"):
        out["models"] = {
            m.id: {
                "name": m.name,
                "source": m.source,
                "layers": m.layers,
                "d_model": m.d_model,
                "heads": m.heads,
                "kv_heads": m.kv_heads,
                "head_dim": m.head_dim,
                "ffn": m.ffn,
                "vocab": m.vocab,
                "gated_mlp": m.gated_mlp,
                "tied_embeddings": m.tied_embeddings,
                "experts": m.experts,
                "experts_per_token": m.experts_per_token,
            }
            for m in book.models.values()
        }
    if kind in (None, "measured"):
        out["measured"] = measured_json()
    return out


def _id_column(table: Any) -> None:
    """The id is what a user types after --chip or --model: it keeps its full width on one line
    while the other columns wrap, and like them it folds rather than loses characters to an
    ellipsis where the terminal is too narrow for the table."""
    table.add_column("id", no_wrap=True, overflow="fold")


def run(args: argparse.Namespace) -> int:
    book = load_specs(args.specs)
    if args.json:
        print(json.dumps(as_json(book, args.kind), indent=2))
        return 0
    from rich.table import Table

    console = terminal.console()
    if args.kind in (None, "chips"):
        table = Table(title="Chips (dense peak FLOP/s; links one-way)")
        _id_column(table)
        for column in ("name", "bf16", "fp8", "memory", "memory\nBW", "link"):
            table.add_column(column, overflow="fold")
        for c in book.chips.values():
            peak = {d: format_quantity(s.value, "FLOP/s") for d, s in c.peak_flops.items()}
            link = format_quantity(c.link_bandwidth.value, "byte/s") if c.link_bandwidth else "—"
            table.add_row(
                c.id,
                c.name,
                peak.get("bf16", peak.get("fp16", "—")),
                peak.get("fp8", "—"),
                c.memory.shown,
                format_quantity(c.memory_bandwidth.value, "byte/s"),
                link,
            )
        console.print(table)
    if args.kind in (None, "models"):
        table = Table(title="Models")
        _id_column(table)
        for column in ("name", "layers", "model\nwidth", "heads/\nKV heads", "MLP\nwidth", "experts"):
            numeric = column in ("layers", "model\nwidth", "MLP\nwidth")
            table.add_column(column, justify="right" if numeric else "left", overflow="fold")
        for m in book.models.values():
            experts = f"{m.experts_per_token}/{m.experts}" if m.is_moe else "—"
            width, mlp = format_quantity(m.d_model, "1"), format_quantity(m.ffn, "1")  # 16,384
            table.add_row(m.id, m.name, str(m.layers), width, f"{m.heads}/{m.kv_heads}", mlp, experts)
        console.print(table)
    if args.kind in (None, "measured"):
        print_measured(console)
    return 0
