"""Where measured runtimes go when code misses its roofline: launch overhead, host copies, Python
loops and the fp32 path, plus the seeds' rule for judging a measurement.

These are the documented inefficiency model behind the "does my runtime make sense?" family:
each cause is one formula, and a synthetic measurement is that formula's time divided by an
achieved fraction drawn by the template.
"""

from __future__ import annotations

from sympy import Max, Piecewise

from perfdrill.engine.model.formulas import SYM, define, q

OVERHEAD = [
    define(
        "launch_time",
        SYM["kernels"] * SYM["launch_overhead"],
        "s",
        "CPU time to dispatch every kernel of the chain",
    ),
    define(
        "eager_runtime",
        Max(q("launch_time"), q("unfused_memory_time")),
        "s",
        "eager mode: one kernel per op; the CPU queues kernels while the GPU runs, so the slower wins",
    ),
    define(
        "graph_runtime",
        SYM["launch_overhead"] + q("unfused_memory_time"),
        "s",
        "a CUDA graph replays the whole chain with one launch; the kernels still run unfused",
    ),
    define(
        "regime",
        Piecewise((2, q("launch_time") > q("unfused_memory_time")), (q("bound"), True)),
        "1",
        "overhead-bound when dispatching kernels takes longer than running them",
        labels=("memory-bound", "compute-bound", "overhead-bound"),
        shown="overhead if launch_time > unfused_memory_time else bound",
    ),
    define(
        "overhead_break_even_elements",
        SYM["launch_overhead"]
        * q("system_bandwidth")
        / ((SYM["inputs"] + SYM["outputs"]) * SYM["activation_bytes"]),
        "1",
        "elements at which one kernel's memory time equals its launch cost",
    ),
]

HOST_COPY = [
    define(
        "host_copy_time",
        q("bytes") / SYM["host_link_bandwidth"],
        "s",
        "inputs copied to the chip and outputs back over the host link",
    ),
    define(
        "copy_runtime",
        q("runtime") + q("host_copy_time"),
        "s",
        "the copies and the kernel run one after the other",
    ),
]

PYTHON_LOOP = [
    define(
        "loop_runtime",
        Max(SYM["loop_iterations"] * q("launch_time"), q("unfused_memory_time")),
        "s",
        "every iteration launches the chain's kernels on a small slice",
    ),
]

FP32_MATMUL = [
    define(
        "fp32_bytes",
        (SYM["m"] * SYM["k"] + SYM["k"] * SYM["n"] + SYM["m"] * SYM["n"]) * 4,
        "byte",
        "the same matmul with 4-byte fp32 operands",
    ),
    define(
        "fp32_runtime",
        Max(
            q("flops") / (SYM["chips"] * SYM["fp32_peak_flops"] * SYM["mfu"]),
            q("fp32_bytes") / q("system_bandwidth"),
        ),
        "s",
        "roofline of the fp32 path: CUDA cores instead of bf16 tensor cores",
    ),
]

# The seeds' rule: an order of magnitude slower than expected means look for inefficiencies.
SLOWDOWN_THRESHOLD = 10
VERDICT = [
    define(
        "slowdown",
        SYM["measured_runtime"] / q("runtime"),
        "1",
        "how many times slower than the roofline the measurement is",
    ),
    define(
        "verdict",
        Piecewise((1, q("slowdown") >= SLOWDOWN_THRESHOLD), (0, True)),
        "1",
        f"an order of magnitude ({SLOWDOWN_THRESHOLD}x) slower means look for inefficiencies",
        labels=("makes sense", "look for inefficiencies"),
        shown=f"look for inefficiencies if slowdown ≥ {SLOWDOWN_THRESHOLD} else makes sense",
    ),
    define(
        "next_step",
        q("bound"),
        "1",
        "memory-bound: move fewer bytes; compute-bound: at peak, only less work lowers latency",
        labels=(
            "move fewer bytes: downcast or quantize",
            "at peak: shrink the batch or the FLOPs for latency",
        ),
        shown="move fewer bytes if memory-bound else shrink the work",
    ),
]
