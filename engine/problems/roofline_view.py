"""A variant on the roofline: the roof of the chip and dtype it runs on, and the question's own
operations, each labelled as a person would name it.

An operation belongs on the chart only when the question's answers use its FLOPs and bytes: a
capacity question (does the KV cache fit?) has no point, and a part that sweeps an input (which
row counts are compute-bound?) plots one point per swept value. The TUI chart and the printed
plots both draw this; every number is an engine quantity (`system_flops`, `system_bandwidth`,
`ridge_point`, `*arithmetic_intensity`, `*attainable_flops`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Container, Iterable
from dataclasses import dataclass
from typing import Any

from perfdrill.engine.errors import PerfdrillError
from perfdrill.engine.model.evaluation import computed, info
from perfdrill.engine.model.units import format_quantity
from perfdrill.engine.problems.explanation import scenario_change
from perfdrill.engine.problems.variants import Variant

Values = Callable[[str], Any]  # a quantity's value where the operation is looked at


def _count(value: Any) -> str:
    return format_quantity(float(value), "1", digits=4)


@dataclass(frozen=True)
class Operation:
    """One operation a workload can put on the roofline: its work is `{prefix}flops`, its traffic
    `{prefix}bytes`, or the quantity `traffic` when it moves other bytes than the roofline's."""

    prefix: str
    name: Callable[[str, Values], str]  # (workload, values) -> the label a person reads
    traffic: str | None = None
    workloads: tuple[str, ...] | None = None  # None: any workload that computes its quantities
    # Not plotted when the answers use one of these, unless they ask about the operation itself:
    # the traffic the working uses is then not the roofline's (an unfused chain; weights in L2).
    unless: tuple[str, ...] = ()

    @property
    def bytes(self) -> str:
        return self.traffic or self.prefix + "bytes"


def _prefill(values: Values) -> str:
    batch = float(values("batch"))
    prompts = f"{_count(batch)} prompts" if batch != 1 else "one prompt"
    return f"prefill, {prompts} of {_count(values('prompt'))} tokens"


def _main_operation(workload: str, values: Values) -> str:
    if workload == "matmul":
        return f"matmul m={_count(values('m'))} · k={_count(values('k'))} · n={_count(values('n'))}"
    if workload == "elementwise":
        kernels = float(values("kernels"))
        return f"{_count(kernels)} ops fused into one kernel" if kernels > 1 else "the kernel"
    if workload.startswith("prefill"):
        return _prefill(values)
    return f"decode step, batch {_count(values('batch'))}"


OPERATIONS = (
    Operation("", _main_operation, unless=("unfused_bytes", "repeat_hbm_bytes")),
    Operation(
        "",
        lambda _, v: f"the chain run eagerly: {_count(v('kernels'))} kernels",
        traffic="unfused_bytes",
        workloads=("elementwise",),
    ),
    Operation("prefill_", lambda _, v: _prefill(v)),
    Operation("weights_", lambda _, v: f"weight matmuls, batch {_count(v('batch'))}"),
    Operation("attention_", lambda _, v: f"attention over the KV cache, batch {_count(v('batch'))}"),
)


@dataclass(frozen=True)
class Roof:
    label: str
    peak_flops: float  # FLOP/s
    bandwidth: float  # byte/s
    ridge_point: float  # FLOP/byte
    what_if: str = ""  # a scenario's roof: what it changes, e.g. "what-if: memory bandwidth … ×2"


@dataclass(frozen=True)
class OperatingPoint:
    label: str
    intensity: float  # FLOP/byte
    attainable: float  # FLOP/s the roof allows at that intensity


@dataclass(frozen=True)
class RooflineView:
    roofs: tuple[Roof, ...]  # the variant's own roof first
    points: tuple[OperatingPoint, ...]


def _positive(value: float) -> float | None:
    return value if math.isfinite(value) and value > 0 else None


def _closure(workload: str, names: Iterable[str], given: Container[str] = ()) -> set[str]:
    """`names` and every computed quantity they are worked out from. A `given` quantity (a time
    the prompt states) is used as it stands: what it would be worked out from is not."""
    table = set(computed(workload))
    seen: set[str] = set()
    stack = [name for name in names if name in table]
    while stack:
        name = stack.pop()
        if name not in seen:
            seen.add(name)
            if name not in given:
                stack.extend(arg for arg in info(workload, name).args if arg in table)
    return seen


