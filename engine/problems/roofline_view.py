"""A variant on the roofline: the chip's roof (and any scenario's) and where each operation sits.

The TUI chart and the printed plots both draw this; every number is an engine quantity
(`system_flops`, `system_bandwidth`, `ridge_point`, `*arithmetic_intensity`, `*attainable_flops`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from perfdrill.engine.errors import PerfdrillError
from perfdrill.engine.model.evaluation import computed
from perfdrill.engine.problems.variants import Variant

# Operation prefixes a workload may define a roofline for, and what to call them on a chart.
OPERATIONS = {"": "operation", "prefill_": "prefill", "weights_": "weight matmuls", "attention_": "attention"}


@dataclass(frozen=True)
class Roof:
    label: str
    peak_flops: float  # FLOP/s
    bandwidth: float  # byte/s
    ridge_point: float  # FLOP/byte


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


def roofline_view(variant: Variant) -> RooflineView | None:
    """The roofs and operating points of `variant`, or None for a question with no roofline."""
    table = computed(variant.template.workload)
    if "ridge_point" not in table:
        return None
    roofs: list[Roof] = []
    points: list[OperatingPoint] = []
    for scope in (None, *variant.template.scenarios):
        suffix = f" ({scope})" if scope else ""
        try:
            roof = Roof(
                f"roof{suffix}",
                float(variant.lookup("system_flops", scope)),
                float(variant.lookup("system_bandwidth", scope)),
                float(variant.lookup("ridge_point", scope)),
            )
        except (PerfdrillError, ArithmeticError, TypeError, ValueError):
            return None  # no chip in this question: nothing to draw
        new = all((r.peak_flops, r.bandwidth) != (roof.peak_flops, roof.bandwidth) for r in roofs)
        if new and _positive(roof.peak_flops) and _positive(roof.bandwidth):
            roofs.append(roof)  # a scenario that changes the chip's roof gets its own line
        for prefix, name in OPERATIONS.items():
            if prefix + "arithmetic_intensity" not in table:
                continue
            try:
                intensity = _positive(float(variant.lookup(prefix + "arithmetic_intensity", scope)))
                attainable = _positive(float(variant.lookup(prefix + "attainable_flops", scope)))
            except (PerfdrillError, ArithmeticError, TypeError, ValueError):
                continue
            if intensity is None or attainable is None:
                continue
            if any(p.intensity == intensity and p.attainable == attainable for p in points):
                continue  # a scenario that leaves this operation where it was
            points.append(OperatingPoint(name + suffix, intensity, attainable))
    if not roofs or not points:
        return None
    return RooflineView(tuple(roofs), tuple(points))
