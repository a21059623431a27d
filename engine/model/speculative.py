"""Speculative decoding: a small draft model proposes k tokens, the large target model checks them
all in one step, and every round yields between 1 and k + 1 tokens.

Source: Leviathan, Kalman and Matias, "Fast Inference from Transformers via Speculative Decoding"
(ICML 2023, arXiv 2211.17192); the tests reproduce its worked values.

- Tokens per round (their Eq. 1). With each drafted token accepted with probability α, independently,
  a round accepts the first n drafts with probability α^n and the target adds one token of its own
  (a correction, or a bonus when all k are accepted): E = 1 + α + … + α^k = (1 − α^(k+1)) / (1 − α).
- Speed-up (their Theorem 3.8). A round costs k draft steps (each c target steps) and one
  verification; while the target is memory-bound, verifying k + 1 positions reads the same weights
  and caches as one plain step, so the round costs k·c + 1 steps and the speed-up is E ÷ (k·c + 1).
  At a large batch the verification becomes compute-bound and costs up to k + 1 plain steps: its cost
  `verify_slowdown` (s) then replaces the 1, and speculation can lose.
- Best draft length. For a fixed s the speed-up E(k) ÷ (k·c + s) rises while one more draft token
  pays and then falls (E grows by α^(k+1) per token, a falling amount, while the cost grows by c),
  so the best k is the first where k + 1 tokens would not beat k. With γ = 1 the speed-up is
  (1 + α) ÷ (1 + c): some draft length pays exactly when α > c (their Corollary 3.9).
"""

from __future__ import annotations

import sympy
from sympy import Piecewise

from perfdrill.engine.model.formulas import SYM, Formula, define, q
from perfdrill.engine.model.roofline import roofline

ALPHA, DRAFTS, COST, VERIFY = (
    SYM["acceptance_rate"],
    SYM["draft_tokens"],
    SYM["draft_cost_ratio"],
    SYM["verify_slowdown"],
)
LONGEST_DRAFT = 16  # the longest draft the best-length search looks at; templates stay below it


def _tokens_per_round(drafts: sympy.Expr) -> sympy.Expr:
    return (1 - ALPHA ** (drafts + 1)) / (1 - ALPHA)


def _speedup_at(drafts: int) -> sympy.Expr:
    return _tokens_per_round(sympy.Integer(drafts)) / (drafts * COST + VERIFY)


# Shared by both workloads: what a round yields and what it is worth against plain decoding.
SPECULATION: list[Formula] = [
    define(
        "expected_tokens_per_round",
        _tokens_per_round(DRAFTS),
        "1",
        "tokens one round yields on average: the accepted drafts plus the target's own token, "
        "1 + α + … + α^k (Leviathan et al. 2023, Eq. 1)",
        label="tokens per round",
    ),
    define(
        "speculative_speedup",
        q("expected_tokens_per_round") / (DRAFTS * COST + VERIFY),
        "1",
        "tokens per round over the round's cost in plain target steps: k draft steps at c each, "
        "plus the verification (Leviathan et al. 2023, Theorem 3.8)",
        label="speed-up",
    ),
    define(
        "speculative_pays",
        Piecewise((1, q("speculative_speedup") > 1), (0, True)),
        "1",
        "whether speculation beats plain decoding",
        labels=("no: plain decoding is faster", "yes: speculation is faster"),
        phrases=("speculation does not pay", "speculation pays"),
        shown="yes if speculative_speedup > 1 else no",
        label="speculation against plain decoding",  # the comparison: the phrase gives the verdict
    ),
    define(
        "round_bottleneck",
        Piecewise((1, DRAFTS * COST > VERIFY), (0, True)),
        "1",
        "which takes more of a round: the k draft steps or the target's check",
        labels=("the target's check", "the draft steps"),
        phrases=("the check takes more of the round", "the draft steps take more of the round"),
        shown="the draft steps if k·c > verification cost else the check",
        label="larger part of a round",
    ),
]

# Leviathan et al.'s model on its own, from α, k, c and the verification's cost.
DRAFT_LENGTH: list[Formula] = [
    define(
        "all_drafts_accepted",
        ALPHA**DRAFTS,
        "1",
        "chance that a round accepts all k drafts and so yields k + 1 tokens",
        label="chance all drafts are accepted",
    ),
    define(
        "best_draft_tokens",
        Piecewise(
            *((k, _speedup_at(k + 1) <= _speedup_at(k)) for k in range(1, LONGEST_DRAFT)),
            (LONGEST_DRAFT, True),
        ),
        "1",
        "the draft length with the greatest speed-up: the first k where drafting one more token "
        f"would not pay (the speed-up rises, then falls; searched up to {LONGEST_DRAFT})",
        exact=True,
        shown=f"the first k from 1 whose speed-up is at least that of k + 1 (at most {LONGEST_DRAFT})",
        label="best draft length",
    ),
]

# A served target and draft on a chip: a round's times from the decode roofline (inference.decode).
SPECULATIVE_STEP: list[Formula] = [
    define(
        "draft_cost_ratio",
        SYM["draft_step_time"] / q("runtime"),
        "1",
        "one draft step over one plain target decode step (c)",
        label="c",
    ),
    define(
        "verify_flops",
        (DRAFTS + 1) * q("flops"),
        "FLOP",
        "the target scores the k drafts and one position more, for every sequence of the batch",
        label="verification FLOPs",
    ),
    define(
        "verify_bytes",
        q("bytes"),
        "byte",
        "the weights and every KV cache, read once for all k + 1 positions",
        label="verification bytes",
    ),
    *roofline("verify_"),
    define(
        "verify_slowdown",
        q("verify_runtime") / q("runtime"),
        "1",
        "one verification over one plain decode step: 1 while memory-bound, up to k + 1 when compute-bound",
        label="verification cost",
    ),
    define(
        "speculative_round_time",
        DRAFTS * SYM["draft_step_time"] + q("verify_runtime"),
        "s",
        "k draft steps, one after another, then one verification",
        label="round time",
    ),
    define(
        "speculative_tpot",
        q("speculative_round_time") / q("expected_tokens_per_round"),
        "s",
        "time per output token of each sequence with speculation",
        label="time per token with speculation",
    ),
]