# What `roofline(prefix)` (engine/model/roofline.py) defines for one operation, besides its FLOPs and bytes.
_ROOFLINE_QUANTITIES = (
    "arithmetic_intensity",
    "compute_time",
    "memory_time",
    "runtime",
    "runtime_no_overlap",
    "bound",
    "attainable_flops",
)


def _own_quantities(op: Operation) -> set[str]:
    return {op.prefix + "flops", op.bytes, *(op.prefix + name for name in _ROOFLINE_QUANTITIES)}


def _operations(workload: str, asked: set[str], used: set[str]) -> list[Operation]:
    """The operations whose work and traffic the answers are worked out from."""
    table = set(computed(workload))
    return [
        op
        for op in OPERATIONS
        if (op.workloads is None or workload in op.workloads)
        and {op.prefix + "flops", op.bytes, op.prefix + "attainable_flops"} <= table
        and (op.bytes in used or (op.traffic is None and op.prefix + "flops" in used))
        and not (used.intersection(op.unless) and not asked & _own_quantities(op))
    ]


def _point(op: Operation, look: Variant, scope: str | None, label: str) -> OperatingPoint | None:
    """Where `op` sits, from the engine's own intensity and attainable FLOP/s."""
    if op.traffic is not None:  # the roofline formulas, fed the bytes this operation really moves
        traffic = float(look.lookup(op.traffic, scope))
        look = Variant(look.template, look.params, {**look.inputs, op.prefix + "bytes": traffic})
    intensity = _positive(float(look.lookup(op.prefix + "arithmetic_intensity", scope)))
    attainable = _positive(float(look.lookup(op.prefix + "attainable_flops", scope)))
    if intensity is None or attainable is None:
        return None
    return OperatingPoint(label, intensity, attainable)


def _scenario(variant: Variant, key: str, default: Any) -> Any:
    value = variant.template.scenario.get(key, default)
    return variant.params[value] if isinstance(value, str) and value in variant.params else value


def _dtype_drawn(variant: Variant, chip: Any, peak: float, scope: str | None = None) -> str:
    """The dtype whose peak the roof draws: one a what-if names (`peak_flops: int8_peak_flops`,
    even where fp8's peak is the same), else the question's own. A what-if that scales the peak
    ("twice the peak FLOP/s") draws a chip that does not exist, in the question's dtype: never
    another dtype whose peak happens to match (an H100's doubled bf16 peak is not int8)."""
    dtype = _scenario(variant, "dtype", "bf16")
    peaks = getattr(chip, "peak_flops", {})
    setting = variant.template.scenarios.get(scope or "", {}).get("peak_flops")
    named = re.fullmatch(r"\s*(\w+?)_peak_flops\s*", getattr(setting, "text", "") or "")
    if named and named[1] in peaks and math.isclose(peaks[named[1]].value, peak):
        return named[1]
    return str(dtype)


def _roof_label(variant: Variant, scope: str | None = None) -> str:
    """The roof a setting draws, named by what sets it: "4 × H100 SXM, bf16 at 50% MFU"."""
    chip = _scenario(variant, "chip", None)
    name = getattr(chip, "name", "the chip")

    def value(key: str, default: float) -> float:
        try:
            return float(variant.lookup(key, scope))
        except (PerfdrillError, KeyError):
            return default

    chips, mfu = round(value("chips", 1)), value("mfu", 1.0)
    label = f"{chips} × {name}" if chips > 1 else name
    label += f", {_dtype_drawn(variant, chip, value('peak_flops', math.nan), scope)}"
    return label + (f" at {mfu:.0%} MFU" if mfu < 1 else "")


# What a model swap brings with it: a template may pin the new model's counts as the prompt shows them.
_MODEL_COUNTS = ("params", "active_params")


def _model_name(variant: Variant, scope: str | None) -> str:
    """The model a scope runs: its own swap ("draft"), else the question's."""
    swapped = variant.template.scenario_specs.get(scope or "", {}).get("model")
    model = variant.params.get(swapped) if swapped else _scenario(variant, "model", None)
    return str(getattr(model, "name", "the model"))


def what_if_names(variant: Variant) -> dict[str, str]:
    """Each what-if scenario as a person reads it, e.g. "what-if: twice the memory bandwidth"."""
    return {
        scope: f"what-if: {scenario_change(variant.template, variant, scope)}"
        for scope in variant.template.scenarios
    }


