"""Kernel-level effects on a matmul: wave quantization, occupancy at tiny batch, L2-resident weights.

Each sits on top of the matmul workload (m x k activations times a k x n weight). The models are the
napkin ones an interviewer expects, with their assumptions stated in the questions: one thread block
per SM at a time, each busy SM streaming at most its 1/SM share of HBM bandwidth, and weights that
fit in L2 served from L2 after the first call. Sources: NVIDIA "Matrix Multiplication Background
User's Guide" (tiles, waves, and wave quantization on A100's 108 SMs); SM counts and L2 sizes from
shared/reference/specs_reference.yaml.
"""

from __future__ import annotations

from sympy import Max, Min, Piecewise, ceiling, floor, sqrt

from perfdrill.engine.model.evaluation import CountRule
from perfdrill.engine.model.formulas import SYM, define, q

_SMS = SYM["sm_count"]

WAVES = [
    define(
        "output_tiles",
        ceiling(SYM["m"] / SYM["tile_m"]) * ceiling(SYM["n"] / SYM["tile_n"]),
        "1",
        "thread blocks of the GEMM: one per tile_m x tile_n tile of the m x n output",
        exact=True,
    ),
    define(
        "waves",
        ceiling(q("output_tiles") / _SMS),
        "1",
        "rounds of one tile per SM it takes to run every tile",
        exact=True,
    ),
    define(
        "wave_efficiency",
        q("output_tiles") / (q("waves") * _SMS),
        "1",
        "share of the waves' SM slots that hold a tile",
    ),
    define(
        "tile_time",
        2 * SYM["tile_m"] * SYM["tile_n"] * SYM["k"] * _SMS / (SYM["peak_flops"] * SYM["mfu"]),
        "s",
        "one tile on one SM: 2·tile_m·tile_n·k FLOPs at 1/SM of the achieved FLOP/s",
    ),
    define(
        "wave_quantized_time",
        q("waves") * q("tile_time"),
        "s",
        "compute-bound GEMM time: every wave takes one tile's time, however full it is",
    ),
    define(
        "wave_slowdown",
        q("wave_quantized_time") / q("compute_time"),
        "1",
        "how much longer the waves take than 2·m·n·k FLOPs spread perfectly over every SM",
    ),
]

_ROW_BLOCKS = ceiling(SYM["n"] / SYM["rows_per_block"])

OCCUPANCY = [
    define("wave_slots", _SMS, "1", "thread blocks the GPU runs at once: one per SM"),
    define(
        "gemv_blocks",
        _ROW_BLOCKS * SYM["split_k"],
        "1",
        "thread blocks launched: one per rows_per_block outputs, times the split-K factor",
        exact=True,
    ),
    define(
        "busy_sm_fraction",
        Min(1, q("gemv_blocks") / _SMS),
        "1",
        "share of the SMs that get a thread block",
    ),
    define(
        "occupancy_memory_time",
        q("bytes") / (SYM["memory_bandwidth"] * SYM["mbu"] * q("busy_sm_fraction")),
        "s",
        "memory time when only the busy SMs stream, each at most its 1/SM share of the bandwidth",
    ),
    define(
        "split_k_to_fill",
        ceiling(_SMS / _ROW_BLOCKS),
        "1",
        "smallest split-K factor that gives every SM a thread block",
        exact=CountRule(
            "split_k",
            False,
            "wave_slots",
            "gemv_blocks",
            fails="split-K {value} launches {have} blocks for {need} SMs",
            holds="split-K {value} already launches {have} blocks for {need} SMs, so a smaller "
            "split fills them too",
        ),
    ),
]

_WEIGHTS = SYM["k"] * SYM["n"] * SYM["weight_bytes_per_param"]
_HBM = SYM["memory_bandwidth"] * SYM["mbu"]

L2_REUSE = [
    define("weight_matrix_bytes", _WEIGHTS, "byte", "the k x n weight matrix"),
    define(
        "weights_fit_l2",
        Piecewise((1, q("weight_matrix_bytes") <= SYM["l2_cache_bytes"]), (0, True)),
        "1",
        "whether the weights fit in L2 and so stay there between calls",
        labels=("no: every call reads them from device memory", "yes: later calls read them from L2"),
        shown="yes if weight_matrix_bytes ≤ l2_cache_bytes else no",
    ),
    define(
        "repeat_hbm_bytes",
        (SYM["m"] * SYM["k"] + SYM["m"] * SYM["n"]) * SYM["activation_bytes"]
        + (1 - q("weights_fit_l2")) * q("weight_matrix_bytes"),
        "byte",
        "device-memory traffic of a repeated call: activations, and the weights only if they left L2",
        # HBM on most chips, GDDR on a T4, L4 or RTX 4090: the label names neither
        label="repeat device-memory bytes",
    ),
    define(
        "repeat_memory_time",
        q("repeat_hbm_bytes") / _HBM
        + q("weights_fit_l2") * q("weight_matrix_bytes") / (SYM["l2_bandwidth_ratio"] * _HBM),
        "s",
        "device-memory reads at its bandwidth plus L2-resident weights at L2's faster rate",
    ),
    define(
        "repeat_runtime",
        Max(q("compute_time"), q("repeat_memory_time")),
        "s",
        "roofline time of a repeated call: the slower of compute and its memory reads",
    ),
    define(
        "l2_speedup",
        q("runtime") / q("repeat_runtime"),
        "1",
        "how much faster a repeated call is than one that reads everything from HBM",
    ),
    define(
        "l2_weight_capacity",
        SYM["l2_cache_bytes"] / SYM["weight_bytes_per_param"],
        "parameter",
        "weights of this dtype the L2 holds",
    ),
    # Of a quantity of its own, so the square root is not split into sqrt(L2)/sqrt(2), which
    # would put 5000 (H100: 50 MB of fp16) at 4999.9999.
    define(
        "largest_resident_width",
        floor(sqrt(q("l2_weight_capacity"))),
        "1",
        "largest d whose d x d weight matrix fits in L2",
        exact=True,
    ),
]
