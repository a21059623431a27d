"""Mistakes in attention, quantization and mixtures of experts: attention FLOPs and
FlashAttention's traffic, group scales, expert routing and all-to-all traffic.
"""

from __future__ import annotations

from perfdrill.engine.problems.mistakes.mistake import Mistake, slip

ATTENTION_MOE: tuple[Mistake, ...] = (
    slip(
        "attention-kv-heads",
        "Counted attention FLOPs at the KV heads",
        "Every query head scores and mixes the context on its own; GQA shares only the cached K and V.",
        attention_flops_per_sequence="attention_flops_per_sequence * kv_heads / heads",
        prompt_attention_flops="prompt_attention_flops * kv_heads / heads",  # and over a prompt
    ),
    slip(
        "causal-half-in-decode",
        "Halved decode attention as if it were causal",
        "The causal mask halves attention over a prompt; a new token attends to its whole context.",
        attention_flops_per_sequence="attention_flops_per_sequence / 2",
    ),
    slip(
        "scores-counted-once",
        "Counted the score matrix once",
        "Standard attention writes S, reads it back, writes P = softmax(S) and reads P again: "
        "four N² passes.",
        standard_attention_hbm_bytes="standard_attention_hbm_bytes - 3 * score_matrix_bytes",
    ),
    slip(
        "flash-one-pass",
        "Read Q and O only once in FlashAttention",
        "With K and V blocks in the outer loop, every block makes one more pass over Q and O.",
        flash_outer_passes="1",
    ),
    slip(
        "sram-bytes-as-elements",
        "Counted the SRAM in bytes, not elements",
        "B_c = ⌈M / 4d⌉ counts M in elements: a bf16 element takes 2 bytes of SRAM.",
        flash_block_rows="ceil(sram_bytes / (4 * head_dim))",
    ),
    slip(
        "ignored-group-scales",
        "Left out the group scales",
        "Each group of values also stores its scale (and any zero point): scale bits ÷ group size per value.",
        quantized_bits_per_value="quant_bits",
        weight_bytes_per_param="quant_bits / 8",
    ),
    slip(
        "ignored-kv-scales",
        "Left out the KV cache's scales",
        "A group-quantized cache also stores one scale per group of K or V values.",
        kv_bytes_per_element="kv_bytes_per_element * quant_bits / quantized_bits_per_value",
    ),
    slip(
        "low-precision-peak-ignored",
        "Kept the 16-bit peak for low-precision math",
        "Math in int8, fp8 or fp4 runs on tensor-core paths with their own, usually higher, peak.",
        peak_flops="bf16_peak_flops",
    ),
    slip(
        "experts-touched-no-overlap",
        "Assumed no two tokens pick the same expert",
        "Tokens often share experts: a batch touches E·(1 − (1 − k/E)^B) of them, fewer than B·k.",
        experts_touched="min(experts, batch * experts_per_token)",
    ),
    slip(
        "all-experts-read",
        "Read every expert each step",
        "A decode step reads only the experts its tokens route to; at a small batch most stay idle.",
        weights_read_bytes="weight_bytes",
    ),
    slip(
        "active-weights-only",
        "Read one token's active weights for the whole batch",
        "Different tokens pick different experts, so a batch reads more than one token's k experts.",
        # At batch 1 the active weights are exactly what is read: no slip there.
        weights_read_bytes="active_params * weight_bytes_per_param if batch > 1 else weights_read_bytes",
    ),
    slip(
        "all-to-all-no-topk",
        "Sent each token to one expert",
        "With top-k routing each token goes to k experts, so it is sent k times.",
        all_to_all_bytes="all_to_all_bytes / experts_per_token",
    ),
    slip(
        "all-to-all-local-share",
        "Sent the tokens bound for local experts too",
        "Of the N chips' experts, 1/N sit on the sending chip: only (N−1)/N of the traffic leaves it.",
        all_to_all_bytes="all_to_all_bytes * participants / (participants - 1)",
    ),
    slip(
        "all-to-all-one-way",
        "Counted the dispatch but not the combine",
        "The expert outputs travel back to their tokens' chips: a second all-to-all per MoE layer.",
        moe_all_to_all_time="moe_all_to_all_time / 2",
    ),
    slip(
        "even-load-assumed",
        "Assumed even routing",
        "The layer waits for its busiest chip, which does busiest share × N times the even share.",
        load_imbalance="1",
    ),
    slip(
        "every-expert-per-chip",
        "Read every expert on every chip",
        "With expert parallelism each chip holds and reads only E/N of the experts.",
        local_expert_read_time="local_expert_read_time * participants",
    ),
)
