"""Collectives over a TPU's ICI torus: bidirectional links and several axes at once.

The JAX scaling book's model (jax-ml/scaling-book sharding.md, "A Deeper Dive into TPU Communication
Primitives"): over an axis with a wraparound link each chip sends half of the data each way, so an
all-gather of V bytes takes V / W_ICI with W_ICI the bidirectional bandwidth of one axis (twice one
link's one-way rate); gathering over n axes at once divides it by n. Each hop costs at least
T_min, and the longest path is Σ|X_i|/2 hops, so T = max(T_min·Σ|X_i|/2, V / (W_ICI·n)). The book
takes (N−1)/N as 1. A reduce-scatter costs the same, an all-reduce twice, an all-to-all a quarter.
"""

from __future__ import annotations

from sympy import Max

from perfdrill.engine.model.formulas import SYM, define, q

_AXES = SYM["ici_axes"]

ICI_COLLECTIVES = [
    define(
        "ici_bidirectional_bandwidth",
        2 * SYM["ici_link_bandwidth"] * _AXES,
        "byte/s",
        "both directions of one link on each axis the collective spans (W_ICI × axes)",
        label="ICI bandwidth used",
    ),
    define(
        "ici_all_gather_bandwidth_time",
        SYM["collective_bytes"] / q("ici_bidirectional_bandwidth"),
        "s",
        "all-gather (or reduce-scatter) of the gathered array over bidirectional torus axes",
        label="all-gather bandwidth time",
    ),
    define(
        "ici_latency_time",
        SYM["link_latency"] * _AXES * SYM["ici_axis_size"] / 2,
        "s",
        "the longest path, half of each axis's chips in hops, at the least time of one hop",
        label="hop latency time",
    ),
    define(
        "ici_all_gather_time",
        Max(q("ici_latency_time"), q("ici_all_gather_bandwidth_time")),
        "s",
        "all-gather or reduce-scatter: bound by bandwidth, or by hop latency for small arrays",
        label="all-gather time",
    ),
    define(
        "ici_all_reduce_time",
        2 * q("ici_all_gather_time"),
        "s",
        "a reduce-scatter followed by an all-gather",
        label="all-reduce time",
    ),
    define(
        "ici_all_to_all_time",
        Max(q("ici_latency_time"), q("ici_all_gather_bandwidth_time") / 4),
        "s",
        "each shard goes only part-way round the ring: a quarter of an all-gather's traffic",
        label="all-to-all time",
    ),
]

# When data, fully-sharded data and tensor parallelism over ICI stay compute-bound (scaling-book
# training.md): α = C / W_ICI is the ICI's arithmetic intensity (2,550 on TPU v5p). DP and FSDP need
# more than α / axes tokens per chip; tensor parallelism at most axes·F / α ways; FSDP mixed with
# tensor parallelism over M_X and M_Y axes at least 4α² / (F·M_X·M_Y) tokens per chip.
ICI_PARALLELISM = [
    define(
        "ici_intensity",
        SYM["peak_flops"] / (2 * SYM["ici_link_bandwidth"]),
        "FLOP/byte",
        "one chip's FLOP/s over the bidirectional bandwidth of one ICI axis (α)",
        label="ICI intensity",
    ),
    define(
        "dp_min_batch_per_chip",
        q("ici_intensity") / _AXES,
        "token",
        "the fewest tokens per chip at which data (or fully-sharded data) parallelism stays compute-bound",
        label="least batch per chip for DP/FSDP",
    ),
    define(
        "dp_max_chips",
        SYM["batch_tokens"] / q("dp_min_batch_per_chip"),
        "1",
        "the most chips a batch can be split over by data parallelism before communication binds",
        label="most chips for DP/FSDP",
    ),
    define(
        "tp_max_degree",
        _AXES * SYM["ffn"] / q("ici_intensity"),
        "1",
        "the most ways tensor parallelism can split the MLP before communication binds",
        label="most TP ways",
    ),
    define(
        "mixed_min_batch_per_chip",
        4 * q("ici_intensity") ** 2 / (SYM["ffn"] * SYM["fsdp_axes"] * SYM["tp_axes"]),
        "token",
        "the fewest tokens per chip at which FSDP mixed with tensor parallelism stays compute-bound",
        label="least batch per chip for FSDP + TP",
    ),
]
