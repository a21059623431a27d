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
