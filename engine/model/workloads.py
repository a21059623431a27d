"""Workloads: the formulas one calculation needs, built from engine/formulas.py's building blocks.

Shared quantities (compute_time, runtime, bound…) are defined once in `roofline()`; a workload only
says what its `flops` and `bytes` are.
"""

from __future__ import annotations

from collections.abc import Callable

import sympy
from sympy import Max, Min, Piecewise, ceiling, floor

from perfdrill.engine.model.attention import ATTENTION_DECODE, FLASH_ATTENTION_IO
from perfdrill.engine.model.collectives import ALPHA_BETA, BUS_BANDWIDTH, HIERARCHICAL, SHARDED_COLLECTIVES
from perfdrill.engine.model.evaluation import CountRule
from perfdrill.engine.model.formulas import MODEL, SYM, SYSTEM, Formula, define, q, roofline
from perfdrill.engine.model.inefficiencies import (
    FP32_MATMUL,
    HOST_COPY,
    KERNEL,
    KERNEL_NEXT_STEP,
    OVERHEAD,
    PYTHON_LOOP,
    TIMED_MATMUL,
    TIMED_POINTWISE,
    VERDICT,
    decode_diagnosis,
)
from perfdrill.engine.model.kernels import L2_REUSE, OCCUPANCY, WAVES
from perfdrill.engine.model.memory_budget import ACTIVATIONS, ATTENTION_MEMORY, PARALLELISM
from perfdrill.engine.model.moe_serving import EXPERT_PARALLEL, EXPERT_READS
from perfdrill.engine.model.quantization import GROUP_SCALES
from perfdrill.engine.model.serving import CHUNKED_PREFILL, KV_PAGING, KV_TRANSFER, SERVING_LATENCY
from perfdrill.engine.model.sharding import DP_OVERLAP, PIPELINE, SELECTIVE_RECOMPUTE, TP_OVERLAP, ZERO
from perfdrill.engine.model.speculative import DRAFT_LENGTH, SPECULATION, SPECULATIVE_STEP
from perfdrill.engine.model.training_economics import TRAINING_ECONOMICS

MATMUL = [
    define(
        "flops",
        2 * SYM["m"] * SYM["k"] * SYM["n"],
        "FLOP",
        "one multiply and one add per (m, k, n)",
        label="FLOPs",
    ),
    define(
        "bytes",
        (SYM["m"] * SYM["k"] + SYM["m"] * SYM["n"]) * SYM["activation_bytes"]
        + SYM["k"] * SYM["n"] * SYM["weight_bytes_per_param"],
        "byte",
        "read the m × k input and the k × n weight, write the m × n output",
        label="bytes moved",
    ),
]

ELEMENTWISE = [
    define(
        "flops",
        SYM["elements"] * SYM["ops_per_element"],
        "FLOP",
        "every element gets the same operations",
        label="FLOPs",
    ),
    define(
        "bytes",
        SYM["elements"] * (SYM["inputs"] + SYM["outputs"]) * SYM["activation_bytes"],
        "byte",
        "each input read once and each output written once from memory",
        label="bytes moved",
    ),
    define(
        "unfused_bytes",
        SYM["kernels"] * q("bytes"),
        "byte",
        "unfused, every kernel of the chain reads and writes memory again",
        label="unfused bytes",
    ),
    define(
        "unfused_memory_time",
        q("unfused_bytes") / q("system_bandwidth"),
        "s",
        "memory time of the unfused chain",
        label="unfused memory time",
    ),
    define(
        "break_even_ops",
        q("ridge_point") * (SYM["inputs"] + SYM["outputs"]) * SYM["activation_bytes"],
        "FLOP",
        "operations per element at which the kernel stops being memory-bound",
        label="break-even FLOPs per element",
    ),
]