def roofline_view(variant: Variant) -> RooflineView | None:
    """The roofs and the question's operating points, or None when no answer uses an operation."""
    template = variant.template
    workload = template.workload
    if "ridge_point" not in computed(workload):
        return None
    asked: dict[str | None, set[str]] = {}
    sweeps: list[tuple[str, tuple[float, ...], set[str]]] = []
    for part in template.parts:
        if part.answer is None:
            continue
        if part.sweep is not None:
            sweeps.append((part.sweep, part.sweep_values, {name for _, name in part.answer.names}))
            continue
        # Sorted: `names` is a set, and the order scopes are met in orders the plot's points and
        # legend, which must not change with Python's hash seed.
        for scope, name in sorted(part.answer.names, key=lambda pair: (pair[0] or "", pair[1])):
            asked.setdefault(scope, set()).add(name)
    # (scope, inputs replaced, label suffix) for each place an operation is looked at.
    places: list[tuple[str | None, dict[str, float], str, list[Operation]]] = []
    what_if = what_if_names(variant)
    for scope, names in asked.items():
        used = _closure(workload, names, variant.inputs)
        suffix = f" ({what_if[scope]})" if scope else ""
        places.append((scope, {}, suffix, _operations(workload, names, used)))
    for sweep, swept, names in sweeps:
        operations = _operations(workload, names, _closure(workload, names, variant.inputs))
        places += [(None, {sweep: value}, "", operations) for value in swept]
    # Two models on one chart (a draft and its target): each point names its model.
    two_models = any("model" in template.scenario_specs.get(scope or "", {}) for scope in asked)
    roofs: list[Roof] = []
    points: list[OperatingPoint] = []
    for scope, replaced, suffix, operations in places:
        if not operations:
            continue
        look = Variant(template, variant.params, {**variant.inputs, **replaced}) if replaced else variant
        try:
            flops, bandwidth = (
                float(look.lookup("system_flops", scope)),
                float(look.lookup("system_bandwidth", scope)),
            )
            own = (
                float(variant.lookup("system_flops", None)),
                float(variant.lookup("system_bandwidth", None)),
            )
        except (PerfdrillError, ArithmeticError, TypeError, ValueError):
            return None  # no chip in this question: nothing to draw
        moves_roof = scope is not None and not all(map(math.isclose, (flops, bandwidth), own))
        # a what-if names the roof only when it draws another one (batch 1 leaves the roof alone)
        roof = Roof(
            _roof_label(look, scope if moves_roof else None) + (suffix if moves_roof else ""),
            flops,
            bandwidth,
            flops / bandwidth,
            what_if[scope] if moves_roof and scope else "",
        )
        if not (_positive(roof.peak_flops) and _positive(roof.bandwidth)):
            continue
        if all((r.peak_flops, r.bandwidth) != (roof.peak_flops, roof.bandwidth) for r in roofs):
            roofs.insert(0 if scope is None else len(roofs), roof)  # the variant's own roof first

        def values(name: str, look: Variant = look, scope: str | None = scope) -> Any:
            return look.lookup(name, scope)

        changed = {*template.scenarios.get(scope or "", {}), *template.scenario_specs.get(scope or "", {})}

        for op in operations:
            read: set[str] = set()

            def reading(name: str, read: set[str] = read) -> Any:
                read.add(name)
                return values(name)

            try:
                label = op.name(workload, reading)
            except PerfdrillError:  # a template that gives FLOPs and bytes outright, not a shape
                label = "the kernel"
            if two_models:
                label += f", {_model_name(variant, scope)}"
                read.update(("model", *_MODEL_COUNTS))
            # "decode step, batch 11" already says what a what-if setting the batch to 11 changes
            shown = scope is not None and changed <= read
            try:
                point = _point(op, look, scope, label + ("" if shown else suffix))
            except (PerfdrillError, ArithmeticError, TypeError, ValueError):
                continue
            if point is None or any(
                math.isclose(p.intensity, point.intensity) and math.isclose(p.attainable, point.attainable)
                for p in points
            ):
                continue  # a scenario that leaves this operation where it was
            points.append(point)
    if not roofs or not points:
        return None
    return RooflineView(tuple(roofs), tuple(points))
