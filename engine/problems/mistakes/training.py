"""Mistakes in training and communication: optimizer state under ZeRO, the pipeline bubble,
collectives and their bandwidths, and kernel-level effects (waves, occupancy, L2).
"""

from __future__ import annotations

from perfdrill.engine.problems.mistakes.mistake import Mistake, slip

TRAINING: tuple[Mistake, ...] = (
    slip(
        "adam-without-master",
        "Left the fp32 master weights out of Adam's state",
        "Mixed-precision Adam keeps an fp32 copy of the weights beside m and v: "
        "K = 4 + 4 + 4 = 12 bytes per parameter, not 8.",
        optimizer_bytes_per_param="optimizer_bytes_per_param - 4",
    ),
    slip(
        "zero-stage-mixup",
        "Sharded one more state than the ZeRO stage does",
        "ZeRO-1 shards only the optimizer state, ZeRO-2 adds the gradients, and only ZeRO-3 "
        "shards the weights too.",
        zero1_state_bytes="zero2_state_bytes",
        zero2_state_bytes="zero3_state_bytes",
    ),
    slip(
        "selective-kept-scores",
        "Kept the attention scores under selective recomputation",
        "Selective recomputation drops exactly the s×s attention activations (the 5·a·s/h term) "
        "and recomputes them in backward.",
        selective_activation_memory="activation_memory",
    ),
    slip(
        "bubble-over-ideal",
        "Divided the bubble by the busy time, not the step",
        "(p − 1)/m is the bubble relative to the m busy slots; as a share of the whole step "
        "it is (p − 1)/(m + p − 1).",
        pipeline_bubble_fraction="(pipeline_stages - 1) / microbatches",
        interleaved_bubble_fraction="(pipeline_stages - 1) / (virtual_stages * microbatches)",
        min_microbatches="ceil((pipeline_stages - 1) * 100 / bubble_target_percent)",
    ),
    slip(
        "bubble-ignored",
        "Left out the pipeline's fill and drain",
        "The first micro-batch needs p − 1 slots to reach the last stage and the last one p − 1 "
        "to drain: a step is m + p − 1 slots, not m.",
        pipeline_step_time="microbatches * stage_microbatch_time",
    ),
    slip(
        "backward-as-forward",
        "Counted the backward pass at 2 FLOP per parameter per token",
        "Backward computes gradients of both the activations and the weights: 4 FLOP per "
        "parameter per token, twice the forward pass.",
        backward_time="backward_time / 2",
    ),
    slip(
        "no-overlap",
        "Left the whole all-reduce exposed",
        "Bucketed all-reduces run while backward is still going; only what outlasts "
        "backward, at least the last bucket, is exposed.",
        exposed_comm_time="all_reduce_time",
    ),
    slip(
        "one-all-reduce-per-layer",
        "Counted one all-reduce per layer, not two",
        "Megatron tensor parallelism all-reduces after attention and again after the MLP in "
        "every layer's forward pass.",
        tp_layer_comm_time="all_reduce_time",
    ),
    slip(
        "latency-once",
        "Counted the latency once, not per step",
        "A ring all-reduce is 2(N − 1) steps and each pays the latency α; an all-gather is N − 1.",
        alpha_beta_all_reduce_time="link_latency + all_reduce_time",
        alpha_beta_all_gather_time="link_latency + ring_pass_time",
        measured_step_latency="measured_runtime",
    ),
    slip(
        "algbw-as-busbw",
        "Took algorithm bandwidth for bus bandwidth",
        "nccl-tests' algbw is size ÷ time; busbw = algbw·2(N − 1)/N for an all-reduce is what "
        "compares with one GPU's link.",
        all_reduce_bus_bandwidth="algorithm_bandwidth",
        all_gather_bus_bandwidth="algorithm_bandwidth",
    ),
    slip(
        "shard-as-buffer",
        "Used one GPU's shard as the gathered buffer",
        "An all-gather's size is the whole gathered buffer, N shards; each GPU sends (N − 1)/N of it.",
        collective_bytes="collective_bytes / participants",
    ),
    slip(
        "all-gather-as-all-reduce",
        "Counted an all-gather as an all-reduce",
        "An all-gather or a reduce-scatter is one pass around the ring; an all-reduce is two.",
        all_gather_time="2 * ring_pass_time",
        reduce_scatter_time="2 * ring_pass_time",
        intra_node_reduce_scatter_time="2 * intra_node_reduce_scatter_time",
    ),
    slip(
        "gbit-as-gbyte",
        "Read Gb/s as GB/s",
        "Network links are quoted in gigabits per second: divide by 8 for gigabytes per second.",
        network_bandwidth="8 * network_bandwidth",
    ),
    slip(
        "full-buffer-across-nodes",
        "Sent the whole buffer across nodes from every GPU",
        "After the in-node reduce-scatter each GPU holds 1/g of the sum, and only that shard "
        "crosses the network.",
        inter_node_all_reduce_time="inter_node_all_reduce_time * node_chips",
    ),
    slip(
        "fractional-waves",
        "Counted a fraction of a wave",
        "Waves are whole: one tile more than the SMs hold runs a second wave as long as the first.",
        waves="output_tiles / sm_count",
    ),
    slip(
        "full-occupancy",
        "Assumed a small launch streams at full bandwidth",
        "With fewer thread blocks than SMs the idle SMs issue no loads, so the kernel cannot "
        "reach the full HBM rate.",
        busy_sm_fraction="1",
    ),
    slip(
        "l2-ignored",
        "Read the weights from HBM on every call",
        "Weights that fit in L2 stay there between back-to-back calls, so HBM serves only the activations.",
        weights_fit_l2="0",
    ),
)