def decode(attention: bool = False, per_op: bool = False, expert_reads: bool = False) -> list[Formula]:
    """One decode step: every sequence adds one token, reading all weights once plus its KV cache.

    With `expert_reads`, a mixture of experts reads only the routed experts its batch is expected
    to touch (engine/model/moe_serving.py), not every expert; a dense model reads the same either way.
    """
    weights_read = q("weights_read_bytes") if expert_reads else q("weight_bytes")
    weights_doc = (
        "the weights the batch's tokens route to are read once per step"
        if expert_reads
        else "weights are read once per step, shared by the batch"
    )
    attention_per_sequence = 4 * SYM["layers"] * SYM["heads"] * SYM["head_dim"] * SYM["context"]
    formulas = [
        define(
            "attention_flops_per_sequence",
            attention_per_sequence,
            "FLOP",
            "QKᵀ and attention times V over the context, 2 FLOP per multiply-add each",
            label="attention FLOPs per sequence",
        ),
        define(
            "flops_per_sequence",
            2 * q("active_params") + (q("attention_flops_per_sequence") if attention or per_op else 0),
            "FLOP",
            "2 FLOP per active parameter for the new token"
            + (" plus attention" if attention or per_op else ""),
            label="FLOPs per sequence",
        ),
        define(
            "kv_cache_bytes",
            SYM["batch"] * SYM["context"] * q("kv_bytes_per_token"),
            "byte",
            "each sequence's KV cache",
            label="KV cache",
        ),
        define(
            "flops",
            SYM["batch"] * q("flops_per_sequence"),
            "FLOP",
            "one token for each sequence",
            label="FLOPs",
        ),
        define(
            "bytes",
            weights_read + q("kv_cache_bytes"),
            "byte",
            weights_doc + "; each KV cache is read once",
            label="bytes moved",
        ),
    ]
    if per_op:
        formulas += [
            define(
                "weights_flops",
                2 * q("active_params") * SYM["batch"],
                "FLOP",
                "the weight matmuls",
                label="weight-matmul FLOPs",
            ),
            define(
                "weights_bytes",
                weights_read,
                "byte",
                weights_doc if expert_reads else "the weights, read once",
                label="weight-matmul bytes",
            ),
            define(
                "attention_flops",
                SYM["batch"] * q("attention_flops_per_sequence"),
                "FLOP",
                "attention over the cache",
                label="attention FLOPs",
            ),
            define(
                "attention_bytes",
                q("kv_cache_bytes"),
                "byte",
                "the KV caches, read once",
                label="attention bytes",
            ),
            *roofline("weights_"),
            *roofline("attention_"),
            define(
                "compute_time",
                q("weights_compute_time") + q("attention_compute_time"),
                "s",
                "sum over operations",
                label="compute time",
            ),
            define(
                "memory_time",
                q("weights_memory_time") + q("attention_memory_time"),
                "s",
                "sum over operations",
                label="memory time",
            ),
            define(
                "runtime",
                q("weights_runtime") + q("attention_runtime"),
                "s",
                "operations run one after another, each at its own roofline",
                label="runtime",
            ),
            *[f for f in roofline() if f.name in ("bound", "arithmetic_intensity")],
        ]
    else:
        formulas += roofline()
    return [
        *formulas,
        define(
            "memory_required",
            q("weight_bytes") + q("kv_cache_bytes"),
            "byte",
            "weights plus every KV cache",
            label="memory needed",
        ),
        define(
            "fits",
            Piecewise((1, q("memory_required") <= q("system_memory")), (0, True)),
            "1",
            "does it fit in memory",
            labels=("no", "yes"),
            phrases=("it does not fit", "it fits"),
            shown="yes if memory_required ≤ system_memory else no",
            label="fits",
        ),
        define(
            "tokens_per_second",
            SYM["batch"] / q("runtime"),
            "token/s",
            "one token per sequence per step",
            label="throughput",
        ),
        define(
            "larger_read",
            Piecewise((1, q("kv_cache_bytes") > q("weight_bytes")), (0, True)),
            "1",
            "which a decode step reads more of: the weights or the KV caches",
            labels=("the weights", "the KV cache"),
            phrases=("the weights are the larger read", "the KV cache is the larger read"),
            shown="the KV cache if kv_cache_bytes > weight_bytes else the weights",
            label="larger read",
        ),
        define(
            "critical_batch",
            q("ridge_point") * SYM["weight_bytes_per_param"] / 2 * SYM["experts"] / SYM["experts_per_token"],
            "1",
            "batch where weight-matmul intensity (2 × batch ÷ bytes per weight, × k/E for an MoE) meets "
            "the ridge",
            label="critical batch",
            whole=True,
        ),
        define(
            "max_batch",
            Max(
                0,
                floor((q("system_memory") - q("weight_bytes")) / (SYM["context"] * q("kv_bytes_per_token"))),
            ),
            "1",
            "largest batch whose KV caches fit beside the weights",
            exact=CountRule(
                "batch",
                True,
                "memory_required",
                "system_memory",
                fails="batch {value} needs {need} but {have} is available",
                holds="batch {value} needs {need} of the {have} available, so a larger batch fits too",
            ),
            label="largest batch",
            whole=True,
        ),
        define(
            "sequence_time_margin",
            q("flops_per_sequence") / q("system_flops")
            - SYM["context"] * q("kv_bytes_per_token") / q("system_bandwidth"),
            "s",
            "compute time an added sequence brings minus the KV read time it brings",
            label="time margin per sequence",
        ),
        define(
            "knee_batch",
            ceiling(q("weight_bytes") / q("system_bandwidth") / q("sequence_time_margin")),
            "1",
            "smallest batch whose compute time reaches its memory time (valid when the margin is positive)",
            exact=CountRule(
                "batch",
                False,
                "memory_time",
                "compute_time",
                fails="at batch {value} the memory time {need} still exceeds the compute time {have}",
                holds="at batch {value} the compute time {have} already covers the memory time {need},"
                " so a smaller batch is compute-bound too",
            ),
            label="knee batch",
            whole=True,
        ),
        define(
            "optimal_batch",
            Piecewise(
                (q("knee_batch"), (q("sequence_time_margin") > 0) & (q("knee_batch") <= q("max_batch"))),
                (q("max_batch"), True),
            ),
            "1",
            "the smallest compute-bound batch that fits, else the largest batch that fits",
            shown="knee_batch if sequence_time_margin > 0 and knee_batch ≤ max_batch else max_batch",
            exact=True,
            label="optimal batch",
            whole=True,
        ),
        define(
            "weights_knee_batch",
            ceiling(q("weight_bytes") / q("system_bandwidth") / (2 * q("active_params") / q("system_flops"))),
            "1",
            "smallest batch whose weight matmuls are compute-bound: where throughput stops growing "
            "when each operation runs at its own roofline, one after another",
            exact=True,
            label="weight-matmul knee batch",
            whole=True,
        ),
        define(
            "context_capacity",
            floor((q("system_memory") - q("weight_bytes")) / (SYM["batch"] * q("kv_bytes_per_token"))),
            "token",
            "longest context every sequence of the batch can cache beside the weights",
            label="context capacity",
            whole=True,
        ),
        define(
            "context_limit",
            Piecewise((1, q("context_capacity") >= SYM["context_window"]), (0, True)),
            "1",
            "which runs out first: memory for the cache or the model's context window",
            labels=("memory", "the model's context window"),
            phrases=("memory runs out first", "the context window runs out first"),
            shown="context window if context_capacity ≥ context_window else memory",
            label="context limit",
        ),
        define(
            "optimal_is_knee",
            Piecewise((1, (q("sequence_time_margin") > 0) & (q("knee_batch") <= q("max_batch"))), (0, True)),
            "1",
            "whether a compute-bound batch fits",
            labels=("largest batch that fits", "compute-bound knee"),
            phrases=("the largest batch that fits is best", "the compute-bound knee is best"),
            shown="knee if sequence_time_margin > 0 and knee_batch ≤ max_batch else largest fit",
            label="best batch",
        ),
    ]


