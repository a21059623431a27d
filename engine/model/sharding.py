"""Training under sharding: ZeRO/FSDP state per GPU, activations with selective recomputation, the
pipeline bubble, and whether data- and tensor-parallel communication hides behind compute.

Sources: Rajbhandari et al. 2019, "ZeRO: Memory Optimizations Toward Training Trillion Parameter
Models" (2Ψ + 2Ψ + KΨ, K = 12, and the per-stage splits over N_d); Korthikanti et al. 2022 (selective
recomputation keeps 34·s·b·h bytes per layer); Narayanan et al. 2021, "Efficient Large-Scale
Language Model Training on GPU Clusters" (the bubble (p−1)/m of ideal time, (p−1)/(v·m) interleaved);
jax-ml/scaling-book gpus.md (data parallelism hides its all-reduce once tokens per GPU exceed C/W).
"""

from __future__ import annotations

from sympy import Max, Piecewise, ceiling, floor

from perfdrill.engine.model.evaluation import CountRule
from perfdrill.engine.model.formulas import SYM, define, q

_N = SYM["dp_ranks"]

ZERO = [
    define(
        "zero_weight_bytes",
        SYM["weight_bytes_per_param"] * q("params"),
        "byte",
        "16-bit weights: 2Ψ bytes (ZeRO paper)",
    ),
    define(
        "zero_gradient_bytes",
        SYM["weight_bytes_per_param"] * q("params"),
        "byte",
        "16-bit gradients: 2Ψ bytes",
    ),
    define(
        "zero_optimizer_bytes",
        SYM["optimizer_bytes_per_param"] * q("params"),
        "byte",
        "optimizer state KΨ: fp32 master weights, momentum and variance (K = 12 for Adam)",
    ),
    define(
        "replicated_state_bytes",
        q("zero_weight_bytes") + q("zero_gradient_bytes") + q("zero_optimizer_bytes"),
        "byte",
        "plain data parallelism: every GPU keeps all (2 + 2 + K)·Ψ bytes",
    ),
    define(
        "zero1_state_bytes",
        q("zero_weight_bytes") + q("zero_gradient_bytes") + q("zero_optimizer_bytes") / _N,
        "byte",
        "ZeRO-1 (P_os): each GPU keeps 1/N_d of the optimizer state",
    ),
    define(
        "zero2_state_bytes",
        q("zero_weight_bytes") + (q("zero_gradient_bytes") + q("zero_optimizer_bytes")) / _N,
        "byte",
        "ZeRO-2 (P_os+g): optimizer state and gradients sharded over N_d",
    ),
    define(
        "zero3_state_bytes",
        q("replicated_state_bytes") / _N,
        "byte",
        "ZeRO-3 (P_os+g+p), FSDP's full sharding: everything sharded over N_d",
    ),
    define(
        "smallest_zero_stage",
        Piecewise(
            (0, q("replicated_state_bytes") <= SYM["memory_capacity"]),
            (1, q("zero1_state_bytes") <= SYM["memory_capacity"]),
            (2, q("zero2_state_bytes") <= SYM["memory_capacity"]),
            (3, q("zero3_state_bytes") <= SYM["memory_capacity"]),
            (4, True),
        ),
        "1",
        "the least sharding whose per-GPU state fits in one GPU's memory (activations aside)",
        labels=("plain data parallelism", "ZeRO-1", "ZeRO-2", "ZeRO-3 (FSDP)", "none of them"),
        shown="the first of DP, ZeRO-1, ZeRO-2, ZeRO-3 whose state ≤ memory_capacity, else none",
    ),
]

# Korthikanti et al. 2022, section 4.2 with t = 1: selective recomputation drops the attention
# softmax/dropout activations (5·a·s/h per s·b·h) and keeps the other 34·s·b·h bytes per layer.
SELECTIVE_RECOMPUTE = [
    define(
        "selective_activation_memory",
        SYM["layers"] * 34 * SYM["sequence"] * SYM["batch"] * SYM["d_model"],
        "byte",
        "selective recomputation: every layer keeps 34·s·b·h bytes and recomputes attention's "
        "s×s scores (Korthikanti et al. 2022)",
    ),
    define(
        "fsdp_memory_required",
        q("zero3_state_bytes") + q("selective_activation_memory"),
        "byte",
        "ZeRO-3 state plus the micro-batch's activations under selective recomputation",
    ),
    define(
        "recompute_plan",
        Piecewise(
            (0, q("zero3_state_bytes") + q("activation_memory") <= SYM["memory_capacity"]),
            (1, q("fsdp_memory_required") <= SYM["memory_capacity"]),
            (2, q("zero3_state_bytes") + q("checkpointed_activation_memory") <= SYM["memory_capacity"]),
            (3, True),
        ),
        "1",
        "the least recomputation that fits the micro-batch beside the ZeRO-3 state",
        labels=(
            "no recomputation needed",
            "selective recomputation",
            "full recomputation",
            "none: it does not fit even with full recomputation",
        ),
        shown="the first of none, selective, full whose activations fit beside zero3_state_bytes",
    ),
    define(
        "fsdp_max_batch",
        floor(
            (SYM["memory_capacity"] - q("zero3_state_bytes"))
            / (SYM["layers"] * 34 * SYM["sequence"] * SYM["d_model"])
        ),
        "1",
        "largest micro-batch whose selective-recompute activations fit beside the ZeRO-3 state",
        exact=CountRule(
            "batch",
            True,
            "fsdp_memory_required",
            "system_memory",
            fails="a micro-batch of {value} needs {need} but one GPU has {have}",
            holds="a micro-batch of {value} needs {need} of the {have}, so a larger one fits too",
        ),
    ),
]

