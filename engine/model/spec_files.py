"""Reading the spec files into a SpecBook, validated as they load.

Each file's schema is derived from the declarations in specs.py (a Figure where a field holds a
Sourced). A bad entry fails as it loads, naming file, line, entry and field, never halfway through
a calculation.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import cache, reduce
from operator import or_
from pathlib import Path
from types import GenericAlias
from typing import Annotated, Any, Literal, get_args, get_origin

import msgspec
from msgspec import Meta, Struct

from perfdrill.engine.cache import cached
from perfdrill.engine.errors import SpecError, UnitError
from perfdrill.engine.model.specs import Chip, In, Model, Note, Sourced, SpecBook, Text
from perfdrill.engine.model.units import parse_quantity
from perfdrill.engine.resources import data_dir, user_data_dir
from perfdrill.engine.schema import Where, decode
from perfdrill.engine.yamlio import check_inside, file_kind_problem, load_yaml

# Each base unit's accepted range: from below the smallest part to above a whole rack taken as one
# chip (GB200 NVL72: 1.4 EFLOP/s fp4, 13.5 TB of HBM) or a model far beyond any published one.
PHYSICAL: dict[str, tuple[float, float]] = {
    "FLOP/s": (1e6, 1e20),
    "byte": (1.0, 1e16),
    "byte/s": (1e3, 1e17),
    "parameter": (1.0, 1e15),
    "1": (1.0, 1e9),
    "token": (1.0, 1e10),
    "USD/h": (1e-6, 1e6),
}


class Figure(Struct, frozen=True, forbid_unknown_fields=True):
    """One figure as a spec file writes it; `unit` is perfdrill's registry (TFLOP/s, GB, GiB...)."""

    value: Annotated[int, Meta(gt=0)] | Annotated[float, Meta(gt=0)]
    source: Text
    unit: Annotated[str, Meta(max_length=40)] = ""
    note: Note = ""
    # A peak's 2:4 structured-sparsity headline, in the same unit; it feeds the "used the sparse
    # peak" mistake and never a roofline.
    sparse: Annotated[int, Meta(gt=0)] | Annotated[float, Meta(gt=0)] | None = None


# -- the file schema, derived from the declarations in specs.py ---------------------------------------

_IMPLIED = ("id", "file")  # from where an entry is written, never from the entry itself
# Types built at run time: mypy cannot follow them, and need not.
_ANNOTATED: Any = Annotated


def _written(annotation: Any) -> Any:
    """The type a spec file writes for a field declared as `annotation`: a Figure for each Sourced."""
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Annotated:
        if args[0] is Sourced:
            return Figure
        return _ANNOTATED[(_written(args[0]), *annotation.__metadata__)]
    if origin is dict:
        return GenericAlias(dict, (args[0], _written(args[1])))
    if args and origin is not Literal:  # a union
        return reduce(or_, map(_written, args))
    return annotation


def _entry_type(runtime: type[Struct]) -> Any:
    fields = [
        (f.name, _written(f.type)) if f.required else (f.name, _written(f.type), f.default)
        for f in msgspec.structs.fields(runtime)
        if f.name not in _IMPLIED
    ]
    return msgspec.defstruct(
        f"{runtime.__name__}Entry", fields, kw_only=True, forbid_unknown_fields=True, frozen=True
    )


_ChipEntry = _entry_type(Chip)
_ModelEntry = _entry_type(Model)
_SpecFile: Any = msgspec.defstruct(
    "SpecFile",
    [
        ("chips", GenericAlias(dict, (str, _ChipEntry)) | None, None),
        ("models", GenericAlias(dict, (str, _ModelEntry)) | None, None),
    ],
    forbid_unknown_fields=True,
)


def spec_dirs(extra: Iterable[Path] = ()) -> list[Path]:
    """Built-in specs, then the user's data folder, then any `--specs DIR`."""
    dirs = [data_dir("specs"), user_data_dir() / "specs", *extra]
    return [d for d in dirs if d.is_dir()]


