"""Published measurements, loaded from specs/measured/*.yaml: who measured what, where, and how.

Three tables, each with its source (repository, path, commit, licence, method):
- `matmul`: XLA's measured GEMM throughput per shape (b, m, n, k) and dtype, per chip;
- `mamf`: the Maximum Achievable Matmul FLOPS a shape search found per chip and dtype;
- `all_reduce`: measured all-reduce bus bandwidth per payload.

A shape between measured ones is read the way XLA's own EuclideanWeightedAverageInterpolator
(xla/service/gpu/model/interpolator.h) reads it, so a question can say "interpolated as XLA does".
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from itertools import product
from pathlib import Path
from typing import Annotated, Any

from msgspec import Meta, Struct

from perfdrill.engine.errors import SpecError, UnitError
from perfdrill.engine.model.specs import ComputeDtype, Text
from perfdrill.engine.model.units import parse_quantity
from perfdrill.engine.resources import data_dir
from perfdrill.engine.schema import Where, decode
from perfdrill.engine.yamlio import file_kind_problem, load_yaml

# XLA's interpolator only reads shapes inside this grid (min_context and max_context for b, m, k, n
# in matmul_interpolator.cc); outside it a "measurement" would be an extrapolation, so none is given.
GRID_LOW = (1, 256, 256, 256)
GRID_HIGH = (4, 4096, 4096, 4096)

# What a template may read from these tables, beside the chip's and model's figures, with its unit.
MEASURED_FACTS = {
    "measured_matmul_flops": "FLOP/s",  # XLA's rate for the chip, dtype and the inputs' m, k, n
    "mamf_flops": "FLOP/s",  # the chip's Maximum Achievable Matmul FLOPS in the dtype
    "measured_sweep_ranks": "1",  # ranks of the chip's measured all-reduce sweep
    "measured_bus_bandwidth": "byte/s",  # that sweep's busbw at the inputs' collective_bytes
}

Positive = Annotated[int, Meta(gt=0)]
PositiveNumber = Annotated[int, Meta(gt=0)] | Annotated[float, Meta(gt=0)]
Pair = Annotated[list[PositiveNumber], Meta(min_length=2, max_length=2)]
Shape = tuple[int, int, int, int]  # (b, m, k, n), the order XLA keys its interpolation points in


class Source(Struct, frozen=True, forbid_unknown_fields=True):
    """Who measured a table, and exactly where it is published."""

    who: Text
    repository: Text
    path: Text
    commit: Annotated[str, Meta(pattern="^[0-9a-f]{40}$")]
    licence: Text
    method: Text

    def cite(self) -> str:
        return f"{self.repository} {self.path} @{self.commit[:7]}, {self.licence}"


class MatmulTable(Struct, frozen=True, forbid_unknown_fields=True):
    profile: Text
    roof: dict[ComputeDtype, ComputeDtype]  # measured dtype -> the datasheet peak it is read against
    dtypes: Annotated[list[ComputeDtype], Meta(min_length=1)]
    rows: Annotated[list[list[PositiveNumber]], Meta(min_length=1)]
    note: str = ""


class MamfFigure(Struct, frozen=True, forbid_unknown_fields=True):
    value: PositiveNumber
    unit: Text
    shape: Text
    software: Text
    note: str = ""


class AllReduceSweep(Struct, frozen=True, forbid_unknown_fields=True):
    chip: Text
    ranks: Annotated[int, Meta(ge=2)]
    nodes: Positive
    tool: Text
    software: Text
    rows: Annotated[list[Pair], Meta(min_length=1)]  # [payload bytes, busbw GB/s]
    note: str = ""


class MeasuredFile(Struct, frozen=True, forbid_unknown_fields=True):
    source: Source
    matmul: dict[str, MatmulTable] = {}
    mamf: dict[str, dict[ComputeDtype, MamfFigure]] = {}
    all_reduce: dict[str, AllReduceSweep] = {}


class Mamf(Struct, frozen=True):
    flops: float  # FLOP/s
    shape: str
    software: str
    note: str
    source: Source


class Measurements(Struct, frozen=True):
    """Every measured table, by chip id (matmul, MAMF) or sweep id (all-reduce)."""

    # chip -> the dtype whose peak it is read against (bf16, tf32) -> {(b, m, k, n): FLOP/s}, keyed as
    # XLA keys its interpolation points
    matmul: dict[str, dict[str, dict[Shape, float]]] = {}
    matmul_source: dict[str, Source] = {}
    mamf: dict[str, dict[str, Mamf]] = {}
    all_reduce: dict[str, AllReduceSweep] = {}
    all_reduce_source: dict[str, Source] = {}

    def matmul_flops(self, chip: str, dtype: str, m: float, k: float, n: float, b: float = 1) -> float | None:
        """Measured FLOP/s of a b x (m x k) @ (k x n) matmul, interpolated between measured shapes as
        XLA does; None where the chip, dtype or shape has no measurement (off XLA's grid)."""
        table = self.matmul.get(chip, {}).get(dtype)
        point = (b, m, k, n)
        if table is None or not all(float(x).is_integer() for x in point):
            return None
        whole = tuple(int(x) for x in point)
        if any(not low <= x <= high for x, low, high in zip(whole, GRID_LOW, GRID_HIGH, strict=True)):
            return None
        return xla_weighted_average(table, whole)

    def is_measured_shape(self, chip: str, dtype: str, m: float, k: float, n: float, b: float = 1) -> bool:
        """Whether this exact shape is a row of the table (no interpolation)."""
        return (b, m, k, n) in self.matmul.get(chip, {}).get(dtype, {})


def _previous_power_of_two(n: int) -> int:
    return 1 << ((n // 2 + 1) - 1).bit_length()  # XLA's PrevPowerOfTwo: NextPowerOfTwo(n/2 + 1)


def _next_power_of_two(n: int) -> int:
    return 1 << (n - 1).bit_length() if n > 1 else 1


def xla_weighted_average(table: dict[Shape, float], point: tuple[int, ...]) -> float:
    """XLA's EuclideanWeightedAverageInterpolator::Eval: the 2^4 corners at the powers of two below and
    above each dimension (clamped to the grid), each weighted 1 / (squared distance + 1)."""
    sides = [
        (
            min(max(_previous_power_of_two(x), low), high),
            min(max(_next_power_of_two(x), low), high),
        )
        for x, low, high in zip(point, GRID_LOW, GRID_HIGH, strict=True)
    ]
    total = weights = 0.0
    for b, m, k, n in product(*sides):
        weight = 1.0 / (sum((c - x) ** 2 for c, x in zip((b, m, k, n), point, strict=True)) + 1.0)
        total += table[(b, m, k, n)] * weight
        weights += weight
    return total / weights


def measured_dirs(extra: Iterable[Path] = ()) -> list[Path]:
    dirs = [data_dir("specs") / "measured", *extra]
    return [d for d in dirs if d.is_dir()]


@cache
def _load_cached(dirs: tuple[Path, ...]) -> Measurements:
    files = [path for directory in dirs for path in sorted(directory.glob("*.yaml"))]
    for path in files:
        problem = file_kind_problem(path)
        if problem:
            raise SpecError(problem, file=str(path))

    book: dict[str, Any] = {key: {} for key in Measurements.__struct_fields__}
    for path in files:
        _load_file(path, book)
    return Measurements(**book)


def load_measurements(extra: Iterable[Path] = ()) -> Measurements:
    """Every measured table; raises SpecError, naming file, line and field, on the first bad entry."""
    return _load_cached(tuple(measured_dirs(extra)))


def _load_file(path: Path, book: dict[str, Any]) -> None:
    data = load_yaml(path, SpecError)
    if data is None:
        return
    where = Where(str(path), data, SpecError)
    measured = decode(data, MeasuredFile, where)
    for chip, table in measured.matmul.items():
        if chip in book["matmul"]:
            raise where.error("duplicate chip (a matmul table is already loaded for it)", "matmul", chip)
        # filed under the dtype whose peak the rows are read against: XLA's f32 dots ran as TF32
        rows = _matmul_rows(table, where, chip)
        book["matmul"][chip] = {table.roof[dtype]: rows[dtype] for dtype in table.dtypes}
        book["matmul_source"][chip] = measured.source
    for chip, figures in measured.mamf.items():
        book["mamf"].setdefault(chip, {})
        for dtype, figure in figures.items():
            book["mamf"][chip][dtype] = Mamf(
                _flops(figure, where, ("mamf", chip, dtype)), figure.shape, figure.software, figure.note,
                measured.source,
            )  # fmt: skip
    for sweep_id, sweep in measured.all_reduce.items():
        book["all_reduce"][sweep_id] = sweep
        book["all_reduce_source"][sweep_id] = measured.source


def _matmul_rows(table: MatmulTable, where: Where, chip: str) -> dict[str, dict[Shape, float]]:
    by_dtype: dict[str, dict[Shape, float]] = {d: {} for d in table.dtypes}
    for dtype in table.dtypes:
        if dtype not in table.roof:
            raise where.error(f"no roof for dtype {dtype!r}", "matmul", chip, "roof")
    for index, row in enumerate(table.rows):
        if len(row) != 4 + len(table.dtypes) or not all(float(x).is_integer() for x in row[:4]):
            raise where.error(
                f"a row is b, m, n, k (whole numbers) then one FLOP/s per dtype ({len(table.dtypes)})",
                "matmul", chip, "rows", index,
            )  # fmt: skip
        b, m, n, k = (int(x) for x in row[:4])
        for dtype, flops in zip(table.dtypes, row[4:], strict=True):
            by_dtype[dtype][(b, m, k, n)] = float(flops)
    grid = product(*[_powers(low, high) for low, high in zip(GRID_LOW, GRID_HIGH, strict=True)])
    for b, m, k, n in grid:  # XLA reads the 16 corners around a shape: every grid point must exist
        for name, rows in by_dtype.items():
            if (b, m, k, n) not in rows:
                raise where.error(f"{name} has no row for b={b} m={m} n={n} k={k}", "matmul", chip, "rows")
    return by_dtype


def _powers(low: int, high: int) -> list[int]:
    return [1 << e for e in range(low.bit_length() - 1, high.bit_length())]


def _flops(figure: MamfFigure, where: Where, path: tuple[str, ...]) -> float:
    try:
        return parse_quantity(f"{figure.value!r} {figure.unit}", "FLOP/s", what=path[-1])
    except UnitError as exc:
        raise where.error(exc.message, *path, "unit") from None


def measured_facts(chip: str, dtype: str, inputs: dict[str, float]) -> dict[str, float]:
    """What the measured tables say about this chip and dtype, and (where the inputs give a matmul's
    m, k, n) about this shape: facts a question may read beside the roofline inputs."""
    book = load_measurements()
    facts: dict[str, float] = {}
    if dtype in book.mamf.get(chip, {}):
        facts["mamf_flops"] = book.mamf[chip][dtype].flops
    sweep = next((s for s in book.all_reduce.values() if s.chip == chip), None)
    if sweep is not None:
        facts["measured_sweep_ranks"] = float(sweep.ranks)
        row = [busbw for size, busbw in sweep.rows if size == inputs.get("collective_bytes")]
        if row:
            facts["measured_bus_bandwidth"] = row[0] * 1e9  # printed in GB/s
    if all(name in inputs for name in ("m", "k", "n")):
        flops = book.matmul_flops(chip, dtype, inputs["m"], inputs["k"], inputs["n"])
        if flops is not None:
            facts["measured_matmul_flops"] = flops
    return facts
