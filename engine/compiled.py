"""Load the compiled formulas (building them on first use) and evaluate workloads.

The compiled module is cached under the user cache folder, keyed by a hash of the formula and
compiler sources, so a changed formula can never be served stale.
"""

from __future__ import annotations

import hashlib
import importlib.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from engine.errors import UsageError
from engine.resources import cache_dir, write_atomically

_ENGINE_DIR = Path(__file__).resolve().parent
# Every file the compiled module is generated from; a change to any of them retires the cache.
FORMULA_SOURCES = ("formulas.py", "workloads.py", "runtime_models.py", "memory_models.py", "compiler.py")


@dataclass(frozen=True)
class QuantityInfo:
    name: str
    unit: str
    doc: str
    formula: str  # e.g. "flops/system_flops"
    template: str  # e.g. "{flops}/{system_flops}"
    args: tuple[str, ...]
    labels: tuple[str, ...] | None


@cache
def formula_cache_key() -> str:
    """A hash of every file the compiled formulas come from."""
    digest = hashlib.sha256()
    for name in FORMULA_SOURCES:
        digest.update((_ENGINE_DIR / name).read_bytes())
    return digest.hexdigest()[:16]


@cache
def compiled_module(vector: bool = False) -> ModuleType:
    """The compiled formula module, generated with sympy only when the cache lacks it."""
    path = cache_dir() / f"formulas_{'vector' if vector else 'scalar'}_{formula_cache_key()}.py"
    if not path.exists():
        from engine.compiler import generate_source

        write_atomically(path, generate_source(vector).encode())
    spec = importlib.util.spec_from_file_location(f"perfdrill_compiled_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@cache
def info(workload: str, name: str) -> QuantityInfo:
    """Unit, meaning and formula text of a computed quantity or an input."""
    module = compiled_module()
    if name in module.TABLE.get(workload, {}):
        unit, doc, formula, template, labels = module.META[f"{name}@{workload}"]
        return QuantityInfo(name, unit, doc, formula, template, module.TABLE[workload][name][1], labels)
    if name in module.INPUTS:
        unit, doc = module.INPUTS[name]
        return QuantityInfo(name, unit, doc, name, "{" + name + "}", (), None)
    raise UsageError(f"unknown quantity {name!r} in workload {workload!r}")


def evaluate(
    workload: str, inputs: Mapping[str, Any], wanted: list[str], *, vector: bool = False
) -> dict[str, Any]:
    """Values of `wanted` (and everything they need), computing only what `inputs` does not give.

    Any computed quantity present in `inputs` is an override: `params` given directly wins over
    the architecture. Values are floats in base units, or numpy arrays when `vector` is true.
    """
    values: dict[str, Any] = dict(inputs)
    fill(workload, values, wanted, vector=vector)
    return values


def fill(workload: str, values: dict[str, Any], wanted: list[str], *, vector: bool = False) -> None:
    """Compute `wanted` into `values` in place, reusing whatever `values` already holds."""
    table: dict[str, tuple[Callable[..., Any], tuple[str, ...]]] = compiled_module(vector).TABLE[workload]

    def need(name: str, chain: tuple[str, ...]) -> Any:
        if name in values:
            return values[name]
        if name not in table:
            wanted_by = f" (needed by {chain[-1]})" if chain else ""
            raise UsageError(f"missing input {name!r}{wanted_by}")
        function, args = table[name]
        values[name] = function(*(need(arg, (*chain, name)) for arg in args))
        return values[name]

    for name in wanted:
        need(name, ())
