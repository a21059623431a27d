"""Chips and models: declared once as frozen Structs, each figure a number in base units with its source.

The Struct fields ARE the spec-file schema: a file writes the same fields, less `id` and `file`
(which come from where an entry is written), with each figure written as {value, unit, source}
and converted to base units. Adding a field to a chip or a model is one line here; spec_files.py
derives the file schema from these declarations and loads and validates the files.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Annotated, Literal, get_args

from msgspec import Meta, Struct

from perfdrill.engine.errors import SpecError

# Bytes per element of each storage dtype. int4 packs two values per byte.
DTYPE_BYTES: dict[str, float] = {
    "fp32": 4,
    "tf32": 4,
    "bf16": 2,
    "fp16": 2,
    "fp8": 1,
    "int8": 1,
    "int4": 0.5,
    "fp4": 0.5,
}
ComputeDtype = Annotated[Literal["fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4"], Meta(title="dtype")]
COMPUTE_DTYPES: tuple[str, ...] = get_args(get_args(ComputeDtype)[0])


@dataclass(frozen=True)
class In:
    """Marks a Sourced field with the base unit its written figure is converted to."""

    unit: str


class Sourced(Struct, frozen=True):
    """A number in base units with the text that says where it comes from."""

    value: float
    source: str
    shown: str  # as written in the spec, e.g. "3.35 TB/s"
    note: str = ""
    sparse: float | None = None  # a peak's 2:4-sparse headline, in the same base unit, where published


FlopRate = Annotated[Sourced, In("FLOP/s")]
Bytes = Annotated[Sourced, In("byte")]
ByteRate = Annotated[Sourced, In("byte/s")]
Parameters = Annotated[Sourced, In("parameter")]
Count = Annotated[Sourced, In("1")]
Tokens = Annotated[Sourced, In("token")]
HourlyPrice = Annotated[Sourced, In("USD/h")]
# Bounds a real chip or model is far inside, so a figure that would overflow a float, or print a
# page-long name, is refused where it is written rather than failing a question that draws it.
Name = Annotated[str, Meta(min_length=1, max_length=80)]
Text = Annotated[str, Meta(min_length=1, max_length=1000)]
Note = Annotated[str, Meta(max_length=1000)]
Positive = Annotated[int, Meta(gt=0, le=10**9)]
NonNegative = Annotated[int, Meta(ge=0, le=10**9)]


class _Entry(Struct, frozen=True, kw_only=True):
    """What every chip and model has. A spec file writes all fields but `id` and `file`."""

    id: str  # the key the entry is written under
    file: str = ""  # the spec file it came from
    name: Name
    note: Note = ""


class Chip(_Entry, frozen=True, kw_only=True):
    vendor: Name
    peak_flops: Annotated[dict[ComputeDtype, FlopRate], Meta(min_length=1)]  # dense FLOP/s per dtype
    memory: Bytes
    memory_bandwidth: ByteRate
    link_bandwidth: ByteRate | None = None  # one-way, aggregate over the chip's links
    link_peer_bandwidth: ByteRate | None = None  # one-way, to any single peer, where it is uniform
    link_topology: Literal["switch", "mesh", "pair", "torus"] | None = None
    link_domain: Positive | None = None  # chips the link joins (a node, a bridged pair, a pod)
    host_link_bandwidth: ByteRate | None = None  # one-way
    network_bandwidth: ByteRate | None = None  # one-way scale-out NIC per GPU in the reference node
    network_nics: Count | None = None  # scale-out (compute fabric) NICs in the reference node
    sm_count: Count | None = None  # streaming multiprocessors (AMD: compute units)
    l2_cache: Bytes | None = None  # on-chip L2 shared by all SMs
    price_per_hour: HourlyPrice | None = None  # one chip's on-demand cloud list price, source dated
    memory_type: Text | None = None  # as the datasheet names it (HBM3, GDDR6): prompts say HBM only for HBM

    @property
    def sparse_peak_flops(self) -> dict[str, float]:
        """dtype -> the published 2:4-sparse peak, for the dtypes that have one."""
        return {dtype: peak.sparse for dtype, peak in self.peak_flops.items() if peak.sparse is not None}

    def flops(self, dtype: str) -> float:
        """Dense peak FLOP/s for `dtype`; a dtype the chip lacks is a SpecError."""
        if dtype not in self.peak_flops:
            have = ", ".join(self.peak_flops) or "none"
            raise SpecError(
                f"chip {self.id!r} has no {dtype} peak (it has: {have})",
                file=self.file,
                field=f"chips.{self.id}.peak_flops",
            )
        return self.peak_flops[dtype].value


ARCH_FIELDS = ("layers", "d_model", "heads", "kv_heads", "head_dim", "ffn", "vocab")


class Model(_Entry, frozen=True, kw_only=True):
    source: Text
    layers: Positive
    d_model: Positive
    heads: Positive
    kv_heads: Positive
    head_dim: Positive
    ffn: Positive
    vocab: Positive
    gated_mlp: bool | None = None  # or `mlp`: one of the two is required (_checked)
    mlp: Literal["gated", "plain"] | None = None  # the same as `--mlp`: gated is 3 matrices, plain 2
    tied_embeddings: bool
    experts: Positive = 1
    experts_per_token: Positive = 1
    shared_experts: NonNegative = 0
    dense_layers: NonNegative | None = None
    dense_ffn: Positive | None = None
    position_embeddings: NonNegative = 0
    context_window: Tokens  # the longest context the model takes (its config's window)
    # Local attention's span: no local layer caches more tokens than it, so templates keep their KV
    # caches within it. `alternate`: local and global layers alternate (Gemma 2), as the card says.
    sliding_window: Tokens | None = None
    sliding_window_layers: Literal["all", "alternate"] = "all"
    attention_params_per_layer: Parameters | None = None
    kv_elements_per_token_per_layer: Count | None = None
    published_params: Parameters | None = None
    published_active_params: Parameters | None = None

    @property
    def is_moe(self) -> bool:
        return self.experts > 1

    def formula_inputs(self) -> dict[str, float]:
        """The architecture as values of engine/formulas.py's input symbols, as the spec states it.

        The dense layers and their MLP width are included only where the spec states them: where it
        does not, they follow from the other fields (formula_inputs.stated_defaults), after any
        override, so `--layers 16` on a dense model makes all 16 layers dense.
        """
        values: dict[str, float] = {name: float(getattr(self, name)) for name in ARCH_FIELDS}
        values.update(
            context_window=self.context_window.value,
            attention_span=(self.sliding_window or self.context_window).value,
            mlp_matrices=3.0 if self.gated_mlp else 2.0,
            tied_embeddings=1.0 if self.tied_embeddings else 0.0,
            experts=float(self.experts),
            experts_per_token=float(self.experts_per_token),
            shared_experts=float(self.shared_experts),
            position_embeddings=float(self.position_embeddings),
        )
        if self.dense_layers is not None:
            values["dense_layers"] = float(self.dense_layers)
        if self.dense_ffn is not None:
            values["dense_ffn"] = float(self.dense_ffn)
        if self.attention_params_per_layer is not None:
            values["attention_params_per_layer"] = self.attention_params_per_layer.value
        if self.kv_elements_per_token_per_layer is not None:
            values["kv_elements_per_token_per_layer"] = self.kv_elements_per_token_per_layer.value
        return values


class SpecBook(Struct, frozen=True):
    """Every known chip and model, by id."""

    chips: dict[str, Chip] = {}
    models: dict[str, Model] = {}

    def chip(self, chip_id: str) -> Chip:
        if chip_id not in self.chips:
            raise SpecError(f"unknown chip {chip_id!r}; known: {', '.join(sorted(self.chips))}")
        return self.chips[chip_id]

    def model(self, model_id: str) -> Model:
        if model_id not in self.models:
            raise SpecError(f"unknown model {model_id!r}; known: {', '.join(sorted(self.models))}")
        return self.models[model_id]

    def only(self, chips: Iterable[str] = (), models: Iterable[str] = ()) -> SpecBook:
        """This book cut down to the named chips and models (all of either when none is named)."""
        chip_ids, model_ids = list(chips), list(models)
        return SpecBook(
            {c: self.chip(c) for c in chip_ids} if chip_ids else self.chips,
            {m: self.model(m) for m in model_ids} if model_ids else self.models,
        )
