"""perfdrill.calc: every `perfdrill calc` subcommand as a Python function, over the same engine.

    >>> import perfdrill
    >>> step = perfdrill.calc.decode(model="llama-3.1-8b", chip="h100-sxm", batch=64, context=4096)
    >>> step.step_time            # Result(value=0.01505..., unit='s')
    >>> step.to_dict()            # the document `perfdrill calc decode --json` prints

Options are the command's flags as keywords (`--kv-bytes-per-token` is `kv_bytes_per_token`,
`--no-overlap` is `no_overlap=True`). A value is text as typed on the command line ("3.35 TB/s",
"15e12"), or a number in base units (bytes, seconds, FLOP/s). A numpy array, or a list, evaluates
every element at once (arrays broadcast together): `decode(..., batch=np.arange(1, 4097))`.
Bad input raises perfdrill.engine.UsageError with the same one line the command prints.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from perfdrill.engine import UsageError
from perfdrill.engine.model import SpecBook, display, evaluate_available, format_quantity, load_specs

# The version of the JSON document (`--json`, `to_dict()`); docs/calc-json.md lists each change.
SCHEMA = 2

__all__ = ["SCHEMA", "Result", "Results", "run", "subcommands"]


@dataclass(frozen=True)
class Result:
    """One result: its value in base units (a number, a label such as "memory", a yes/no as a bool,
    or an array of these for array inputs) and the unit (None for a label)."""

    value: Any
    unit: str | None
    quantity: str = field(repr=False, compare=False, default="")
    workload: str = field(repr=False, compare=False, default="")

    def __float__(self) -> float:
        return float(self.value)

    def __str__(self) -> str:
        """As the command's table writes it: "15.1 ms", "memory", "yes"."""
        if isinstance(self.value, bool):
            return "yes" if self.value else "no"
        if isinstance(self.value, str) or hasattr(self.value, "shape"):
            return str(self.value)
        if not self.quantity:  # a measurement, not a formula's result
            return format_quantity(self.value, self.unit or "1")
        return display(self.workload, self.quantity, self.value)

    def to_dict(self) -> dict[str, Any]:
        value = self.value.tolist() if hasattr(self.value, "tolist") else self.value
        return {"value": value, "unit": self.unit}


@dataclass(frozen=True)
class Results(Mapping[str, Result]):
    """A calculation's results by the contract's names (`results.step_time`, `results["fits"]`), the
    inputs it used, the results it could not compute with the options that would give them, and notes."""

    subcommand: str
    inputs: dict[str, Any]
    results: dict[str, Result]
    omitted: dict[str, list[str]]
    notes: list[str]
    # What the table and the array path need besides the contract: every value computed on the
    # way (for --explain), why each omitted result is missing, and the formula inputs used.
    evaluated: dict[str, Any] = field(repr=False, compare=False, default_factory=dict)
    reasons: dict[str, str] = field(repr=False, compare=False, default_factory=dict)
    formula_inputs: dict[str, Any] = field(repr=False, compare=False, default_factory=dict)

    def __getitem__(self, name: str) -> Result:
        return self.results[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.results)

    def __len__(self) -> int:
        return len(self.results)

    def __getattr__(self, name: str) -> Result:
        results = self.__dict__.get("results", {})
        if name in results:
            return results[name]
        raise AttributeError(f"calc {self.__dict__.get('subcommand')} has no result {name!r}")

    def to_dict(self) -> dict[str, Any]:
        """The document `perfdrill calc SUBCOMMAND --json` prints (arrays as lists)."""
        return {
            "schema": SCHEMA,
            "inputs": {k: v.tolist() if hasattr(v, "tolist") else v for k, v in self.inputs.items()},
            "results": {name: result.to_dict() for name, result in self.results.items()},
            "omitted": self.omitted,
            "notes": self.notes,
        }


def subcommands() -> list[str]:
    """The subcommands callable here, as `perfdrill.calc.<name with _ for ->`."""
    from perfdrill.engine.calc.table import SUBCOMMANDS

    return [name.replace("-", "_") for name, spec in SUBCOMMANDS.items() if spec.runner is None]


