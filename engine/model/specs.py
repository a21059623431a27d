"""Chips and models: frozen facts loaded from YAML, validated as they load.

A bad entry fails here, naming file, entry, field and line, never halfway through a calculation.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from perfdrill.engine.cache import cached
from perfdrill.engine.errors import SpecError, UnitError
from perfdrill.engine.model.units import parse_quantity
from perfdrill.engine.resources import data_dir, user_data_dir
from perfdrill.engine.yamlio import LineMap, file_kind_problem, load_yaml

# Bytes per element of each storage dtype. int4 packs two values per byte.
DTYPE_BYTES: dict[str, float] = {
    "fp32": 4,
    "tf32": 4,
    "bf16": 2,
    "fp16": 2,
    "fp8": 1,
    "int8": 1,
    "int4": 0.5,
}
COMPUTE_DTYPES = ("fp32", "tf32", "bf16", "fp16", "fp8", "int8")


@dataclass(frozen=True)
class Sourced:
    """A number in base units with the text that says where it comes from."""

    value: float
    source: str
    shown: str  # as written in the spec, e.g. "3.35 TB/s"
    note: str = ""


@dataclass(frozen=True)
class Chip:
    id: str
    name: str
    vendor: str
    peak_flops: Mapping[str, Sourced]  # dtype -> dense FLOP/s
    memory: Sourced  # bytes
    memory_bandwidth: Sourced  # bytes/s
    link_bandwidth: Sourced | None  # bytes/s, one-way
    host_link_bandwidth: Sourced | None  # bytes/s, one-way
    note: str = ""
    file: str = ""

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


@dataclass(frozen=True)
class Model:
    id: str
    name: str
    source: str
    layers: int
    d_model: int
    heads: int
    kv_heads: int
    head_dim: int
    ffn: int
    vocab: int
    gated_mlp: bool
    tied_embeddings: bool
    experts: int = 1
    experts_per_token: int = 1
    shared_experts: int = 0
    dense_layers: int | None = None
    dense_ffn: int | None = None
    position_embeddings: int = 0
    attention_params_per_layer: Sourced | None = None
    kv_elements_per_token_per_layer: Sourced | None = None
    published_params: Sourced | None = None
    published_active_params: Sourced | None = None
    note: str = ""
    file: str = ""

    @property
    def is_moe(self) -> bool:
        return self.experts > 1

    def formula_inputs(self) -> dict[str, float]:
        """The architecture as values of engine/formulas.py's input symbols (and overrides)."""
        values: dict[str, float] = {name: float(getattr(self, name)) for name in ARCH_FIELDS}
        dense_layers = (
            self.layers if self.dense_layers is None and not self.is_moe else (self.dense_layers or 0)
        )
        values.update(
            mlp_matrices=3.0 if self.gated_mlp else 2.0,
            tied_embeddings=1.0 if self.tied_embeddings else 0.0,
            experts=float(self.experts),
            experts_per_token=float(self.experts_per_token),
            shared_experts=float(self.shared_experts),
            dense_layers=float(dense_layers),
            dense_ffn=float(self.dense_ffn if self.dense_ffn is not None else self.ffn),
            position_embeddings=float(self.position_embeddings),
        )
        if self.attention_params_per_layer is not None:
            values["attention_params_per_layer"] = self.attention_params_per_layer.value
        if self.kv_elements_per_token_per_layer is not None:
            values["kv_elements_per_token_per_layer"] = self.kv_elements_per_token_per_layer.value
        return values


@dataclass(frozen=True)
class SpecBook:
    """Every known chip and model, by id."""

    chips: Mapping[str, Chip] = field(default_factory=dict)
    models: Mapping[str, Model] = field(default_factory=dict)

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


def spec_dirs(extra: Iterable[Path] = ()) -> list[Path]:
    """Built-in specs, then the user's data folder, then any `--specs DIR`."""
    dirs = [data_dir("specs"), user_data_dir() / "specs", *extra]
    return [d for d in dirs if d.is_dir()]


