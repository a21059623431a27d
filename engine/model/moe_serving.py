"""Serving a mixture of experts: the weights a step actually reads, expert-parallel all-to-all
traffic, and what load imbalance costs.

- Weights read. A token picks experts_per_token (k) of the E routed experts, so an expert escapes
  one token with probability 1 − k/E and a batch of B tokens with (1 − k/E)^B, routing taken as
  uniform and independent between tokens. A step therefore touches E·(1 − (1 − k/E)^B) experts per
  MoE layer on average: about B·k at a small batch, all E at a large one. `decode(expert_reads=True)`
  reads only those (and every non-routed weight) instead of the whole model.
- Expert parallelism. With the experts spread over the N chips of an EP group, each chip sends
  every token it holds to the chips of its k experts and gets the outputs back: per MoE layer,
  tokens·d_model·bytes·k·(N−1)/N leave each chip each way (the 1/N that routes locally stays).
- Load imbalance. The layer ends when its busiest chip does; with `busiest_share` of all routed
  assignments on one chip, that chip does busiest_share·N times the even share of the expert math.
"""

from __future__ import annotations

from sympy import Max, Piecewise

from perfdrill.engine.model.formulas import SYM, define, q

EXPERT_READS = [
    define(
        "experts_touched",
        SYM["experts"] * (1 - (1 - SYM["experts_per_token"] / SYM["experts"]) ** SYM["batch"]),
        "1",
        "routed experts per MoE layer that at least one of the batch's tokens picks, on average "
        "(uniform, independent routing)",
    ),
    define(
        "expert_bytes_read",
        q("moe_layers") * q("experts_touched") * q("mlp_params_per_expert") * SYM["weight_bytes_per_param"],
        "byte",
        "the routed experts the batch touches, in every MoE layer",
    ),
    define(
        "weights_read_bytes",
        q("weight_bytes")
        - q("moe_layers") * SYM["experts"] * q("mlp_params_per_expert") * SYM["weight_bytes_per_param"]
        + q("expert_bytes_read"),
        "byte",
        "every weight except the routed experts no token of the batch picked",
    ),
]

EXPERT_PARALLEL = [
    define(
        "tokens_per_chip",
        SYM["batch"] * SYM["sequence"],
        "token",
        "tokens each chip brings to one MoE layer: a template that states them sets this directly",
        label="tokens per chip",  # a prefill chunk's 512 tokens, never "batch" times a length of 1
    ),
    define(
        "routed_assignments_per_chip",
        q("tokens_per_chip") * SYM["experts_per_token"],
        "1",
        "token-to-expert assignments per chip and MoE layer when routing is even: its tokens × k",
    ),
    define(
        "expert_compute_time",
        2 * q("routed_assignments_per_chip") * q("mlp_params_per_expert") / q("system_flops"),
        "s",
        "one MoE layer's expert matmuls on one chip, routing even: 2 FLOP per expert weight per assignment",
    ),
    define(
        "all_to_all_bytes",
        q("routed_assignments_per_chip")
        * SYM["d_model"]
        * SYM["activation_bytes"]
        * (SYM["participants"] - 1)
        / SYM["participants"],
        "byte",
        "what one chip sends in one direction (dispatch or combine) per MoE layer: a d_model vector "
        "per assignment, less the 1/N that stays on the chip",
    ),
    define(
        "all_to_all_time",
        q("all_to_all_bytes") / q("group_link_bandwidth"),
        "s",
        "one direction of one MoE layer's all-to-all over the chip's links",
    ),
    define(
        "moe_all_to_all_time",
        2 * q("moe_layers") * q("all_to_all_time"),
        "s",
        "dispatch and combine at every MoE layer of a forward pass",
    ),
    define(
        "all_to_all_vs_compute",
        Piecewise((1, 2 * q("all_to_all_time") > q("expert_compute_time")), (0, True)),
        "1",
        "which takes longer per MoE layer: the expert math or the dispatch and combine",
        labels=("the expert compute", "the dispatch and combine all-to-all"),
        phrases=("the expert compute takes longer", "the dispatch and combine all-to-all take longer"),
        shown="all-to-all if 2·all_to_all_time > expert_compute_time else the expert compute",
    ),
    define(
        "load_imbalance",
        SYM["busiest_share"] * SYM["participants"],
        "1",
        "the busiest chip's assignments over the even share (1 when routing is even)",
    ),
    define(
        "busiest_compute_time",
        q("load_imbalance") * q("expert_compute_time"),
        "s",
        "the busiest chip's expert matmuls in one MoE layer",
    ),
    define(
        "experts_per_chip",
        SYM["experts"] / SYM["participants"],
        "1",
        "routed experts of each MoE layer that one chip of the EP group holds",
    ),
    define(
        "local_expert_read_time",
        q("experts_per_chip")
        * q("mlp_params_per_expert")
        * SYM["weight_bytes_per_param"]
        / q("system_bandwidth"),
        "s",
        "reading the experts a chip holds, once per MoE layer",
    ),
    define(
        "moe_layer_time",
        Max(q("busiest_compute_time"), q("local_expert_read_time")),
        "s",
        "the layer waits for its busiest chip, at that chip's roofline",
    ),
    define(
        "balanced_moe_layer_time",
        Max(q("expert_compute_time"), q("local_expert_read_time")),
        "s",
        "the same layer with routing spread evenly",
    ),
    define(
        "imbalance_slowdown",
        q("moe_layer_time") / q("balanced_moe_layer_time"),
        "1",
        "how many times longer the layer takes than with even routing",
    ),
    define(
        "imbalance_next_step",
        Piecewise((1, q("busiest_compute_time") > q("local_expert_read_time")), (0, True)),
        "1",
        "what sets the layer's time, and so what to try first",
        labels=(
            "batch more: the layer waits on expert weight reads",
            "rebalance the experts: the busiest chip sets the time with its compute",
        ),
        shown="rebalance if busiest_compute_time > local_expert_read_time else batch more",
    ),
]