def prefill(attention: bool = False, prefix: str = "") -> list[Formula]:
    """Processing each prompt in one pass and writing its KV cache.

    With a prefix ("prefill_") its flops, bytes and roofline can sit beside a decode step's.
    """
    return [
        define(
            "prompt_attention_flops",
            2 * SYM["layers"] * SYM["heads"] * SYM["head_dim"] * SYM["prompt"] ** 2,
            "FLOP",
            "causal attention over the prompt: half of 4 × layers × heads × head dim × prompt²",
            label="prompt attention FLOPs",
        ),
        define(
            "prompt_flops",
            2 * q("active_params") * SYM["prompt"] + (q("prompt_attention_flops") if attention else 0),
            "FLOP",
            "2 FLOP per active parameter per prompt token" + (" plus attention" if attention else ""),
            label="FLOPs per prompt",
        ),
        define(
            prefix + "flops",
            SYM["batch"] * q("prompt_flops"),
            "FLOP",
            "every prompt token of every sequence",
            label=f"{prefix.replace('_', ' ')}FLOPs",
        ),
        define(
            prefix + "bytes",
            q("weight_bytes") + SYM["batch"] * SYM["prompt"] * q("kv_bytes_per_token"),
            "byte",
            "weights read once, KV cache written once",
            label=f"{prefix.replace('_', ' ')}bytes moved",
        ),
        *roofline(prefix),
    ]