@cache
def _load_cached(dirs: tuple[Path, ...]) -> SpecBook:
    """Validated specs; the result is cached under a hash of the files and the engine, so a later
    run with the same files skips YAML parsing and unit conversion (and the pint import) entirely."""
    files = [path for directory in dirs for path in sorted(directory.glob("*.yaml"))]
    for path in files:  # before the cache hashes their bytes: a FIFO must never be read
        problem = file_kind_problem(path)
        if problem:
            raise SpecError(problem, file=str(path))

    def build() -> SpecBook:
        chips: dict[str, Chip] = {}
        models: dict[str, Model] = {}
        for path in files:
            _load_file(path, chips, models)
        return SpecBook(chips, models)

    return cached("specs", files, SpecBook, build)


def load_specs(extra: Iterable[Path] = ()) -> SpecBook:
    """Load and validate every spec file; raises SpecError on the first bad entry."""
    for directory in extra:
        if not directory.is_dir():
            raise SpecError("not a folder of spec YAML files", file=str(directory))
    return _load_cached(tuple(spec_dirs(extra)))


def _load_file(path: Path, chips: dict[str, Chip], models: dict[str, Model]) -> None:
    name = str(path)
    data = load_yaml(path, SpecError)
    if data is None:
        return
    if not isinstance(data, LineMap) or not set(data) <= {"chips", "models"}:
        raise SpecError("top level must be a mapping with 'chips' and/or 'models'", file=name, line=1)
    targets: tuple[tuple[str, dict[str, Any], Any], ...] = (
        ("chips", chips, _chip),
        ("models", models, _model),
    )
    for section, target, build in targets:
        if data.get(section) is None:
            continue
        entries = data[section]
        if not isinstance(entries, LineMap):
            raise SpecError(
                "must be a mapping of id -> entry", file=name, line=data.line_of(section), field=section
            )
        for entry_id, entry in entries.items():
            where = _Where(name, section, entry_id, entries.line_of(entry_id))
            if entry_id in target:
                raise where.error("", f"duplicate id (already defined in {target[entry_id].file})")
            if not isinstance(entry, LineMap):
                raise where.error("", "entry must be a mapping")
            target[entry_id] = build(entry_id, entry, where)


@dataclass(frozen=True)
class _Where:
    file: str
    section: str
    entry: str
    line: int

    def error(self, field_name: str, message: str, line: int | None = None) -> SpecError:
        path = f"{self.section}.{self.entry}" + (f".{field_name}" if field_name else "")
        return SpecError(message, file=self.file, line=line or self.line, field=path)


def _text(entry: LineMap, key: str, where: _Where, *, required: bool = True) -> str:
    value = entry.get(key)
    if value is None:
        if required:
            raise where.error(key, "missing field")
        return ""
    if not isinstance(value, str):
        raise where.error(key, "must be text", entry.line_of(key))
    return value


def _sourced(
    entry: LineMap, key: str, unit: str, where: _Where, *, required: bool = True, allow_null: bool = False
) -> Sourced | None:
    if key not in entry:
        if required:
            raise where.error(key, "missing field")
        return None
    raw = entry[key]
    if raw is None and allow_null:
        return None
    line = entry.line_of(key)
    if not isinstance(raw, LineMap):
        raise where.error(key, "must be a mapping {value, unit, source}", line)
    for needed in ("value", "source"):
        if needed not in raw or raw[needed] in (None, ""):
            raise where.error(f"{key}.{needed}", "missing field", line)
    value = raw["value"]
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise where.error(f"{key}.value", f"must be a number, not {value!r}", raw.line_of("value"))
    if value < 0:
        raise where.error(f"{key}.value", f"must not be negative ({value})", raw.line_of("value"))
    written_unit = str(raw.get("unit", "")).strip()
    shown = f"{value!r} {written_unit}".strip()  # repr keeps every digit; :g would round to 6
    try:
        base_value = parse_quantity(shown, unit, what=f"{key}")
    except UnitError as exc:
        raise where.error(f"{key}.unit", exc.message, raw.line_of("unit")) from exc
    return Sourced(base_value, str(raw["source"]), shown, str(raw.get("note", "")))


