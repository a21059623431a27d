"""The catalogue of named mistakes. Each is a variation of the engine's own derivation: one
quantity replaced by what a person who made the slip would have used, everything downstream
recomputed by the same formulas. A wrong answer that lands on exactly one of these values gets
that mistake's name and explanation.

A mistake applies to a variant only where the slip is possible and matters: every name its
replacements read must exist (a chip with no sparse figure cannot be misread as sparse), and the
slipped answer must differ from the right one (see variants.mistake_value).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from perfdrill.engine.problems.expressions import Expression, parse_expression

ANSWER = "answer"  # a replacement target meaning the final value itself (unit slips)


@dataclass(frozen=True)
class Mistake:
    id: str
    title: str
    explanation: str
    replace: tuple[tuple[str, str], ...]  # (quantity or ANSWER, expression over that scenario's values)

    @property
    def targets(self) -> tuple[str, ...]:
        return tuple(target for target, _ in self.replace)

    def expressions(self) -> tuple[tuple[str, Expression], ...]:
        return _parsed(self)


@cache
def _parsed(mistake: Mistake) -> tuple[tuple[str, Expression], ...]:
    return tuple(
        (target, parse_expression(text, field=f"mistake {mistake.id}")) for target, text in mistake.replace
    )


def _m(mistake_id: str, title: str, explanation: str, **replace: str) -> Mistake:
    return Mistake(mistake_id, title, explanation, tuple(replace.items()))


CATALOGUE: dict[str, Mistake] = {
    m.id: m
    for m in (
        _m(
            "matmul-missing-2",
            "Missing the 2 in FLOPs",
            "A multiply-add is two FLOPs, so a matmul costs 2·m·k·n and a token 2 FLOP per parameter.",
            flops="flops / 2",
            prefill_flops="prefill_flops / 2",
        ),
        _m(
            "sparse-peak",
            "Used the sparse datasheet peak",
            "Datasheets headline 2:4 structured-sparsity FLOP/s; dense math runs at half of that.",
            peak_flops="sparse_peak_flops",  # only chips that publish one, and never the fp32 path
        ),
        _m(
            "bits-as-bytes",
            "Bits read as bytes",
            "A byte is 8 bits: an 8-bit weight is 1 byte, a 4-bit weight half a byte.",
            weight_bytes_per_param="8 * weight_bytes_per_param",
        ),
        _m(
            "gib-as-gb",
            "GiB written as GB",
            "Dividing by 2^30 gives GiB; a GB is 10^9 bytes, about 7% less than a GiB.",
            answer="answer * 1e9 / 2**30",
        ),
        _m(
            "spec-gib-as-gb",
            "Read the chip's GiB as GB",
            "This chip's memory is quoted in GiB (2^30 bytes), about 7% more than the same number of GB.",
            memory_capacity="memory_capacity_read_as_gb",  # only chips quoted in GiB
        ),
        _m(
            "kv-one-tensor",
            "Counted K or V, not both",
            "The cache keeps both a key and a value vector per KV head per layer.",
            kv_elements_per_token_per_layer="kv_elements_per_token_per_layer / 2",
        ),
        _m(
            "query-heads-for-kv",
            "Used query heads for the KV cache",
            "With grouped-query or multi-query attention the cache holds kv_heads, not the query heads.",
            kv_bytes_per_token="kv_bytes_per_token * heads / kv_heads",  # the weights stay as they are
        ),
        _m(
            "fp32-bytes",
            "Used fp32's 4 bytes for a 16-bit dtype",
            "bf16 and fp16 take 2 bytes per element, not 4.",
            activation_bytes="4 if activation_bytes == 2 else activation_bytes",
            weight_bytes_per_param="4 if weight_bytes_per_param == 2 else weight_bytes_per_param",
            kv_bytes_per_element="4 if kv_bytes_per_element == 2 else kv_bytes_per_element",
        ),
        _m(
            "weights-per-sequence",
            "Read the weights once per sequence",
            "A decode step reads the weights once and the whole batch shares them.",
            weight_bytes="weight_bytes * batch",
        ),
        _m(
            "forgot-kv-cache",
            "Left out the KV cache",
            "Every decode step also reads each sequence's KV cache, and the cache takes memory.",
            kv_cache_bytes="0",
        ),
        _m(
            "forgot-layers",
            "Forgot to multiply by the layers",
            "The per-layer figure repeats in every layer of the model.",
            kv_bytes_per_token="kv_bytes_per_token / layers",
            tp_forward_comm_time="tp_forward_comm_time / layers",
            activation_memory="activation_memory / layers",
        ),
        _m(
            "bidirectional-link",
            "Used the bidirectional link figure",
            "Datasheets headline both directions added (NVLink 4: 900 GB/s); one send sees one "
            "direction (450 GB/s).",
            link_bandwidth="2 * link_bandwidth",
            link_peer_bandwidth="2 * link_peer_bandwidth",
        ),
        _m(
            "all-reduce-one-pass",
            "All-reduce as a single pass",
            "A ring all-reduce is a reduce-scatter plus an all-gather: the data crosses the ring twice.",
            all_reduce_time="ring_pass_time",
        ),
        _m(
            "all-reduce-whole-buffer",
            "Missing the (N−1)/N in a ring pass",
            "In a ring each chip sends (N−1)/N of the buffer per pass, not all of it.",
            ring_pass_time="ring_pass_time * participants / (participants - 1)",
        ),
        _m(
            "training-2n",
            "Used 2·N·D for training FLOPs",
            "Training is about 6·N·D: 2 FLOP per parameter per token forward and 4 backward.",
            flops="flops / 3",
        ),
        _m(
            "unit-slip-high",
            "Off by 1000 (a ms/µs or k/M slip)",
            "The answer is exactly 1000 times too large: check the prefix when converting.",
            answer="answer * 1000",
        ),
        _m(
            "unit-slip-low",
            "Off by 1000 (a µs/ms or M/k slip)",
            "The answer is exactly 1000 times too small: check the prefix when converting.",
            answer="answer / 1000",
        ),
        _m(
            "total-for-active",
            "Used total instead of active MoE parameters",
            "Each token goes through only experts_per_token of the routed experts.",
            active_params="params",
        ),
        _m(
            "summed-not-max",
            "Added compute and memory time",
            "Compute and memory traffic overlap, so the roofline time is the larger of the two, not the sum.",
            runtime="compute_time + memory_time",
        ),
        _m(
            "moe-critical-no-sparsity",
            "Forgot the E/k factor of an MoE",
            "Each expert sees only k/E of the batch, so the batch must be E/k times larger to fill it.",
            critical_batch="ridge_point * weight_bytes_per_param / 2",
        ),
        _m(
            "knee-without-kv",
            "Left the KV-cache reads out of the knee",
            "Each added sequence also reads its KV cache, which pushes the knee to a larger batch.",
            sequence_time_margin="flops_per_sequence / system_flops",
        ),
        _m(
            "unfused-counted-once",
            "Counted the unfused chain's traffic once",
            "Unfused, every kernel reads its input from memory and writes its output back.",
            unfused_bytes="bytes",
        ),
        # Issue 13, serving and training economics (engine/model/serving.py)
        _m(
            "tokens-per-step",
            "Counted one token per step, not one per sequence",
            "Each decode step gives every sequence of the batch a token: throughput is batch ÷ step time.",
            tokens_per_second="1 / runtime",
        ),
        _m(
            "one-chip-price",
            "Priced one chip for all the chips' tokens",
            "Every chip serving the model is paid for: divide each chip's price by its own share of "
            "the tokens.",
            cost_per_million_tokens="cost_per_million_tokens / chips",
        ),
        _m(
            "page-waste-full-page",
            "Counted a whole empty page per sequence",
            "Only the last page is partly empty, and with lengths spread evenly it is half full on "
            "average: half a page of waste per sequence.",
            page_waste_tokens="page_size",
        ),
        _m(
            "chunk-compute-added",
            "Added the chunk's compute to the decode step",
            "The chunk rides in the same step: its math overlaps the weight reads the step makes "
            "anyway, so the step takes the larger of the two, not their sum.",
            mixed_runtime="runtime + chunk_flops / system_flops",
        ),
        _m(
            "gbit-as-gbyte",
            "Read the network's Gb/s as GB/s",
            "Network links are quoted in gigabits per second: 400 Gb/s moves 50 GB/s.",
            network_bandwidth="8 * network_bandwidth",
        ),
        _m(
            "kv-over-one-link",
            "Sent the whole cache over one chip's link",
            "Each chip holds its own share of the KV heads and sends it over its own link, all at "
            "the same time.",
            kv_transfer_time="kv_transfer_bytes / transfer_bandwidth",
        ),
        _m(
            "mfu-recompute-flops",
            "Counted the recomputed forward as model FLOPs",
            "MFU counts the model's 6 FLOP per parameter per token; recomputing activations adds 2 "
            "more that the hardware does (hardware FLOPs utilisation), not the model.",
            achieved_flops="achieved_flops * 4 / 3",
        ),
        _m(
            "chinchilla-2n",
            "Used C = 2·N·D for the training budget",
            "Training costs about 6 FLOP per parameter per token (2 forward, 4 backward), so "
            "N = √(C / (6 · tokens per parameter)).",
            chinchilla_params="sqrt(compute_budget / (2 * tokens_per_param))",
        ),
        _m(
            "mfu-one-chip",
            "Divided by one chip's peak",
            "The run's FLOP/s come from every chip: divide by the chips times each one's peak.",
            achieved_mfu="achieved_mfu * chips",
        ),
    )
}
