"""Issue 22 §3: where attention overtakes the weight matmuls, how intense attention is in prefill
and decode, and the batch at which a matmul turns compute-bound.

Conventions, stated because the published figures differ by them:

- Attention FLOPs per token per layer are 4·n·heads·head_dim at n keys (QKᵀ and A·V, 2 FLOP a
  multiply-add, every key attended: a decode token at context n, or non-causal prefill; a causal
  mask halves the average and doubles the crossover). Weight matmuls are 2 FLOP per weight a
  token uses. So attention equals the matmuls at n = layer weights / (2·heads·head_dim).
  With d = heads·head_dim: a plain 4d MLP and multi-head attention hold 12·d² a layer, so n = 6·d
  (Kaplan et al. 2020, Table 1, counting only QKᵀ's 2·n·d gets 12·d; kipply's "Transformer
  Inference Arithmetic" counts the 24·d² matmul FLOPs); a gated 4d MLP holds 16·d², so n = 8·d
  (jax-ml/scaling-book transformers.md: attention dominates "when T > 8D").
- Attention intensity (FlashAttention-like: Q, K, V read and O written once, no score matrix in
  memory) with T queries against S keys: 4·T·S·H·h FLOP over (2·T·H·a + 2·S·K·h·c) bytes per head
  dim, a the activation and c the KV bytes (scaling-book inference.md: prefill ≈ T/2 for bf16
  MHA, decode ≈ 1 for bf16 MHA, H/K with GQA).
- A matmul (m × k)·(k × n) with the k × n weight: 2·m·k·n FLOP over (m·k + m·n)·a + k·n·w bytes
  meets the ridge R at m = R·k·n·w / (2·k·n − R·a·(k + n)); for k, n ≫ R that is R·w/2 (the
  scaling book's "B > 240" for bf16 on a TPU v5e). No m is compute-bound when the denominator is
  not positive.
"""

from __future__ import annotations

from sympy import Max

from perfdrill.engine.model.formulas import SYM, define, q

_H, _K, _HD = SYM["heads"], SYM["kv_heads"], SYM["head_dim"]
_KV_BYTES, _ACT_BYTES = SYM["kv_bytes_per_element"], SYM["activation_bytes"]

ATTENTION_CROSSOVERS = [
    define(
        "layer_matmul_params",
        q("attention_params_per_layer")
        + (SYM["experts_per_token"] + SYM["shared_experts"]) * q("mlp_params_per_expert"),
        "parameter",
        "the weights of one layer a token multiplies: attention projections and the MLP (the "
        "experts it is routed to in a mixture of experts)",
        label="matmul params per layer",
    ),
    define(
        "attention_matmul_crossover",
        q("layer_matmul_params") / (2 * _H * _HD),
        "token",
        "keys at which attention's 4·n·heads·head_dim FLOP a token equal the layer's 2 FLOP a weight",
        label="attention crossover context",
    ),
    define(
        "crossover_in_model_widths",
        q("attention_matmul_crossover") / SYM["d_model"],
        "1",
        "the crossover in model widths d (6 for 12·d² a layer, 8 for 16·d²)",
        label="crossover in model widths",
    ),
    define(
        "prefill_attention_intensity",
        2 * SYM["sequence"] * _H / (_H * _ACT_BYTES + _K * _KV_BYTES),
        "FLOP/byte",
        "prefill attention of a sequence against itself: 4·S²·H·h FLOP over Q, O, K and V read or "
        "written once",
        label="prefill attention intensity",
    ),
    define(
        "decode_attention_intensity",
        2 * SYM["context"] * _H / (_H * _ACT_BYTES + SYM["context"] * _K * _KV_BYTES),
        "FLOP/byte",
        "one new token against a cache of S keys: 4·S·H·h FLOP over its cache read once",
        label="decode attention intensity",
    ),
]

# What 2·k·n FLOPs per row leave over the ridge's bytes per row (the rows' activations).
_CROSSOVER_MARGIN = 2 * SYM["k"] * SYM["n"] - q("ridge_point") * _ACT_BYTES * (SYM["k"] + SYM["n"])
MATMUL_CROSSOVER = [
    define(
        "compute_bound_m",
        # Where 2·k·n ≤ ridge · activation bytes · (k + n), no m reaches the ridge: the intensity
        # tops out below it, so the division is by zero and the result undefined (omitted), never
        # a negative batch.
        q("ridge_point") * SYM["k"] * SYM["n"] * SYM["weight_bytes_per_param"] / Max(_CROSSOVER_MARGIN, 0),
        "1",
        "rows (batch) at which this k × n matmul's intensity reaches the ridge point",
        label="compute-bound batch",
    ),
]
