"""Memory beyond weights and KV cache: attention score matrices, training activations with and
without checkpointing, and where training state forces model parallelism."""

from __future__ import annotations

from sympy import Piecewise

from perfdrill.engine.model.formulas import SYM, define, q

ATTENTION_MEMORY = [
    define(
        "score_matrix_bytes",
        SYM["batch"] * SYM["heads"] * SYM["sequence"] ** 2 * SYM["activation_bytes"],
        "byte",
        "the batch × heads × sequence × sequence score matrix of one layer, materialised",
        label="score matrix",
    ),
    define(
        "qkvo_bytes",
        2
        * (SYM["heads"] + SYM["kv_heads"])
        * SYM["batch"]
        * SYM["sequence"]
        * SYM["head_dim"]
        * SYM["activation_bytes"],
        "byte",
        "Q and the output at the query heads, K and V at the KV heads: all FlashAttention keeps",
        label="Q, K, V and O",
    ),
    define(
        "score_matrix_ratio",
        q("score_matrix_bytes") / q("qkvo_bytes"),
        "1",
        "how much larger the score matrix is than Q, K, V and O together",
        label="score matrix to Q, K, V and O",
    ),
    define(
        "score_matrix_fits",
        Piecewise((1, q("score_matrix_bytes") <= SYM["memory_capacity"]), (0, True)),
        "1",
        "does one layer's score matrix fit in one chip's memory",
        labels=("no", "yes"),
        phrases=("it does not fit on one chip", "it fits on one chip"),
        shown="yes if score_matrix_bytes ≤ memory_capacity else no",
        label="score matrix fits",
    ),
]

# Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models", eq. 1:
# s·b·h·(34 + 5·a·s/h) bytes per layer with 16-bit activations and no tensor parallelism.
ACTIVATIONS = [
    define(
        "activation_bytes_per_layer",
        SYM["sequence"]
        * SYM["batch"]
        * SYM["d_model"]
        * (34 + 5 * SYM["heads"] * SYM["sequence"] / SYM["d_model"]),
        "byte",
        "activations one layer saves for backward (Korthikanti et al. 2022, 16-bit)",
        label="activations per layer",
    ),
    define(
        "activation_memory",
        SYM["layers"] * q("activation_bytes_per_layer"),
        "byte",
        "every layer's saved activations",
        label="activation memory",
    ),
    define(
        "logits_memory",
        4 * SYM["batch"] * SYM["sequence"] * SYM["vocab"],
        "byte",
        "the output layer's logits, kept in fp32 for the cross-entropy loss (Korthikanti et al. "
        "2022: 4·s·b·v)",
        label="logits memory",
    ),
    define(
        "checkpointed_activation_memory",
        SYM["layers"] * 2 * SYM["sequence"] * SYM["batch"] * SYM["d_model"] + q("activation_bytes_per_layer"),
        "byte",
        "full checkpointing: each layer's 16-bit input, plus one layer rebuilt at a time in backward",
        label="checkpointed activation memory",
    ),
    define(
        "activation_savings",
        q("activation_memory") / q("checkpointed_activation_memory"),
        "1",
        "how many times less activation memory checkpointing needs",
        label="checkpointing saving",
    ),
    define(
        "recompute_flops",
        2 * q("active_params") * SYM["tokens"],
        "FLOP",
        "checkpointing runs every layer's forward again in backward (2 FLOP per active parameter)",
        label="recomputed FLOPs",
    ),
    define(
        "checkpointed_time",
        (q("flops") + q("recompute_flops")) / q("system_flops"),
        "s",
        "training time with the recomputed forward: 8·N·D instead of 6·N·D",
        label="checkpointed training time",
    ),
]

PARALLELISM = [
    define(
        "parallelism_plan",
        Piecewise(
            (0, q("memory_required") <= SYM["memory_capacity"]),
            (1, q("memory_required") <= SYM["node_chips"] * SYM["memory_capacity"]),
            (2, True),
        ),
        "1",
        "fits one chip: replicate; fits one node: split layers over the fast link; else also pipeline",
        labels=(
            "data parallel only",
            "tensor parallel within the node",
            "tensor parallel within the node + pipeline parallel across nodes",
        ),
        shown=("DP if memory_required ≤ memory_capacity, TP if ≤ node_chips·memory_capacity, else TP + PP"),
        label="parallelism plan",
    ),
]
