"""Mistakes in serving and its economics: throughput and cost per token, paged and
transferred KV caches, MFU and Chinchilla budgets, speculative decoding.
"""

from __future__ import annotations

from perfdrill.engine.problems.mistakes.mistake import Mistake, slip

SERVING: tuple[Mistake, ...] = (
    slip(
        "tokens-per-step",
        "Counted one token per step, not one per sequence",
        "Each decode step gives every sequence of the batch a token: throughput is batch ÷ step time.",
        tokens_per_second="1 / runtime",
    ),
    slip(
        "one-chip-price",
        "Priced one chip for all the chips' tokens",
        "Every chip serving the model is paid for: divide each chip's price by its own share of the tokens.",
        cost_per_million_tokens="cost_per_million_tokens / chips",
    ),
    slip(
        "page-waste-full-page",
        "Counted a whole empty page per sequence",
        "Only the last page is partly empty, and with lengths spread evenly it is half full on "
        "average: half a page of waste per sequence.",
        page_waste_tokens="page_size",
    ),
    slip(
        "chunk-compute-added",
        "Added the chunk's compute to the decode step",
        "The chunk rides in the same step: its math overlaps the weight reads the step makes "
        "anyway, so the step takes the larger of the two, not their sum.",
        mixed_runtime="runtime + chunk_flops / system_flops",
    ),
    slip(
        "kv-over-one-link",
        "Sent the whole cache over one chip's link",
        "Each chip holds its own share of the KV heads and sends it over its own link, all at the same time.",
        kv_transfer_time="kv_transfer_bytes / transfer_bandwidth",
    ),
    slip(
        "mfu-recompute-flops",
        "Counted the recomputed forward as model FLOPs",
        "MFU counts the model's 6 FLOP per parameter per token; recomputing activations adds 2 "
        "more that the hardware does (hardware FLOPs utilisation), not the model.",
        achieved_flops="achieved_flops * 4 / 3",
    ),
    slip(
        "chinchilla-2n",
        "Used C = 2·N·D for the training budget",
        "Training costs about 6 FLOP per parameter per token (2 forward, 4 backward), so "
        "N = √(C / (6 · tokens per parameter)).",
        chinchilla_params="sqrt(compute_budget / (2 * tokens_per_param))",
    ),
    slip(
        "mfu-one-chip",
        "Divided by one chip's peak",
        "The run's FLOP/s come from every chip: divide by the chips times each one's peak.",
        achieved_mfu="achieved_mfu * chips",
        decode_mfu="decode_mfu * chips",  # and a measured decode server's
    ),
    slip(
        "alpha-to-the-k",
        "Used α^k instead of α^(k+1)",
        "A round yields 1 + α + … + α^k tokens: k + 1 terms, the last for all k drafts accepted, "
        "so the closed form is (1 − α^(k+1)) ÷ (1 − α).",
        expected_tokens_per_round="(1 - acceptance_rate**draft_tokens) / (1 - acceptance_rate)",
    ),
    slip(
        "all-drafts-accepted",
        "Counted all k + 1 tokens every round",
        "The target rejects a draft with probability 1 − α and the round stops there: on average "
        "a round yields (1 − α^(k+1)) ÷ (1 − α) tokens, not k + 1.",
        expected_tokens_per_round="draft_tokens + 1",
    ),
    slip(
        "forgot-bonus-token",
        "Counted only the accepted drafts",
        "Every round also yields the target's own token (a correction, or a bonus after k "
        "accepted drafts): one more than the accepted drafts.",
        expected_tokens_per_round="expected_tokens_per_round - 1",
    ),
    slip(
        "forgot-draft-cost",
        "Left out the draft model's time",
        "The k draft steps run one after another before the verification: a round costs "
        "k·c + 1 target steps, not 1.",
        draft_cost_ratio="0",
        draft_step_time="0",
    ),
    slip(
        "verify-as-one-step",
        "Took the verification as one plain step",
        "The target scores k + 1 positions for every sequence: at a large batch that math, not "
        "the weight reads, sets the time, and verifying costs up to k + 1 plain steps.",
        verify_runtime="runtime",
        verify_slowdown="1",
    ),
)
