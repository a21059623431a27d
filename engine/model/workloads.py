"""Workloads: the formulas one calculation needs, built from the engine's building blocks.

Shared quantities (compute_time, runtime, bound…) are defined once in `roofline()`; a workload only
says what its `flops` and `bytes` are.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import sympy
from sympy import Min

from perfdrill.engine.model.architecture import MODEL
from perfdrill.engine.model.attention import ATTENTION_DECODE, FLASH_ATTENTION_IO
from perfdrill.engine.model.collectives import (
    ALPHA_BETA,
    BUS_BANDWIDTH,
    HIERARCHICAL,
    SHARDED_COLLECTIVES,
    TP_DECODE,
)
from perfdrill.engine.model.crossovers import ATTENTION_CROSSOVERS, MATMUL_CROSSOVER
from perfdrill.engine.model.decode_utilisation import DECODE_UTILISATION
from perfdrill.engine.model.formulas import SYM, Formula, define, q
from perfdrill.engine.model.ici import ICI_COLLECTIVES, ICI_PARALLELISM
from perfdrill.engine.model.inefficiencies import (
    DECODE_LAUNCH,
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
from perfdrill.engine.model.inference import decode, fewest_chips, prefill
from perfdrill.engine.model.kernels import L2_REUSE, OCCUPANCY, WAVES
from perfdrill.engine.model.memory_budget import ACTIVATIONS, ATTENTION_MEMORY, PARALLELISM
from perfdrill.engine.model.moe_serving import EXPERT_PARALLEL, EXPERT_READS
from perfdrill.engine.model.networks import BISECTION
from perfdrill.engine.model.quantization import GROUP_SCALES
from perfdrill.engine.model.roofline import SYSTEM, attainable_flops, bound_at_intensity, roofline
from perfdrill.engine.model.serving import CHUNKED_PREFILL, KV_PAGING, KV_RELOAD, KV_TRANSFER, SERVING_LATENCY
from perfdrill.engine.model.serving_capacity import MEMORY_SHARES, SERVING_CAPACITY
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


TRAIN = [
    define(
        "flops",
        6 * q("active_params") * SYM["tokens"],
        "FLOP",
        "2 FLOP per active parameter per token forward, 4 backward (6·N·D, N counting embeddings as "
        "Chinchilla does; a mixture of experts counts only the experts a token uses)",
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
    fewest_chips(
        "min_chips",
        "chips whose memory holds the training state",
        "the training state needs {need}",
        "fewest chips",
    ),
    define(
        "max_trainable_params",
        q("system_memory") / SYM["training_bytes_per_param"],
        "parameter",
        "the largest model whose training state the chips hold, each chip holding all of it (pure data "
        "parallelism) when chips is 1",
        label="largest trainable model",
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


def ring_latency() -> list[Formula]:
    """The α–β ring times (collectives.ALPHA_BETA) that rest only on the ring's own terms."""
    return [f for f in ALPHA_BETA if f.name in ("alpha_beta_all_reduce_time", "alpha_beta_all_gather_time")]


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
        "gradient_bytes_per_param",
        SYM["weight_bytes_per_param"],
        "byte/parameter",
        "gradients in the weights' dtype, unless a template states their own (fp32 for bf16 weights)",
        label="bytes per gradient",
    ),
    define(
        "collective_bytes",
        q("params") * q("gradient_bytes_per_param"),
        "byte",
        "data parallel: one gradient per parameter, in the dtype the gradients are kept",
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


def _relabelled(formulas: list[Formula], labels: dict[str, str]) -> list[Formula]:
    """`formulas`, with some quantities called as this workload's questions call them."""
    return [replace(f, label=labels[f.name]) if f.name in labels else f for f in formulas]


WORKLOADS: dict[str, Callable[[], list[Formula]]] = {
    "model": lambda: MODEL,
    "roofline": lambda: SYSTEM,
    "matmul": lambda: [
        *SYSTEM,
        *MATMUL,
        *roofline(),
        *MATMUL_CROSSOVER,
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
    "decode": lambda: [*MODEL, *SYSTEM, *decode(), *VERDICT, *decode_diagnosis(), *MEMORY_SHARES],
    "serving": lambda: [*MODEL, *SYSTEM, *decode(), *prefill(prefix="prefill_")],
    "decode_attention": lambda: [*MODEL, *SYSTEM, *decode(attention=True), *MEMORY_SHARES],
    "decode_per_op": lambda: [*MODEL, *SYSTEM, *decode(per_op=True), *MEMORY_SHARES],
    "prefill": lambda: [*MODEL, *SYSTEM, *prefill()],
    "prefill_attention": lambda: [*MODEL, *SYSTEM, *prefill(attention=True)],
    "train": lambda: [*MODEL, *SYSTEM, *TRAIN, *ACTIVATIONS, *PARALLELISM],
    # issue 22: the α of every ring step too, where a latency is given
    "collective": lambda: [*collective(SYM["link_bandwidth"]), *ring_latency()],
    "group_collective": lambda: GROUP_COLLECTIVE,
    "gradient_sync": lambda: [*MODEL, *GRADIENT_SYNC, *GROUP_COLLECTIVE],
    "tensor_parallel_sync": lambda: [*MODEL, *TENSOR_PARALLEL_SYNC, *GROUP_COLLECTIVE],
    "attention": lambda: [*SYSTEM, *ATTENTION_MEMORY],
    # Issue 13: training memory under sharding, collectives properly, kernel-level effects.
    "train_sharded": lambda: [*MODEL, *SYSTEM, *TRAIN, *ACTIVATIONS, *ZERO, *SELECTIVE_RECOMPUTE],
    "pipeline": lambda: PIPELINE,
    "dp_overlap": lambda: [*MODEL, *GRADIENT_SYNC, *GROUP_COLLECTIVE, *DP_OVERLAP],
    "tp_overlap": lambda: [*MODEL, *TENSOR_PARALLEL_SYNC, *GROUP_COLLECTIVE, *TP_OVERLAP],
    "ici_collective": lambda: ICI_COLLECTIVES,  # issue 22: TPU tori, the scaling book's model
    "ici_parallelism": lambda: ICI_PARALLELISM,
    "attention_crossovers": lambda: [*MODEL, *ATTENTION_CROSSOVERS],
    "collective_latency": lambda: [*GROUP_COLLECTIVE, *ALPHA_BETA, *BUS_BANDWIDTH],
    "sharded_collectives": lambda: [*MODEL, *GRADIENT_SYNC, *GROUP_COLLECTIVE, *SHARDED_COLLECTIVES],
    "hierarchical_collective": lambda: [*MODEL, *GRADIENT_SYNC, *HIERARCHICAL],
    # issue 22: a network's bisection, and the two-level all-reduce over a given buffer
    "network_all_to_all": lambda: BISECTION,
    "two_level_all_reduce": lambda: HIERARCHICAL,
    "kernels": lambda: [*SYSTEM, *MATMUL, *roofline(), *WAVES, *OCCUPANCY, *L2_REUSE],
    # Issue 13, topics 5-7: attention in decode, quantization beyond weights, MoE serving.
    "attention_decode": lambda: [*MODEL, *SYSTEM, *decode(per_op=True), *ATTENTION_DECODE],
    "flash_attention": lambda: [*SYSTEM, *ATTENTION_MEMORY, *FLASH_ATTENTION_IO],
    "quantization": lambda: [*MODEL, *SYSTEM, *decode(), *GROUP_SCALES],
    "decode_moe": lambda: [*MODEL, *SYSTEM, *decode(expert_reads=True), *EXPERT_READS, *MEMORY_SHARES],
    "expert_parallel": lambda: [*MODEL, *SYSTEM, *LINK_GROUP, *EXPERT_PARALLEL],
    # Issue 13, serving and training economics (engine/model/serving.py, training_economics.py)
    "serving_latency": lambda: [
        *MODEL,
        *SYSTEM,
        *decode(),
        *prefill(prefix="prefill_"),
        *SERVING_LATENCY,
        *SERVING_CAPACITY,
        *MEMORY_SHARES,
    ],
    "kv_paging": lambda: [*MODEL, *SYSTEM, *decode(), *prefill(prefix="prefill_"), *KV_PAGING],
    "chunked_prefill": lambda: [*MODEL, *SYSTEM, *decode(), *CHUNKED_PREFILL],
    "disaggregation": lambda: [*MODEL, *SYSTEM, *prefill(prefix="prefill_"), *KV_TRANSFER],
    "train_economics": lambda: [*MODEL, *SYSTEM, *TRAIN, *TRAINING_ECONOMICS],
    # Issue 13, speculative decoding (engine/model/speculative.py): Leviathan et al.'s model alone,
    # and a target and draft served on a chip, each step at its roofline.
    "speculative": lambda: [*SPECULATION, *DRAFT_LENGTH],
    # The plain decode step is what a round is compared with: "runtime" alone read as the round's
    # time to a teacher reviewer.
    "speculative_decode": lambda: [
        *MODEL,
        *SYSTEM,
        *_relabelled(decode(), {"runtime": "plain decode step time"}),
        *SPECULATIVE_STEP,
        *SPECULATION,
    ],
    # Issue 13, bank shape: a profiled data-parallel step, read with nccl-tests' bus bandwidth, and a
    # tensor-parallel decode step with its all-reduces (α–β).
    "dp_profile": lambda: [*MODEL, *GRADIENT_SYNC, *GROUP_COLLECTIVE, *DP_OVERLAP, *BUS_BANDWIDTH],
    "tp_decode": lambda: [*MODEL, *SYSTEM, *decode(), *TP_DECODE, *GROUP_COLLECTIVE, *ALPHA_BETA],
    "decode_launch": lambda: [*MODEL, *SYSTEM, *decode(), *DECODE_LAUNCH],
    # MFU of a measured decode server against the step's roofline.
    "decode_mfu": lambda: [*MODEL, *SYSTEM, *decode(), *DECODE_UTILISATION],
    # A preempted sequence's cache fetched back or rebuilt by a prefill with its attention.
    "kv_reload": lambda: [
        *MODEL,
        *SYSTEM,
        *prefill(attention=True, prefix="prefill_"),
        *KV_TRANSFER,
        *KV_RELOAD,
    ],
    # A kernel known only by its arithmetic intensity: no FLOPs or bytes a question never gave.
    "intensity_roofline": lambda: [
        *SYSTEM,
        bound_at_intensity(),
        attainable_flops(SYM["arithmetic_intensity"]),
    ],
}