TRAIN = [
    define(
        "flops",
        6 * q("params") * SYM["tokens"],
        "FLOP",
        "2 FLOP per parameter per token forward, 4 backward",
        label="FLOPs",
    ),
    define(
        "time",
        q("flops") / q("system_flops"),
        "s",
        "training FLOPs at the achieved FLOP/s",
        label="training time",
    ),
    define(
        "memory_required",
        SYM["training_bytes_per_param"] * q("params"),
        "byte",
        "weights, gradients and optimizer state",
        label="memory needed",
    ),
    define(
        "min_chips",
        ceiling(q("memory_required") / SYM["memory_capacity"]),
        "1",
        "chips whose memory holds the training state",
        exact=CountRule(
            "chips",
            False,
            "memory_required",
            "system_memory",
            fails="with chips = {value} there is {have} of memory but the training state needs {need}",
            holds="with chips = {value} there is {have} of memory for the {need} needed,"
            " so fewer chips suffice",
        ),
        label="fewest chips",
        whole=True,
    ),
]


def collective(bandwidth: sympy.Symbol) -> list[Formula]:
    """A ring all-reduce where each chip sends at `bandwidth` (one-way)."""
    return [
        define(
            "ring_pass_time",
            SYM["collective_bytes"] * (SYM["participants"] - 1) / (SYM["participants"] * bandwidth),
            "s",
            "each chip sends (N−1)/N of the buffer once around the ring",
            label="ring pass time",
        ),
        define(
            "all_reduce_time",
            2 * q("ring_pass_time"),
            "s",
            "a reduce-scatter followed by an all-gather",
            label="all-reduce time",
        ),
    ]


# A collective among N chips uses the links that reach the other N−1: through a switch that is the
# chip's full bandwidth; in a mesh (MI300X) only N−1 of its per-peer links; over a bridge, the one.
LINK_GROUP = [
    define(
        "group_link_bandwidth",
        Min(SYM["link_bandwidth"], (SYM["participants"] - 1) * SYM["link_peer_bandwidth"]),
        "byte/s",
        "one-way bandwidth a chip can drive to the other participants: all its links, or only "
        "those that reach the N−1 peers",
        label="usable link bandwidth",
    ),
]
GROUP_COLLECTIVE = [*LINK_GROUP, *collective(q("group_link_bandwidth"))]

GRADIENT_SYNC = [
    define(
        "collective_bytes",
        q("params") * SYM["weight_bytes_per_param"],
        "byte",
        "data parallel: one gradient per parameter, in the weights' dtype",
        label="all-reduce buffer",
    ),
]

TENSOR_PARALLEL_SYNC = [
    define(
        "collective_bytes",
        SYM["batch"] * SYM["sequence"] * SYM["d_model"] * SYM["activation_bytes"],
        "byte",
        "tensor parallel: one layer's output activations, batch × sequence × model width",
        label="all-reduce buffer",
    ),
    define(
        "tp_forward_comm_time",
        2 * SYM["layers"] * q("all_reduce_time"),
        "s",
        "Megatron-style TP all-reduces twice per layer (attention and MLP) in the forward pass",
        label="TP communication per forward pass",
    ),
]

