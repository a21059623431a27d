"""Serving economics: latency targets, cost per token, KV-cache management and prefill/decode
disaggregation (training economics, MFU and Chinchilla, are in training_economics.py).

Each list sits on top of the building blocks in roofline.py and inference.py (a decode step as one
roofline, a prefill with the prefix "prefill_"), and workloads.py gathers them.

Sources behind the conventions (the tests reproduce the published figures):

- TPOT and TTFT: one decode step gives every sequence of the batch one token, so the time per
  output token is the step time; the prefill yields the first token. Request latency is
  TTFT + (output − 1)·TPOT (the split DistServe, Zhong et al. 2024, optimises for).
- PagedAttention (Kwon et al. 2023, vLLM): the cache lives in fixed-size pages, so only a
  sequence's last page is partly empty: on average half a page when lengths spread evenly,
  against a contiguous reservation of the longest length a request may reach.
"""

from __future__ import annotations

import sympy
from sympy import Eq, Max, Min, Piecewise, ceiling, floor

from perfdrill.engine.model.evaluation import CountRule
from perfdrill.engine.model.formulas import SYM, define, q
from perfdrill.engine.model.roofline import roofline

SECONDS_PER_HOUR = 3600
MILLION = sympy.Integer(10**6)

# -- serving latency, the TPOT target, cost (over decode() and prefill(prefix="prefill_")) --------
SERVING_LATENCY = [
    define(
        "tpot",
        q("runtime"),
        "s",
        "time per output token: each decode step gives every sequence of the batch one token",
    ),
    define(
        "ttft", q("prefill_runtime"), "s", "time to first token: the prefill, which yields the first token"
    ),
    define(
        "request_latency",
        q("ttft") + (SYM["output_tokens"] - 1) * q("tpot"),
        "s",
        "the first token comes from the prefill, each further token from one decode step",
    ),
    define(
        "latency_dominated_by",
        Piecewise((1, (SYM["output_tokens"] - 1) * q("tpot") > q("ttft")), (0, True)),
        "1",
        "which part of a request's latency is larger: the prefill or the decode steps",
        labels=("the time to first token (the prefill)", "the decode steps (TPOT per further token)"),
        shown="the decode steps if (output_tokens − 1)·tpot > ttft else the time to first token",
    ),
    define(
        "slo_math_batch",
        SYM["tpot_slo"] * q("system_flops") / q("flops_per_sequence"),
        "1",
        "sequences whose decode math fits in the TPOT target",
    ),
    define(
        "slo_read_batch",
        (SYM["tpot_slo"] * q("system_bandwidth") - q("weight_bytes"))
        / (SYM["context"] * q("kv_bytes_per_token")),
        "1",
        "sequences whose caches can be read in the TPOT target once the weights are",
    ),
    define(
        "slo_latency_batch",
        Max(0, floor(Min(q("slo_math_batch"), q("slo_read_batch")))),
        "1",
        "largest batch whose decode step (one roofline) meets the TPOT target: its math and its "
        "reads must each fit in the target",
        exact=CountRule(
            "batch",
            True,
            "tpot",
            "tpot_slo",
            fails="at batch {value} a decode step takes {need}, over the {have} target",
            holds="at batch {value} a decode step takes {need}, within the {have} target, so a larger "
            "batch meets it too",
        ),
    ),
    define(
        "slo_batch",
        Min(q("slo_latency_batch"), q("max_batch")),
        "1",
        "largest batch that both fits in memory and meets the TPOT target",
        exact=True,
    ),
    define(
        "slo_limit",
        Piecewise((1, q("slo_latency_batch") < q("max_batch")), (0, True)),
        "1",
        "what caps the batch: memory, or the TPOT target",
        labels=("memory: the largest batch that fits meets the target", "the TPOT target"),
        shown="the TPOT target if slo_latency_batch < max_batch else memory",
    ),
    define(
        "slo_fix",
        Piecewise((0, q("slo_latency_batch") < 1), (1, q("slo_latency_batch") < q("max_batch")), (2, True)),
        "1",
        "what meets the TPOT target: no batch when the weights alone take too long to read, else "
        "capping the batch, else nothing",
        labels=(
            "no batch meets it: spread the weights over more chips or quantize them",
            "cap the batch at the largest that meets the target",
            "nothing: the largest batch that fits already meets it",
        ),
        shown="no batch if slo_latency_batch < 1, cap the batch if slo_latency_batch < max_batch, "
        "else nothing",
    ),
    define(
        "tokens_per_second_per_chip",
        q("tokens_per_second") / SYM["chips"],
        "token/s",
        "output tokens per second each chip delivers",
    ),
    define(
        "cost_per_token",
        SYM["chip_hourly_price"] / (SECONDS_PER_HOUR * q("tokens_per_second_per_chip")),
        "USD/token",
        "one chip's hourly price (3600 s an hour) over the tokens it makes in that hour",
    ),
    define(
        "cost_per_million_tokens",
        MILLION * q("cost_per_token"),
        "USD",
        "what a million output tokens cost",
    ),
]

