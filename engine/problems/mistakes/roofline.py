"""Mistakes in the roofline's own arithmetic: FLOP counts, datasheet peaks, bytes per
element, the KV cache, units and prefixes.
"""

from __future__ import annotations

from perfdrill.engine.problems.mistakes.mistake import Mistake, slip

ROOFLINE: tuple[Mistake, ...] = (
    slip(
        "matmul-missing-2",
        "Missing the 2 in FLOPs",
        "A multiply-add is two FLOPs, so a matmul costs 2·m·k·n and a token 2 FLOP per parameter.",
        flops="flops / 2",
        prefill_flops="prefill_flops / 2",
    ),
    slip(
        "sparse-peak",
        "Used the sparse datasheet peak",
        "Datasheets headline 2:4 structured-sparsity FLOP/s; dense math runs at half of that.",
        peak_flops="sparse_peak_flops",  # only chips that publish one, and never the fp32 path
    ),
    slip(
        "bits-as-bytes",
        "Bits read as bytes",
        "A byte is 8 bits: an 8-bit weight is 1 byte, a 4-bit weight half a byte.",
        weight_bytes_per_param="8 * weight_bytes_per_param",
    ),
    slip(
        "gib-as-gb",
        "GiB written as GB",
        "Dividing by 2^30 gives GiB; a GB is 10^9 bytes, about 7% less than a GiB.",
        answer="answer * 1e9 / 2**30",
    ),
    slip(
        "spec-gib-as-gb",
        "Read the chip's GiB as GB",
        "This chip's memory is quoted in GiB (2^30 bytes), about 7% more than the same number of GB.",
        memory_capacity="memory_capacity_read_as_gb",  # only chips quoted in GiB
    ),
    slip(
        "kv-one-tensor",
        "Counted K or V, not both",
        "The cache keeps both a key and a value vector per KV head per layer.",
        kv_elements_per_token_per_layer="kv_elements_per_token_per_layer / 2",
    ),
    slip(
        "query-heads-for-kv",
        "Used query heads for the KV cache",
        "With grouped-query or multi-query attention the cache holds kv_heads, not the query heads.",
        kv_bytes_per_token="kv_bytes_per_token * heads / kv_heads",  # the weights stay as they are
    ),
    slip(
        "fp32-bytes",
        "Used fp32's 4 bytes for a 16-bit dtype",
        "bf16 and fp16 take 2 bytes per element, not 4.",
        activation_bytes="4 if activation_bytes == 2 else activation_bytes",
        weight_bytes_per_param="4 if weight_bytes_per_param == 2 else weight_bytes_per_param",
        kv_bytes_per_element="4 if kv_bytes_per_element == 2 else kv_bytes_per_element",
    ),
    slip(
        "weights-per-sequence",
        "Read the weights once per sequence",
        "A decode step reads the weights once and the whole batch shares them.",
        weight_bytes="weight_bytes * batch",
    ),
    slip(
        "forgot-kv-cache",
        "Left out the KV cache",
        "Every decode step also reads each sequence's KV cache, and the cache takes memory.",
        kv_cache_bytes="0",
    ),
    slip(
        "forgot-layers",
        "Forgot to multiply by the layers",
        "The per-layer figure repeats in every layer of the model.",
        kv_bytes_per_token="kv_bytes_per_token / layers",
        tp_forward_comm_time="tp_forward_comm_time / layers",
        activation_memory="activation_memory / layers",
    ),
    slip(
        "bidirectional-link",
        "Used the bidirectional link figure",
        "Datasheets headline both directions added together; one send sees one direction, half that figure.",
        link_bandwidth="2 * link_bandwidth",
        link_peer_bandwidth="2 * link_peer_bandwidth",
    ),
    slip(
        "all-reduce-one-pass",
        "All-reduce as a single pass",
        "A ring all-reduce is a reduce-scatter plus an all-gather: the data crosses the ring twice.",
        all_reduce_time="ring_pass_time",
    ),
    slip(
        "all-reduce-whole-buffer",
        "Missing the (N−1)/N in a ring pass",
        "In a ring each chip sends (N−1)/N of the buffer per pass, not all of it.",
        ring_pass_time="ring_pass_time * participants / (participants - 1)",
    ),
    slip(
        "training-2n",
        "Used 2·N·D for training FLOPs",
        "Training is about 6·N·D: 2 FLOP per parameter per token forward and 4 backward.",
        flops="flops / 3",
    ),
    slip(
        "unit-slip-high",
        "Off by 1000 (a ms/µs or k/M slip)",
        "The answer is exactly 1000 times too large: check the prefix when converting.",
        answer="answer * 1000",
    ),
    slip(
        "unit-slip-low",
        "Off by 1000 (a µs/ms or M/k slip)",
        "The answer is exactly 1000 times too small: check the prefix when converting.",
        answer="answer / 1000",
    ),
    slip(
        "total-for-active",
        "Used total instead of active MoE parameters",
        "Each token goes through only experts_per_token of the routed experts.",
        active_params="params",
    ),
    slip(
        "summed-not-max",
        "Added compute and memory time",
        "Compute and memory traffic overlap, so the roofline time is the larger of the two, not the sum.",
        runtime="compute_time + memory_time",
    ),
    slip(
        "moe-critical-no-sparsity",
        "Forgot the E/k factor of an MoE",
        "Each expert sees only k/E of the batch, so the batch must be E/k times larger to fill it.",
        critical_batch="ridge_point * weight_bytes_per_param / 2",
    ),
    slip(
        "knee-without-kv",
        "Left the KV-cache reads out of the knee",
        "Each added sequence also reads its KV cache, which pushes the knee to a larger batch.",
        sequence_time_margin="flops_per_sequence / system_flops",
    ),
    slip(
        "unfused-counted-once",
        "Counted the unfused chain's traffic once",
        "Unfused, every kernel reads its input from memory and writes its output back.",
        unfused_bytes="bytes",
    ),
)