def run(subcommand: str, /, *, specs: tuple[str | Path, ...] = (), **options: Any) -> Results:
    """`perfdrill calc SUBCOMMAND` with `options` as its flags; `specs`: extra folders of spec YAML."""
    from perfdrill.engine.calc.table import SUBCOMMANDS

    name = subcommand.replace("_", "-")
    spec = SUBCOMMANDS.get(name)
    if spec is None or spec.runner is not None:
        raise UsageError(f"no calc subcommand {subcommand!r}; known: {', '.join(subcommands())}")
    known = {option.dest: option for option in spec.all_options()}
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise UsageError(f"calc {name} has no option {', '.join(unknown)}; it takes {', '.join(known)}")
    missing = [dest for dest, option in known.items() if option.required and options.get(dest) is None]
    if missing:
        raise UsageError(f"calc {name} needs {', '.join(missing)}")
    for dest, value in options.items():  # what argparse checks for the command
        choices = known[dest].choices
        if choices is not None and value is not None and value not in choices:
            raise UsageError(f"calc {name}: {dest}={value!r} is not one of {', '.join(choices)}")
    arrays = {dest: value for dest, value in options.items() if _is_array(value)}
    book = _book(tuple(Path(p) for p in specs))
    if arrays:
        from perfdrill.calc_arrays import run_arrays

        return run_arrays(spec, options, arrays, partial(_scalar, spec, book=book))
    return _scalar(spec, options, book=book)


def _scalar(spec: Any, options: Mapping[str, Any], *, book: SpecBook) -> Results:
    args = argparse.Namespace(specs=[])
    for option in spec.all_options():
        setattr(args, option.dest, _as_text(options.get(option.dest), option.switch))
    return compute(spec, args, book)


def compute(spec: Any, args: argparse.Namespace, book: SpecBook) -> Results:
    """One calculation from parsed options: the command's and the API's one path."""
    from perfdrill.engine.calc.omitted import nothing_computed
    from perfdrill.engine.calc.prepare import prepare
    from perfdrill.engine.calc.results import json_value

    pairs = spec.pairs(args)
    calculation = prepare(spec, args, [q for _, q in pairs], book)
    workload = calculation.workload
    available = evaluate_available(workload, calculation.inputs, [q for _, q in pairs])
    omitted: dict[str, list[str]] = {}
    reasons: dict[str, str] = {}
    results: dict[str, Result] = {}
    for result, quantity in pairs:
        if quantity in available.values:
            shown = json_value(workload, quantity, available.values[quantity])
            results[result] = Result(shown["value"], shown["unit"], quantity, workload)
        else:
            omitted[result], reasons[result] = calculation.hints.omission(result, quantity, available)
    if not results:
        raise nothing_computed(omitted, reasons)
    notes = list(calculation.notes)
    if spec.name == "matmul":  # where XLA measured the shape, its time beside the roofline's
        from perfdrill.engine.calc.measured import matmul_measured

        measured, measured_notes = matmul_measured(calculation.echo, available.values)
        results.update({name: Result(m["value"], m["unit"]) for name, m in measured.items()})
        notes += measured_notes
    return Results(
        spec.name,
        calculation.echo,
        results,
        omitted,
        notes,
        available.values,
        reasons,
        calculation.inputs,
    )


_BOOKS: dict[tuple[Path, ...], SpecBook] = {}


def _book(extra: tuple[Path, ...]) -> SpecBook:
    """The spec book, loaded once per process for each set of extra folders."""
    if extra not in _BOOKS:
        _BOOKS[extra] = load_specs(extra)
    return _BOOKS[extra]


def _is_array(value: Any) -> bool:
    return isinstance(value, (list, tuple)) or getattr(value, "ndim", 0) > 0


def _as_text(value: Any, switch: bool) -> Any:
    """A keyword's value as the command line would carry it: numbers as exact text, switches as bools."""
    if switch or value is None or isinstance(value, str):
        return bool(value) if switch else value
    if isinstance(value, bool):
        raise UsageError(f"{value!r} is not a number")
    if float(value).is_integer() and abs(float(value)) < 2**63:
        return str(int(value))
    return repr(float(value))


def __getattr__(name: str) -> Callable[..., Results]:
    if name.startswith("_") or name.replace("_", "-") not in _table():
        raise AttributeError(f"module 'perfdrill.calc' has no attribute {name!r}")
    function = partial(run, name)
    function.__doc__ = f"`perfdrill calc {name.replace('_', '-')}` as a function; see run()."
    return function


def _table() -> Mapping[str, Any]:
    from perfdrill.engine.calc.table import SUBCOMMANDS

    return {n: s for n, s in SUBCOMMANDS.items() if s.runner is None}


def __dir__() -> list[str]:
    return sorted([*__all__, *subcommands()])