# -- KV-cache management: paging and prefix caching (over decode()) ------------------------------


def _fits(memory: str) -> CountRule:
    return CountRule(
        "batch",
        True,
        memory,
        "system_memory",
        fails="batch {value} needs {need} but {have} is available",
        holds="batch {value} needs {need} of the {have} available, so a larger batch fits too",
    )


_FREE = q("system_memory") - q("weight_bytes")  # what the weights leave for the KV caches

KV_PAGING = [
    define(
        "reserved_kv_bytes",
        SYM["batch"] * SYM["reserved_tokens"] * q("kv_bytes_per_token"),
        "byte",
        "contiguous allocation: every sequence reserves the longest length it may reach, up front",
    ),
    define(
        "reserved_memory_required",
        q("weight_bytes") + q("reserved_kv_bytes"),
        "byte",
        "weights plus the reserved caches",
    ),
    define(
        "reserved_max_batch",
        Max(0, floor(_FREE / (SYM["reserved_tokens"] * q("kv_bytes_per_token")))),
        "1",
        "largest batch whose reserved caches fit beside the weights",
        exact=_fits("reserved_memory_required"),
    ),
    define(
        "page_waste_tokens",
        SYM["page_size"] / 2,
        "token",
        "paged: only a sequence's last page is partly empty, half a page on average",
    ),
    define(
        "paged_tokens_per_sequence",
        SYM["context"] + q("page_waste_tokens"),
        "token",
        "the token slots a sequence's pages hold: its tokens plus its last page's empty slots",
    ),
    define(
        "paged_kv_bytes",
        SYM["batch"] * q("paged_tokens_per_sequence") * q("kv_bytes_per_token"),
        "byte",
        "the pages every sequence holds",
    ),
    define(
        "paged_memory_required",
        q("weight_bytes") + q("paged_kv_bytes"),
        "byte",
        "weights plus every sequence's pages",
    ),
    define(
        "paged_max_batch",
        Max(0, floor(_FREE / (q("paged_tokens_per_sequence") * q("kv_bytes_per_token")))),
        "1",
        "largest batch whose pages fit beside the weights",
        exact=_fits("paged_memory_required"),
    ),
    define(
        "reserved_waste_fraction",
        1 - SYM["context"] / SYM["reserved_tokens"],
        "1",
        "share of a reserved cache that holds no token",
    ),
    define(
        "paged_waste_fraction",
        q("page_waste_tokens") / q("paged_tokens_per_sequence"),
        "1",
        "share of a sequence's pages that holds no token",
    ),
    define(
        "prefix_kv_bytes_saved",
        (SYM["batch"] - 1) * SYM["shared_prefix"] * q("kv_bytes_per_token"),
        "byte",
        "a prefix every sequence shares is cached once instead of once per sequence",
    ),
    define(
        "prefix_memory_required",
        q("memory_required") - q("prefix_kv_bytes_saved"),
        "byte",
        "weights, one copy of the shared prefix, and each sequence's own tokens",
    ),
    define(
        "prefix_max_batch",
        Max(
            0,
            floor(
                (_FREE - SYM["shared_prefix"] * q("kv_bytes_per_token"))
                / ((SYM["context"] - SYM["shared_prefix"]) * q("kv_bytes_per_token"))
            ),
        ),
        "1",
        "largest batch that fits when the shared prefix is cached once",
        exact=_fits("prefix_memory_required"),
    ),
]