# Issue 13, bank shape: a decode step split over `participants` chips with Megatron tensor
# parallelism. Each layer all-reduces its output (batch × model width) twice; small messages pay the
# α of every ring step (collectives.ALPHA_BETA), so at a small batch latency can dominate.
TP_DECODE = [
    define(
        "collective_bytes",
        SYM["batch"] * SYM["d_model"] * SYM["activation_bytes"],
        "byte",
        "one layer's output for the step's new tokens: batch × model width",
        label="all-reduce buffer",
    ),
    define(
        "tp_decode_comm_time",
        2 * SYM["layers"] * q("alpha_beta_all_reduce_time"),
        "s",
        "two all-reduces per layer (after attention and after the MLP), one after another",
        label="all-reduce time per step",
    ),
    define(
        "tp_decode_step_time",
        q("runtime") + q("tp_decode_comm_time"),
        "s",
        "the step's reads and math on its share of each chip, then its all-reduces, not overlapped",
        label="step time with all-reduces",
    ),
    define(
        "tp_decode_comm_share",
        q("tp_decode_comm_time") / q("tp_decode_step_time"),
        "1",
        "share of the step spent all-reducing",
        label="all-reduce share of the step",
    ),
]

# Issue 13, bank shape: a decode step launched kernel by kernel from eager PyTorch. The CPU queues
# the step's kernels while the GPU runs them, so the step takes the slower of the two; a CUDA graph
# launches the whole step at once (inefficiencies.OVERHEAD models the same for pointwise chains).
DECODE_LAUNCH = [
    *[f for f in OVERHEAD if f.name == "launch_time"],
    define(
        "decode_gpu_time",
        Max(q("runtime"), SYM["kernels"] * SYM["kernel_floor"]),
        "s",
        "the step on the GPU: its roofline, and never under every kernel's floor",
        label="GPU time per step",
    ),
    define(
        "eager_decode_time",
        Max(q("launch_time"), q("decode_gpu_time")),
        "s",
        "eager: the CPU launches each kernel while the GPU runs earlier ones; the slower sets the pace",
        label="eager step time",
    ),
    define(
        "graph_decode_time",
        SYM["launch_overhead"] + q("decode_gpu_time"),
        "s",
        "a CUDA graph launches the whole step once; the GPU's work stays the same",
        label="CUDA-graph step time",
    ),
    define(
        "decode_launch_bound",
        Piecewise((1, q("launch_time") > q("decode_gpu_time")), (0, True)),
        "1",
        "what sets an eager decode step's time: the GPU's work or the CPU's launches",
        labels=("the GPU's work", "the CPU's kernel launches"),
        phrases=("the GPU's work sets the pace", "the CPU's launches set the pace"),
        shown="launches if launch_time > decode_gpu_time else the GPU",
        label="what sets the pace",
    ),
]

