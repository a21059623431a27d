"""The system's roofs and the roofline of one operation: which of compute and memory bounds it."""

from __future__ import annotations

import sympy
from sympy import Max, Min, Piecewise

from perfdrill.engine.model.formulas import SYM, Formula, define, q

SYSTEM = [
    define(
        "system_flops",
        SYM["chips"] * SYM["peak_flops"] * SYM["mfu"],
        "FLOP/s",
        "FLOP/s of all chips at the achieved fraction of peak",
        label="system FLOP/s",
    ),
    define(
        "system_bandwidth",
        SYM["chips"] * SYM["memory_bandwidth"] * SYM["mbu"],
        "byte/s",
        "memory bandwidth of all chips at the achieved fraction of peak",
        label="system bandwidth",
    ),
    define(
        "system_memory",
        SYM["chips"] * SYM["memory_capacity"],
        "byte",
        "memory of all chips",
        label="system memory",
    ),
    define(
        "ridge_point",
        q("system_flops") / q("system_bandwidth"),
        "FLOP/byte",
        "the intensity where compute time equals memory time",
        label="ridge point",
    ),
]

_BOUND_LABELS = ("memory", "compute")


def roofline(prefix: str = "") -> list[Formula]:
    """The roofline of one operation whose work is `{prefix}flops` and traffic `{prefix}bytes`."""

    def p(name: str) -> sympy.Symbol:
        return q(prefix + name)

    of = prefix.replace("_", " ")  # "prefill compute time"
    return [
        define(
            prefix + "arithmetic_intensity",
            p("flops") / p("bytes"),
            "FLOP/byte",
            "FLOPs per byte moved",
            label=f"{of}arithmetic intensity",
        ),
        define(
            prefix + "compute_time",
            p("flops") / q("system_flops"),
            "s",
            "time if only the math mattered",
            label=f"{of}compute time",
        ),
        define(
            prefix + "memory_time",
            p("bytes") / q("system_bandwidth"),
            "s",
            "time if only the memory traffic mattered",
            label=f"{of}memory time",
        ),
        define(
            prefix + "runtime",
            Max(p("compute_time"), p("memory_time")),
            "s",
            "roofline: the slower of compute and memory, which overlap",
            label=f"{of}runtime",
        ),
        define(
            prefix + "runtime_no_overlap",
            p("compute_time") + p("memory_time"),
            "s",
            "pessimistic: compute and memory do not overlap",
            label=f"{of}runtime without overlap",
        ),
        define(
            prefix + "bound",
            Piecewise((1, p("compute_time") >= p("memory_time")), (0, True)),
            "1",
            "which of the two takes longer",
            labels=_BOUND_LABELS,
            shown=f"compute if {prefix}compute_time ≥ {prefix}memory_time else memory",
            label=f"{of}bound",
            phrases=(f"{of}memory-bound", f"{of}compute-bound"),
        ),
        attainable_flops(p("arithmetic_intensity"), prefix),
    ]


def bound_at_intensity() -> Formula:
    """Which roof bounds a kernel known only by its intensity: the math's above the ridge point."""
    return define(
        "bound",
        Piecewise((1, SYM["arithmetic_intensity"] >= q("ridge_point")), (0, True)),
        "1",
        "compute-bound at or above the ridge point",
        labels=_BOUND_LABELS,
        shown="compute if arithmetic_intensity ≥ ridge_point else memory",
        label="bound",
        phrases=("memory-bound", "compute-bound"),
    )


def attainable_flops(intensity: sympy.Expr, prefix: str = "") -> Formula:
    """The roof at `intensity`: the bandwidth's slope below the ridge point, the peak above it."""
    return define(
        prefix + "attainable_flops",
        Min(q("system_flops"), intensity * q("system_bandwidth")),
        "FLOP/s",
        "the roof at this intensity",
        label=f"{prefix.replace('_', ' ')}attainable FLOP/s",
    )