_P, _M = SYM["pipeline_stages"], SYM["microbatches"]

PIPELINE = [
    define(
        "pipeline_bubble_fraction",
        (_P - 1) / (_M + _P - 1),
        "1",
        "share of a GPipe or 1F1B step each stage sits idle: (p − 1) of the m + p − 1 slots",
    ),
    define(
        "pipeline_step_time",
        (_M + _P - 1) * SYM["stage_microbatch_time"],
        "s",
        "m micro-batches through p stages take m + p − 1 micro-batch slots",
    ),
    define(
        "interleaved_bubble_fraction",
        (_P - 1) / (SYM["virtual_stages"] * _M + _P - 1),
        "1",
        "interleaved 1F1B with v chunks per GPU: the bubble shrinks to (p − 1)/v slots of m",
    ),
    define(
        "bubble_target", SYM["bubble_target_percent"] / 100, "1", "the bubble target as a share of the step"
    ),
    # In whole percent, (p − 1)·(100 − P)/P is exact wherever it is whole: 3·0.8/0.2 is not.
    define(
        "min_microbatches",
        ceiling((_P - 1) * (100 - SYM["bubble_target_percent"]) / SYM["bubble_target_percent"]),
        "1",
        "fewest micro-batches that keep the bubble within the target share of the step",
        exact=CountRule(
            "microbatches",
            False,
            "pipeline_bubble_fraction",
            "bubble_target",
            fails="with {value} micro-batches the bubble is {need}, above the target {have}",
            holds="with {value} micro-batches the bubble is already {need}, within {have}, "
            "so fewer micro-batches would do",
        ),
    ),
]

_TOKENS = SYM["batch"] * SYM["sequence"]

# Data parallelism: gradients become ready bucket by bucket as backward runs; a bucket's all-reduce
# starts once it is ready and the one before it is done.
DP_OVERLAP = [
    define(
        "backward_time",
        4 * q("params") * _TOKENS / (SYM["peak_flops"] * SYM["mfu"]),
        "s",
        "backward pass on one GPU: 4 FLOP per parameter per token at the achieved FLOP/s",
    ),
    define(
        "exposed_comm_time",
        Max(
            q("all_reduce_time") / SYM["buckets"],
            q("all_reduce_time") - q("backward_time") * (1 - 1 / SYM["buckets"]),
        ),
        "s",
        "all-reduce time left after backward ends: at least the last bucket's share",
    ),
    define(
        "dp_overlap_verdict",
        Piecewise((1, q("all_reduce_time") <= q("backward_time")), (0, True)),
        "1",
        "whether backward lasts long enough to cover the gradient all-reduce",
        labels=("communication-bound: the all-reduce outlasts backward", "backward covers the all-reduce"),
        shown="covered if all_reduce_time ≤ backward_time else communication-bound",
    ),
    define(
        "dp_critical_tokens",
        q("all_reduce_time") * SYM["peak_flops"] * SYM["mfu"] / (4 * q("params")),
        "token",
        "tokens per GPU per step at which backward lasts exactly as long as the all-reduce",
    ),
]

# Megatron tensor parallelism: each layer's matmuls are split t ways, and the layer all-reduces
# its batch x sequence x d_model output twice in the forward pass.
TP_OVERLAP = [
    define(
        "layer_matmul_params",
        q("attention_params_per_layer") + q("dense_mlp_params"),
        "parameter",
        "the weights of one layer's matmuls: attention and MLP",
    ),
    define(
        "tp_layer_compute_time",
        2 * q("layer_matmul_params") * _TOKENS / (SYM["participants"] * SYM["peak_flops"] * SYM["mfu"]),
        "s",
        "one layer's forward matmuls on one GPU: 2 FLOP per token per weight, 1/t of the weights",
    ),
    define(
        "tp_layer_comm_time",
        2 * q("all_reduce_time"),
        "s",
        "one layer's two all-reduces of its output (after attention and after the MLP)",
    ),
    define(
        "tp_comm_to_compute",
        q("tp_layer_comm_time") / q("tp_layer_compute_time"),
        "1",
        "communication time per unit of compute time in a tensor-parallel layer's forward pass",
    ),
]