# -- chunked prefill: a chunk of prompt tokens rides in a decode step (over decode()) -------------
CHUNKED_PREFILL = [
    define(
        "chunk_flops",
        2 * q("active_params") * SYM["chunk"],
        "FLOP",
        "the chunk's prompt tokens, 2 FLOP per active parameter each",
    ),
    define("mixed_flops", q("flops") + q("chunk_flops"), "FLOP", "the decode tokens and the chunk"),
    define(
        "mixed_bytes",
        q("bytes") + SYM["chunk"] * q("kv_bytes_per_token"),
        "byte",
        "the decode step's reads (the weights serve the chunk too) plus the chunk's KV written once",
    ),
    *roofline("mixed_"),
    define(
        "chunk_slowdown",
        q("mixed_runtime") / q("runtime"),
        "1",
        "how much longer a decode step takes with the chunk aboard",
    ),
    define(
        "chunk_token_margin",
        2 * q("active_params") / q("system_flops") - q("kv_bytes_per_token") / q("system_bandwidth"),
        "s",
        "compute time one more chunk token brings minus the memory time it brings",
    ),
    define(
        "free_chunk",
        Max(0, floor((q("memory_time") - q("compute_time")) / q("chunk_token_margin"))),
        "token",
        "largest chunk that keeps the step memory-bound: its math hides under the weight reads",
        exact=CountRule(
            "chunk",
            True,
            "mixed_compute_time",
            "mixed_memory_time",
            fails="with a {value}-token chunk the step's math takes {need}, longer than its reads ({have})",
            holds="with a {value}-token chunk the step's math takes {need}, within its reads ({have}), "
            "so a larger chunk rides free too",
        ),
    ),
    define(
        "prefill_chunks",
        ceiling(SYM["prompt"] / SYM["chunk"]),
        "1",
        "decode steps the prompt rides in, one chunk each",
        exact=True,
    ),
    define(
        "chunked_ttft",
        q("prefill_chunks") * q("mixed_runtime"),
        "s",
        "time to first token when the prompt is prefilled chunk by chunk inside decode steps",
    ),
]

# -- prefill/decode disaggregation: the KV cache crosses to the decode chips (over prefill) -------
KV_TRANSFER = [
    define(
        "transfer_bandwidth",
        Piecewise(
            (SYM["link_peer_bandwidth"], Eq(SYM["transfer_link"], 1)),
            (SYM["host_link_bandwidth"], Eq(SYM["transfer_link"], 2)),
            (SYM["network_bandwidth"], True),
        ),
        "byte/s",
        "one-way bandwidth of the path the cache crosses: the chip-to-chip link to one peer, PCIe, "
        "or the network",
        shown="link_peer_bandwidth, host_link_bandwidth or network_bandwidth for transfer_link 1, 2 or 3",
    ),
    define(
        "kv_transfer_bytes",
        SYM["batch"] * SYM["prompt"] * q("kv_bytes_per_token"),
        "byte",
        "the KV cache of every prompt's tokens: what the prefill writes, and what a transfer moves",
    ),
    define(
        "kv_transfer_time",
        q("kv_transfer_bytes") / (SYM["chips"] * q("transfer_bandwidth")),
        "s",
        "each chip moves its share of the cache (its KV heads) over its own link, all at once",
    ),
    define(
        "kv_transfer_share",
        q("kv_transfer_time") / q("prefill_runtime"),
        "1",
        "the transfer time as a fraction of the prefill time",
    ),
    define(
        "serial_handoff",
        q("prefill_runtime") + q("kv_transfer_time"),
        "s",
        "from the prompt's arrival until the decode chips hold its cache, sent after the prefill ends",
    ),
    define(
        "streamed_handoff",
        Max(
            q("prefill_runtime") + q("kv_transfer_time") / SYM["layers"],
            q("prefill_runtime") / SYM["layers"] + q("kv_transfer_time"),
        ),
        "s",
        "until the decode chips hold the cache, each layer's sent as soon as that layer is "
        "prefilled: the slower stream sets the pace and one layer of the other is left over",
    ),
    define(
        "transfer_hidden",
        Piecewise((1, q("kv_transfer_time") <= q("prefill_runtime")), (0, True)),
        "1",
        "whether the transfer, streamed layer by layer, can hide behind the prefill",
        labels=("no: the transfer outlasts the prefill", "yes: it hides behind the prefill"),
        shown="yes if kv_transfer_time ≤ prefill_runtime else no",
    ),
]

# -- a preempted or evicted sequence's KV cache, fetched back or rebuilt (over KV_TRANSFER) ------
# The cache is fetched over PCIe from host memory or over the network from a KV store, or rebuilt by
# prefilling the sequence's context again as one prompt (prefill(attention=True, prefix="prefill_")).
KV_RELOAD = [
    define(
        "reload_choice",
        Piecewise((1, q("kv_transfer_time") < q("prefill_runtime")), (0, True)),
        "1",
        "the faster way to get a sequence's KV cache back: fetch it, or prefill its context again",
        labels=("recompute it: prefill the context again", "fetch the stored cache"),
        phrases=("recomputing is faster", "fetching is faster"),
        shown="fetch if kv_transfer_time < prefill_runtime else recompute",
        label="faster way back",
    ),
    define(
        "reload_break_even_bandwidth",
        q("kv_transfer_bytes") / (SYM["chips"] * q("prefill_runtime")),
        "byte/s",
        "the one-way link bandwidth per chip at which fetching the cache takes as long as "
        "recomputing it; over a slower link recomputing wins",
        label="break-even link bandwidth",
    ),
]
