"""The spec facts a problem rests on, as rows of (fact, value as written, source).

The TUI's spec panel and printed problem sets both show these, so a figure is always quoted the
way the spec file states it (GB vs GiB, dense peaks, one-way links) next to where it comes from.
"""

from __future__ import annotations

from dataclasses import dataclass

from perfdrill.engine.model.numbers import format_quantity, quoted
from perfdrill.engine.model.quantity_text import label_of
from perfdrill.engine.model.specs import Chip, Model, Sourced
from perfdrill.engine.problems.prompts import model_view


@dataclass(frozen=True)
class SpecRow:
    fact: str
    value: str
    source: str


@dataclass(frozen=True)
class SpecTable:
    title: str
    rows: tuple[SpecRow, ...]
    source: str = ""  # where every row without its own source comes from
    note: str = ""


def _row(fact: str, value: Sourced | None, unit: str) -> SpecRow:
    if value is None:
        return SpecRow(fact, "none", "")
    return SpecRow(fact, quoted(value.value, value.shown, unit), value.source)


def chip_table(chip: Chip) -> SpecTable:
    rows = [_row(f"{dtype} peak (dense)", peak, "FLOP/s") for dtype, peak in chip.peak_flops.items()]
    rows += [
        _row("memory", chip.memory, "byte"),
        _row("memory bandwidth", chip.memory_bandwidth, "byte/s"),
        _row("chip-to-chip link (one-way)", chip.link_bandwidth, "byte/s"),
        _row("host link (one-way)", chip.host_link_bandwidth, "byte/s"),
    ]
    return SpecTable(chip.name, tuple(rows), note=chip.note)


_FACT_NAMES = {"attention": "attention", "mlp": "MLP"}  # the rest read as the engine's labels
_MODEL_FACTS = ("layers", "d_model", "heads", "kv_heads", "head_dim", "ffn", "vocab", "attention", "mlp")


def _attention(model: Model, kind: str) -> str:
    """The attention as the engine models it: MLA's cached latent, a sliding window where known."""
    if model.kv_elements_per_token_per_layer is not None:
        cached = model.kv_elements_per_token_per_layer.value
        return f"MLA: caches {cached:,.0f} elements per token per layer"
    if model.sliding_window is not None:
        where = " on alternate layers" if model.sliding_window_layers == "alternate" else ""
        return f"{kind}, sliding window {model.sliding_window.value:,.0f}{where}"
    return kind


def model_table(model: Model) -> SpecTable:
    view = model_view(model)
    view["attention"] = _attention(model, view["attention"])
    facts = _MODEL_FACTS + (("experts", "experts_per_token") if model.is_moe else ())
    if model.kv_elements_per_token_per_layer is not None:  # MLA caches a latent, not KV heads
        facts = tuple(fact for fact in facts if fact != "kv_heads")
    rows = [SpecRow(_FACT_NAMES.get(fact, label_of("model", fact)), str(view[fact]), "") for fact in facts]
    for fact, value in (
        ("published params", model.published_params),
        ("published active params", model.published_active_params),
    ):
        if value is not None:
            rows.append(SpecRow(fact, format_quantity(value.value, "parameter", digits=4), value.source))
    return SpecTable(model.name, tuple(rows), model.source, model.note)


def spec_tables(chips: tuple[Chip, ...], models: tuple[Model, ...]) -> list[SpecTable]:
    return [*map(chip_table, chips), *map(model_table, models)]
