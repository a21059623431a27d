"""Collectives beyond the bandwidth term: the α–β model, all-gather and reduce-scatter in their own
right, bus vs algorithm bandwidth, and the hierarchical all-reduce across nodes.

They extend workloads.collective() (ring_pass_time, all_reduce_time) rather than repeat it.
Sources: Thakur, Rabenseifner and Gropp 2005, "Optimization of Collective Communication Operations
in MPICH" (ring: (p−1)·α per pass; recursive doubling: lg p·α + lg p·n·β); NVIDIA nccl-tests
doc/PERFORMANCE.md (algbw = S/t; busbw = algbw·2(n−1)/n for all-reduce, ·(n−1)/n for all-gather and
reduce-scatter); the ZeRO paper (ZeRO-3 moves 3Ψ per step against data parallelism's 2Ψ);
jax-ml/scaling-book gpus.md (8×400 Gb/s NICs per DGX H100 node: reduce inside the node first).
"""

from __future__ import annotations

import sympy
from sympy import Min, Piecewise

from perfdrill.engine.model.formulas import SYM, define, q

_N = SYM["participants"]
_ALPHA = SYM["link_latency"]
_STEPS = 2 * (_N - 1)

ALPHA_BETA = [
    define(
        "alpha_beta_all_reduce_time",
        _STEPS * _ALPHA + q("all_reduce_time"),
        "s",
        "ring all-reduce with its latency: 2(N−1) steps of α each, plus the bandwidth term",
    ),
    define(
        "alpha_beta_all_gather_time",
        (_N - 1) * _ALPHA + q("ring_pass_time"),
        "s",
        "ring all-gather (or reduce-scatter): N−1 steps of α, plus (N−1)/N of the buffer sent",
    ),
    define(
        "latency_share",
        _STEPS * _ALPHA / q("alpha_beta_all_reduce_time"),
        "1",
        "share of the ring all-reduce's time spent in per-step latency",
    ),
    define(
        "latency_bound",
        Piecewise((1, q("all_reduce_time") <= _STEPS * _ALPHA), (0, True)),
        "1",
        "which term of the ring all-reduce is larger",
        labels=("bandwidth-bound", "latency-bound"),
        shown="latency-bound if 2(N−1)·α ≥ the bandwidth term else bandwidth-bound",
        label="larger term",  # the comparison: "latency bound: …, so bandwidth-bound" contradicted itself
    ),
    define(
        "recursive_doubling_time",
        sympy.log(_N, 2) * (_ALPHA + SYM["collective_bytes"] / SYM["link_peer_bandwidth"]),
        "s",
        "recursive-doubling all-reduce: log2 N steps, each swapping the whole buffer with one peer",
    ),
    define(
        "faster_all_reduce",
        Piecewise((1, q("recursive_doubling_time") < q("alpha_beta_all_reduce_time")), (0, True)),
        "1",
        "the faster of the two all-reduce algorithms for this buffer",
        labels=("ring", "recursive doubling"),
        shown="recursive doubling if recursive_doubling_time < alpha_beta_all_reduce_time else ring",
    ),
    define(
        "half_bandwidth_bytes",
        _N * _ALPHA * q("group_link_bandwidth"),
        "byte",
        "buffer at which the ring all-reduce's latency term equals its bandwidth term",
    ),
]

# nccl-tests: algbw = size / time; busbw rescales it to the per-GPU link rate the algorithm used.
BUS_BANDWIDTH = [
    define(
        "algorithm_bandwidth",
        SYM["collective_bytes"] / SYM["measured_runtime"],
        "byte/s",
        "nccl-tests algbw: the buffer size over the measured time",
    ),
    define(
        "all_reduce_bus_bandwidth",
        q("algorithm_bandwidth") * 2 * (_N - 1) / _N,
        "byte/s",
        "nccl-tests busbw of an all-reduce: algbw · 2(N−1)/N, comparable with one GPU's link",
    ),
    define(
        "all_gather_bus_bandwidth",
        q("algorithm_bandwidth") * (_N - 1) / _N,
        "byte/s",
        "nccl-tests busbw of an all-gather or reduce-scatter: algbw · (N−1)/N",
    ),
    define(
        "link_utilisation",
        q("all_reduce_bus_bandwidth") / q("group_link_bandwidth"),
        "1",
        "the all-reduce's bus bandwidth as a share of the link's one-way rate",
    ),
    define(
        "bus_bandwidth_verdict",
        Piecewise((1, q("link_utilisation") >= 0.5), (0, True)),
        "1",
        "whether the measured bus bandwidth says the traffic runs over the GPU link",
        labels=("far below the GPU link: the traffic takes another path", "near the rate of the GPU link"),
        shown="near the link if link_utilisation ≥ 0.5 else another path",
    ),
    define(
        "measured_step_latency",
        SYM["measured_runtime"] / _STEPS,
        "s",
        "a tiny all-reduce is all latency: its time shared over the ring's 2(N−1) steps",
    ),
]

