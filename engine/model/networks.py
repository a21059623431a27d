"""Issue 22 §3 collectives: a switch's full bandwidth against a network's bisection, and the
two-level (NVLink inside a node, a NIC between nodes) all-reduce of collectives.py for calc.

An all-to-all in which each of N chips holds V bytes and sends V/N to every other chip is bound
twice (Dally & Towles, "Principles and Practices of Interconnection Networks", ch. 3: uniform
traffic is limited by injection and by the bisection):
- injection: each chip sends (N−1)/N·V over its own link;
- bisection: half the chips send half of their data across the middle, N/2 · V/2 = N·V/4 bytes
  each way over the cut's one-way bandwidth.
A non-blocking switch's bisection is N/2 links, so there injection binds; a ring's is 2 links and
an oversubscribed fat tree's N/2 links ÷ the oversubscription, where the cut can bind.
"""

from __future__ import annotations

from sympy import Max, Piecewise

from perfdrill.engine.model.formulas import SYM, define, q

_N, _V = SYM["participants"], SYM["collective_bytes"]

BISECTION = [
    define(
        "switch_bisection_bandwidth",
        _N / 2 * SYM["link_bandwidth"],
        "byte/s",
        "the bisection of a non-blocking switch: half of the chips' links, each at full rate",
        label="switch bisection bandwidth",
    ),
    define(
        "all_to_all_injection_time",
        (_N - 1) / _N * _V / SYM["link_bandwidth"],
        "s",
        "each chip sends all but its own share over its own link",
        label="injection time",
    ),
    define(
        "all_to_all_bisection_time",
        _N * _V / 4 / SYM["bisection_bandwidth"],
        "s",
        "half of the chips send half of their data across the cut: N·V/4 bytes each way",
        label="bisection time",
    ),
    define(
        "network_all_to_all_time",
        Max(q("all_to_all_injection_time"), q("all_to_all_bisection_time")),
        "s",
        "the all-to-all takes the longer of its injection and its bisection bound",
        label="all-to-all time",
    ),
    define(
        "all_to_all_limit",
        Piecewise((1, q("all_to_all_bisection_time") > q("all_to_all_injection_time")), (0, True)),
        "1",
        "what binds the all-to-all: each chip's link, or the network's bisection",
        labels=("each chip's link (injection)", "the bisection"),
        shown="the bisection if all_to_all_bisection_time > all_to_all_injection_time else injection",
    ),
]
