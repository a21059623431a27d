"""Issue 22 §3 serving and memory: requests a second, the prefill:decode instance ratio, the
sequences a growing context evicts, the fewest chips meeting a TPOT target, and memory left
after the weights and each chip's share.

Over decode() and prefill(prefix="prefill_") (inference.py) and SERVING_LATENCY (serving.py):

- Requests a second by Little's law (L = λ·W): `batch` requests in flight, each lasting its
  request latency, leave at batch / latency.
- Prefill instances per decode instance: a decode instance finishes tokens_per_second / output
  requests a second; a prefill instance of the same chips starts batch / TTFT (DistServe, Zhong
  et al. 2024, sizes the two pools by this balance).
- Eviction: once each cache holds `context` tokens, only max_batch sequences fit beside the
  weights; the rest must be evicted (recomputed later) or swapped to host memory (vLLM's
  preemption, Kwon et al. 2023).
- A decode step's roofline time scales as 1/chips (work split evenly), so runtime·chips is what
  one chip would take and the fewest chips meeting the TPOT target is ⌈runtime·chips / target⌉,
  never fewer than hold the weights and caches.
"""

from __future__ import annotations

from sympy import Max, ceiling

from perfdrill.engine.model.formulas import SYM, define, q

SERVING_CAPACITY = [
    define(
        "queries_per_second",
        SYM["batch"] / q("request_latency"),
        "request/s",
        "requests finished a second with the batch in flight, each lasting its request latency "
        "(Little's law)",
        label="requests per second",
    ),
    define(
        "prefill_decode_ratio",
        q("tokens_per_second") * q("ttft") / (SYM["output_tokens"] * SYM["batch"]),
        "1",
        "prefill instances that keep one decode instance fed: requests it finishes a second "
        "(tokens/s ÷ output tokens) over those one prefill instance starts (batch ÷ TTFT)",
        label="prefill instances per decode instance",
    ),
    define(
        "slo_min_chips",
        ceiling(
            Max(q("runtime") * SYM["chips"] / SYM["tpot_slo"], q("memory_required") / SYM["memory_capacity"])
        ),
        "1",
        "fewest chips whose decode step meets the TPOT target and whose memory holds the weights and caches",
        label="fewest chips for the TPOT target",
        exact=True,
    ),
]

MEMORY_SHARES = [
    define(
        "free_memory",
        q("system_memory") - q("weight_bytes"),
        "byte",
        "memory left for KV caches and activations once the weights are loaded (negative: they do not fit)",
        label="memory after weights",
    ),
    define(
        "memory_per_chip",
        q("memory_required") / SYM["chips"],
        "byte",
        "each chip's share of the weights and caches, split evenly",
        label="memory per chip",
    ),
    define(
        "evicted_sequences",
        Max(0, SYM["batch"] - q("max_batch")),
        "1",
        "sequences that must be evicted or swapped out once every cache holds this context",
        label="sequences evicted",
        whole=True,
    ),
    define(
        "evicted_kv_bytes",
        q("evicted_sequences") * SYM["context"] * q("kv_bytes_per_token"),
        "byte",
        "the KV caches those sequences take with them (what a swap writes to host memory)",
        label="KV bytes evicted",
    ),
]