# ZeRO-3 / FSDP: all-gather the weights in forward and again in backward, reduce-scatter gradients.
SHARDED_COLLECTIVES = [
    define(
        "shard_bytes",
        SYM["collective_bytes"] / _N,
        "byte",
        "what each GPU holds of a buffer sharded evenly over the N GPUs",
    ),
    define(
        "all_gather_time",
        q("ring_pass_time"),
        "s",
        "ring all-gather: each GPU sends its shard around, (N−1)/N of the gathered buffer",
    ),
    define(
        "reduce_scatter_time",
        q("ring_pass_time"),
        "s",
        "ring reduce-scatter: the same (N−1)/N of the buffer, summed on the way",
    ),
    define(
        "zero3_step_comm_time",
        2 * q("all_gather_time") + q("reduce_scatter_time"),
        "s",
        "ZeRO-3 per step: all-gather the weights for forward and for backward, reduce-scatter "
        "the gradients (3Ψ moved against data parallelism's 2Ψ)",
    ),
]

_G, _NODES = SYM["node_chips"], SYM["nodes"]
_BYTES = SYM["collective_bytes"]

# A ring through every GPU of several nodes crosses the network at each node boundary, so every
# step runs at one NIC's rate. The hierarchical all-reduce sends only 1/g of the buffer per GPU
# over the network, and every NIC of the node works at once.
HIERARCHICAL = [
    define(
        "node_link_bandwidth",
        Min(SYM["link_bandwidth"], (_G - 1) * SYM["link_peer_bandwidth"]),
        "byte/s",
        "one-way bandwidth a GPU drives to the other GPUs of its node",
    ),
    define(
        "flat_ring_all_reduce_time",
        2 * (_NODES * _G - 1) / (_NODES * _G) * _BYTES / (SYM["node_nics"] * SYM["network_bandwidth"]),
        "s",
        "flat rings through all nodes·g GPUs, one per NIC (NCCL's rails), each carrying its share of the "
        "buffer: every step waits on the slowest hop, a NIC",
    ),
    define(
        "intra_node_reduce_scatter_time",
        (_G - 1) / _G * _BYTES / q("node_link_bandwidth"),
        "s",
        "step 1: reduce-scatter inside each node; each GPU ends with 1/g of the sum",
    ),
    define(
        "inter_node_all_reduce_time",
        2 * (_NODES - 1) / _NODES * (_BYTES / _G) / (SYM["network_bandwidth"] * SYM["node_nics"] / _G),
        "s",
        "step 2: each GPU all-reduces its 1/g shard with its peers in the other nodes, over its share "
        "of the node's NICs",
    ),
    define(
        "hierarchical_all_reduce_time",
        2 * q("intra_node_reduce_scatter_time") + q("inter_node_all_reduce_time"),
        "s",
        "reduce-scatter in the node, all-reduce across nodes, all-gather in the node",
    ),
    define(
        "hierarchical_speedup",
        q("flat_ring_all_reduce_time") / q("hierarchical_all_reduce_time"),
        "1",
        "how many times faster the hierarchical all-reduce is than the flat rings (below 1: slower)",
    ),
]

# Issue 13, bank shape: a decode step split over `participants` chips with Megatron tensor
# parallelism. Each layer all-reduces its output (batch × model width) twice; small messages pay the
# α of every ring step (ALPHA_BETA above), so at a small batch latency can dominate.
TP_DECODE = [
    define(
        "collective_bytes",
        SYM["batch"] * SYM["d_model"] * SYM["activation_bytes"],
        "byte",
        "one layer's output for the step's new tokens: batch × model width",
        label="all-reduce buffer",
    ),
    define(
        "tp_decode_comm_time",
        2 * SYM["layers"] * q("alpha_beta_all_reduce_time"),
        "s",
        "two all-reduces per layer (after attention and after the MLP), one after another",
        label="all-reduce time per step",
    ),
    define(
        "tp_decode_step_time",
        q("runtime") + q("tp_decode_comm_time"),
        "s",
        "the step's reads and math on its share of each chip, then its all-reduces, not overlapped",
        label="step time with all-reduces",
    ),
    define(
        "tp_decode_comm_share",
        q("tp_decode_comm_time") / q("tp_decode_step_time"),
        "1",
        "share of the step spent all-reducing",
        label="all-reduce share of the step",
    ),
]
