"""Attention beyond the score matrix: why decode attention stays memory-bound, FlashAttention's HBM
traffic in prefill, and the share of a token's FLOPs that attention takes at long context.

- Decode. Each new token multiplies its query against the whole cached context: 4·layers·heads·
  head_dim·context FLOPs per sequence, while that sequence's own KV cache is read once. The batch
  cancels (every sequence reads its own cache), so the intensity is 2·(heads/kv_heads) ÷ bytes per
  cached element: 1 FLOP/byte for 16-bit multi-head attention, the group size more with GQA
  (jax-ml/scaling-book inference.md, "we are basically always memory bandwidth-bound during
  attention"). The quantities ride on `decode(per_op=True)`'s attention roofline.
- FlashAttention IO. Dao et al. 2022, "FlashAttention", Theorem 2: standard attention makes
  Θ(N·d + N²) HBM accesses, FlashAttention Θ(N²·d²/M) with M the SRAM size. The formulas count
  the paper's own algorithms per (sequence, head): Algorithm 0 reads Q and K, writes S, reads S
  and writes P, reads P and V and writes O (4·N·d + 4·N² elements); Algorithm 1 loads each K/V
  block once and, for each of the T_c = ⌈N / B_c⌉ blocks (B_c = ⌈M / 4d⌉ rows, M in elements),
  reads Q and O and writes O back (2·N·d + 3·N·d·T_c; the N-long softmax statistics are left out).
"""

from __future__ import annotations

from sympy import Piecewise, ceiling

from perfdrill.engine.model.formulas import SYM, define, q

ATTENTION_DECODE = [
    define(
        "kv_group_size",
        SYM["heads"] / SYM["kv_heads"],
        "1",
        "query heads that share each KV head (1 for multi-head attention)",
    ),
    define(
        "attention_flop_share",
        q("attention_flops_per_sequence") / q("flops_per_sequence"),
        "1",
        "fraction of a decode token's FLOPs spent in attention over its context",
    ),
    define(
        "attention_crossover_context",
        2 * q("active_params") / (4 * SYM["layers"] * SYM["heads"] * SYM["head_dim"]),
        "token",
        "context at which a token's attention FLOPs equal its 2·active-parameter weight FLOPs",
    ),
    define(
        "window_flops_leader",
        Piecewise((1, SYM["context_window"] > q("attention_crossover_context")), (0, True)),
        "1",
        "which takes more of a token's FLOPs at the model's full context window",
        labels=("the weight matmuls", "attention"),
        shown="attention if context_window > attention_crossover_context else the weight matmuls",
    ),
    define(
        "attention_time_share",
        q("attention_runtime") / q("runtime"),
        "1",
        "fraction of the decode step spent in attention, each operation at its own roofline",
    ),
    define(
        "decode_ops_bound",
        q("weights_bound") + 2 * q("attention_bound"),
        "1",
        "which of the step's operations are compute-bound at this batch",
        labels=("neither: both memory-bound", "only the weight matmuls", "only attention", "both"),
        shown="weights_bound + 2·attention_bound",
    ),
]

FLASH_ATTENTION_IO = [
    define(
        "standard_attention_hbm_bytes",
        4 * SYM["batch"] * SYM["heads"] * SYM["sequence"] * SYM["head_dim"] * SYM["activation_bytes"]
        + 4 * q("score_matrix_bytes"),
        "byte",
        "standard attention per head: read Q, K; write S; read S, write P; read P, V; write O "
        "(Dao et al. 2022, Algorithm 0): Q, K, V, O once and the score matrix's size four times",
    ),
    define(
        "flash_block_rows",
        ceiling(SYM["sram_bytes"] / (4 * SYM["head_dim"] * SYM["activation_bytes"])),
        "1",
        "rows of K and V per block, B_c = ⌈M / 4d⌉ with M the SRAM counted in elements",
        exact=True,
    ),
    define(
        "flash_outer_passes",
        ceiling(SYM["sequence"] / q("flash_block_rows")),
        "1",
        "K/V blocks, T_c = ⌈N / B_c⌉: one pass over Q and O for each",
        exact=True,
    ),
    define(
        "flash_attention_hbm_bytes",
        SYM["batch"]
        * SYM["heads"]
        * SYM["sequence"]
        * SYM["head_dim"]
        * (2 + 3 * q("flash_outer_passes"))
        * SYM["activation_bytes"],
        "byte",
        "FlashAttention per head: K and V read once; each pass reads Q and O and writes O "
        "(Dao et al. 2022, Algorithm 1)",
    ),
    define(
        "flash_io_ratio",
        q("standard_attention_hbm_bytes") / q("flash_attention_hbm_bytes"),
        "1",
        "how many times more HBM traffic standard attention makes than FlashAttention",
    ),
    define(
        "fewer_hbm_bytes",
        Piecewise((1, q("flash_attention_hbm_bytes") < q("standard_attention_hbm_bytes")), (0, True)),
        "1",
        "which algorithm moves fewer bytes to and from HBM",
        labels=("standard attention", "FlashAttention"),
        shown="FlashAttention if flash_attention_hbm_bytes < standard_attention_hbm_bytes "
        "else standard attention",
    ),
]