@cache
def _load_cached(dirs: tuple[Path, ...]) -> SpecBook:
    """Validated specs; the result is cached under a hash of the files and the engine, so a later
    run with the same files skips YAML parsing and unit conversion (and the pint import) entirely."""
    found = [(path, directory) for directory in dirs for path in sorted(directory.glob("*.yaml"))]
    for path, directory in found:  # before the cache hashes their bytes: a FIFO must never be read
        check_inside(path, directory, SpecError, display=str(path))
        problem = file_kind_problem(path)
        if problem:
            raise SpecError(problem, file=str(path))
    files = [path for path, _ in found]

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
    where = Where(name, data, SpecError)
    book = decode(data, _SpecFile, where)
    for entry_id, entry in (book.chips or {}).items():
        if entry_id in chips:
            raise where.error(f"duplicate id (already defined in {chips[entry_id].file})", "chips", entry_id)
        chips[entry_id] = _measured(entry, Chip, where, ("chips", entry_id))
    for entry_id, entry in (book.models or {}).items():
        if entry_id in models:
            raise where.error(
                f"duplicate id (already defined in {models[entry_id].file})", "models", entry_id
            )
        models[entry_id] = _checked(_measured(entry, Model, where, ("models", entry_id)), where)


def _measured(entry: Any, runtime: type[Any], where: Where, path: tuple[str, str]) -> Any:
    """The runtime object for a decoded entry: each written figure converted to base units."""
    values = {
        name: _measure(getattr(entry, name), unit, where, (*path, name)) for name, unit in _UNITS[runtime]
    }
    return runtime(id=path[1], file=where.file, **values)


def _units(runtime: type[Struct]) -> tuple[tuple[str, str], ...]:
    """Each field a spec file writes, with the base unit of its figures ("" for none)."""
    return tuple(
        (f.name, _unit_of(f.type)) for f in msgspec.structs.fields(runtime) if f.name not in _IMPLIED
    )


def _unit_of(annotation: Any) -> str:
    """The base unit an `In` marker gives somewhere inside `annotation`."""
    for marker in getattr(annotation, "__metadata__", ()):
        if isinstance(marker, In):
            return marker.unit
    return next(filter(None, map(_unit_of, get_args(annotation))), "")


_UNITS: dict[type[Any], tuple[tuple[str, str], ...]] = {Chip: _units(Chip), Model: _units(Model)}


def _measure(value: Any, unit: str, where: Where, path: tuple[str, ...]) -> Any:
    if isinstance(value, dict):
        return {key: _measure(item, unit, where, (*path, key)) for key, item in value.items()}
    if not isinstance(value, Figure):
        return value
    for key in ("value", "sparse"):  # an integer of hundreds of digits is no float
        number = getattr(value, key)
        if isinstance(number, int) and number.bit_length() > 128:
            raise where.error(f"a {len(str(number))}-digit number is too large", *path, key)
    if not math.isfinite(value.value):
        raise where.error(f"must be a finite number, not {value.value!r}", *path, "value")
    shown = f"{value.value!r} {value.unit.strip()}".strip()  # repr keeps every digit; :g would round to 6
    try:
        base = parse_quantity(shown, unit, what=path[-1])
    except UnitError as exc:
        raise where.error(exc.message, *path, "unit") from None
    low, high = PHYSICAL[unit]
    if not low <= base <= high:  # 1e300 EB, a 1e-320 FLOP/s chip
        raise where.error(f"{shown!r} is out of range: give {low:g} to {high:g} {unit}", *path, "value")
    sparse = None
    if value.sparse is not None:
        if value.sparse <= value.value:
            raise where.error(f"must be above the dense value {value.value!r}", *path, "sparse")
        sparse = base * value.sparse / value.value  # the same unit as the dense figure
        if sparse > high:
            raise where.error(f"is out of range: give at most {high:g} {unit}", *path, "sparse")
    return Sourced(base, value.source, shown, value.note, sparse)


def _checked(model: Model, where: Where) -> Model:
    """The rules across fields that a declaration cannot hold."""
    path = ("models", model.id)
    if model.kv_heads > model.heads:
        raise where.error(f"must not exceed heads ({model.heads})", *path, "kv_heads")
    if model.heads % model.kv_heads:
        raise where.error(f"must divide heads ({model.heads}) into equal groups", *path, "kv_heads")
    if model.experts_per_token > model.experts:
        raise where.error(f"must not exceed experts ({model.experts})", *path, "experts_per_token")
    if model.dense_layers is not None and model.dense_layers > model.layers:
        raise where.error(f"must not exceed layers ({model.layers})", *path, "dense_layers")
    if model.mlp is None and model.gated_mlp is None:
        raise where.absent(
            "missing: give `mlp: gated` or `mlp: plain` (or gated_mlp: true/false)", "mlp", *path
        )
    if model.mlp is not None and model.gated_mlp is not None and (model.mlp == "gated") != model.gated_mlp:
        raise where.error(f"disagrees with gated_mlp: {str(model.gated_mlp).lower()}", *path, "mlp")
    if model.gated_mlp is None:
        return msgspec.structs.replace(model, gated_mlp=model.mlp == "gated")
    return model