WORKLOADS: dict[str, Callable[[], list[Formula]]] = {
    "model": lambda: MODEL,
    "roofline": lambda: SYSTEM,
    "matmul": lambda: [
        *SYSTEM,
        *MATMUL,
        *roofline(),
        *FP32_MATMUL,
        *HOST_COPY,
        *KERNEL,
        *TIMED_MATMUL,
        *VERDICT,
        *KERNEL_NEXT_STEP,
    ],
    "elementwise": lambda: [
        *SYSTEM,
        *ELEMENTWISE,
        *roofline(),
        *OVERHEAD,
        *HOST_COPY,
        *KERNEL,
        *PYTHON_LOOP,
        *TIMED_POINTWISE,
        *VERDICT,
        *KERNEL_NEXT_STEP,
    ],
    "decode": lambda: [*MODEL, *SYSTEM, *decode(), *VERDICT, *decode_diagnosis()],
    "serving": lambda: [*MODEL, *SYSTEM, *decode(), *prefill(prefix="prefill_")],
    "decode_attention": lambda: [*MODEL, *SYSTEM, *decode(attention=True)],
    "decode_per_op": lambda: [*MODEL, *SYSTEM, *decode(per_op=True)],
    "prefill": lambda: [*MODEL, *SYSTEM, *prefill()],
    "prefill_attention": lambda: [*MODEL, *SYSTEM, *prefill(attention=True)],
    "train": lambda: [*MODEL, *SYSTEM, *TRAIN, *ACTIVATIONS, *PARALLELISM],
    "collective": lambda: collective(SYM["link_bandwidth"]),
    "group_collective": lambda: GROUP_COLLECTIVE,
    "gradient_sync": lambda: [*MODEL, *GRADIENT_SYNC, *GROUP_COLLECTIVE],
    "tensor_parallel_sync": lambda: [*MODEL, *TENSOR_PARALLEL_SYNC, *GROUP_COLLECTIVE],
    "attention": lambda: [*SYSTEM, *ATTENTION_MEMORY],
    # Issue 13: training memory under sharding, collectives properly, kernel-level effects.
    "train_sharded": lambda: [*MODEL, *SYSTEM, *TRAIN, *ACTIVATIONS, *ZERO, *SELECTIVE_RECOMPUTE],
    "pipeline": lambda: PIPELINE,
    "dp_overlap": lambda: [*MODEL, *GRADIENT_SYNC, *GROUP_COLLECTIVE, *DP_OVERLAP],
    "tp_overlap": lambda: [*MODEL, *TENSOR_PARALLEL_SYNC, *GROUP_COLLECTIVE, *TP_OVERLAP],
    "collective_latency": lambda: [*GROUP_COLLECTIVE, *ALPHA_BETA, *BUS_BANDWIDTH],
    "sharded_collectives": lambda: [*MODEL, *GRADIENT_SYNC, *GROUP_COLLECTIVE, *SHARDED_COLLECTIVES],
    "hierarchical_collective": lambda: [*MODEL, *GRADIENT_SYNC, *HIERARCHICAL],
    "kernels": lambda: [*SYSTEM, *MATMUL, *roofline(), *WAVES, *OCCUPANCY, *L2_REUSE],
    # Issue 13, topics 5-7: attention in decode, quantization beyond weights, MoE serving.
    "attention_decode": lambda: [*MODEL, *SYSTEM, *decode(per_op=True), *ATTENTION_DECODE],
    "flash_attention": lambda: [*SYSTEM, *ATTENTION_MEMORY, *FLASH_ATTENTION_IO],
    "quantization": lambda: [*MODEL, *SYSTEM, *decode(), *GROUP_SCALES],
    "decode_moe": lambda: [*MODEL, *SYSTEM, *decode(expert_reads=True), *EXPERT_READS],
    "expert_parallel": lambda: [*MODEL, *SYSTEM, *LINK_GROUP, *EXPERT_PARALLEL],
    # Issue 13, serving and training economics (engine/model/serving.py, training_economics.py)
    "serving_latency": lambda: [*MODEL, *SYSTEM, *decode(), *prefill(prefix="prefill_"), *SERVING_LATENCY],
    "kv_paging": lambda: [*MODEL, *SYSTEM, *decode(), *prefill(prefix="prefill_"), *KV_PAGING],
    "chunked_prefill": lambda: [*MODEL, *SYSTEM, *decode(), *CHUNKED_PREFILL],
    "disaggregation": lambda: [*MODEL, *SYSTEM, *prefill(prefix="prefill_"), *KV_TRANSFER],
    "train_economics": lambda: [*MODEL, *SYSTEM, *TRAIN, *TRAINING_ECONOMICS],
    # Issue 13, speculative decoding (engine/model/speculative.py): Leviathan et al.'s model alone,
    # and a target and draft served on a chip, each step at its roofline.
    "speculative": lambda: [*SPECULATION, *DRAFT_LENGTH],
    "speculative_decode": lambda: [*MODEL, *SYSTEM, *decode(), *SPECULATIVE_STEP, *SPECULATION],
    # Issue 13, bank shape: a profiled data-parallel step, read with nccl-tests' bus bandwidth, and a
    # tensor-parallel decode step with its all-reduces (α–β).
    "dp_profile": lambda: [*MODEL, *GRADIENT_SYNC, *GROUP_COLLECTIVE, *DP_OVERLAP, *BUS_BANDWIDTH],
    "tp_decode": lambda: [*MODEL, *SYSTEM, *decode(), *TP_DECODE, *GROUP_COLLECTIVE, *ALPHA_BETA],
    "decode_launch": lambda: [*MODEL, *SYSTEM, *decode(), *DECODE_LAUNCH],
}