def _chip(chip_id: str, entry: LineMap, where: _Where) -> Chip:
    flops_map = entry.get("peak_flops")
    if not isinstance(flops_map, LineMap) or not flops_map:
        raise where.error("peak_flops", "missing field (a mapping dtype -> {value, unit, source})")
    peak: dict[str, Sourced] = {}
    for dtype in flops_map:
        if dtype not in COMPUTE_DTYPES:
            raise where.error(
                f"peak_flops.{dtype}",
                f"unknown dtype; allowed: {', '.join(COMPUTE_DTYPES)}",
                flops_map.line_of(dtype),
            )
        sourced = _sourced(
            flops_map, dtype, "FLOP/s", _Where(where.file, where.section, f"{chip_id}.peak_flops", where.line)
        )
        assert sourced is not None
        peak[dtype] = sourced
    memory = _sourced(entry, "memory", "byte", where)
    bandwidth = _sourced(entry, "memory_bandwidth", "byte/s", where)
    assert memory is not None and bandwidth is not None
    _positive(memory, "memory", entry, where)
    _positive(bandwidth, "memory_bandwidth", entry, where)
    return Chip(
        id=chip_id,
        name=_text(entry, "name", where),
        vendor=_text(entry, "vendor", where),
        peak_flops=peak,
        memory=memory,
        memory_bandwidth=bandwidth,
        link_bandwidth=_sourced(entry, "link_bandwidth", "byte/s", where, required=False, allow_null=True),
        host_link_bandwidth=_sourced(
            entry, "host_link_bandwidth", "byte/s", where, required=False, allow_null=True
        ),
        note=_text(entry, "note", where, required=False),
        file=where.file,
    )


def _positive(value: Sourced, key: str, entry: LineMap, where: _Where) -> None:
    if value.value <= 0:
        raise where.error(f"{key}.value", "must be positive", entry.line_of(key))


_OPTIONAL_INTS = {"experts": 1, "experts_per_token": 1, "shared_experts": 0, "position_embeddings": 0}


def _int(entry: LineMap, key: str, where: _Where, default: int | None = None) -> int | None:
    if key not in entry:
        if default is None and key in ARCH_FIELDS:
            raise where.error(key, "missing field")
        return default
    value = entry[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise where.error(key, f"must be a whole number, not {value!r}", entry.line_of(key))
    if value < 0 or (value == 0 and key in ARCH_FIELDS):
        raise where.error(key, f"must be positive ({value})", entry.line_of(key))
    return value


def _bool(entry: LineMap, key: str, where: _Where) -> bool:
    if key not in entry:
        raise where.error(key, "missing field")
    if not isinstance(entry[key], bool):
        raise where.error(key, f"must be true or false, not {entry[key]!r}", entry.line_of(key))
    return bool(entry[key])


def _model(model_id: str, entry: LineMap, where: _Where) -> Model:
    known = {
        *ARCH_FIELDS,
        *_OPTIONAL_INTS,
        "name",
        "source",
        "gated_mlp",
        "tied_embeddings",
        "dense_layers",
        "dense_ffn",
        "attention_params_per_layer",
        "kv_elements_per_token_per_layer",
        "published_params",
        "published_active_params",
        "note",
    }
    for key in entry:
        if key not in known:
            raise where.error(key, f"unknown field; allowed: {', '.join(sorted(known))}", entry.line_of(key))
    ints: dict[str, Any] = {key: _int(entry, key, where) for key in ARCH_FIELDS}
    ints.update({key: _int(entry, key, where, default) for key, default in _OPTIONAL_INTS.items()})
    model = Model(
        id=model_id,
        name=_text(entry, "name", where),
        source=_text(entry, "source", where),
        **ints,
        gated_mlp=_bool(entry, "gated_mlp", where),
        tied_embeddings=_bool(entry, "tied_embeddings", where),
        dense_layers=_int(entry, "dense_layers", where, None) if "dense_layers" in entry else None,
        dense_ffn=_int(entry, "dense_ffn", where, None) if "dense_ffn" in entry else None,
        attention_params_per_layer=_sourced(
            entry, "attention_params_per_layer", "parameter", where, required=False
        ),
        kv_elements_per_token_per_layer=_sourced(
            entry, "kv_elements_per_token_per_layer", "1", where, required=False
        ),
        published_params=_sourced(entry, "published_params", "parameter", where, required=False),
        published_active_params=_sourced(
            entry, "published_active_params", "parameter", where, required=False
        ),
        note=_text(entry, "note", where, required=False),
        file=where.file,
    )
    if model.experts_per_token > model.experts:
        raise where.error("experts_per_token", "must not exceed experts", entry.line_of("experts_per_token"))
    if model.dense_layers is not None and model.dense_layers > model.layers:
        raise where.error("dense_layers", "must not exceed layers", entry.line_of("dense_layers"))
    return model
