"""The catalogue of named mistakes. Each is a variation of the engine's own derivation: one
quantity replaced by what a person who made the slip would have used, everything downstream
recomputed by the same formulas. A wrong answer that lands on exactly one of these values gets
that mistake's name and explanation.

A mistake applies to a variant only where the slip is possible and matters: a replacement applies
only where every name it reads exists (a chip with no sparse figure cannot be misread as sparse),
and the slipped answer must differ from the right one (see variants.mistake_value).
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
        # Issue 13: training memory under sharding, collectives, kernel-level effects.
        _m(
            "adam-without-master",
            "Left the fp32 master weights out of Adam's state",
            "Mixed-precision Adam keeps an fp32 copy of the weights beside m and v: "
            "K = 4 + 4 + 4 = 12 bytes per parameter, not 8.",
            optimizer_bytes_per_param="optimizer_bytes_per_param - 4",
        ),
        _m(
            "zero-stage-mixup",
            "Sharded one more state than the ZeRO stage does",
            "ZeRO-1 shards only the optimizer state, ZeRO-2 adds the gradients, and only ZeRO-3 "
            "shards the weights too.",
            zero1_state_bytes="zero2_state_bytes",
            zero2_state_bytes="zero3_state_bytes",
        ),
        _m(
            "selective-kept-scores",
            "Kept the attention scores under selective recomputation",
            "Selective recomputation drops exactly the s×s attention activations (the 5·a·s/h term) "
            "and recomputes them in backward.",
            selective_activation_memory="activation_memory",
        ),
        _m(
            "bubble-over-ideal",
            "Divided the bubble by the busy time, not the step",
            "(p − 1)/m is the bubble relative to the m busy slots; as a share of the whole step "
            "it is (p − 1)/(m + p − 1).",
            pipeline_bubble_fraction="(pipeline_stages - 1) / microbatches",
            interleaved_bubble_fraction="(pipeline_stages - 1) / (virtual_stages * microbatches)",
            min_microbatches="ceil((pipeline_stages - 1) * 100 / bubble_target_percent)",
        ),
        _m(
            "bubble-ignored",
            "Left out the pipeline's fill and drain",
            "The first micro-batch needs p − 1 slots to reach the last stage and the last one p − 1 "
            "to drain: a step is m + p − 1 slots, not m.",
            pipeline_step_time="microbatches * stage_microbatch_time",
        ),
        _m(
            "backward-as-forward",
            "Counted the backward pass at 2 FLOP per parameter per token",
            "Backward computes gradients of both the activations and the weights: 4 FLOP per "
            "parameter per token, twice the forward pass.",
            backward_time="backward_time / 2",
        ),
        _m(
            "no-overlap",
            "Left the whole all-reduce exposed",
            "Bucketed all-reduces run while backward is still going; only what outlasts "
            "backward, at least the last bucket, is exposed.",
            exposed_comm_time="all_reduce_time",
        ),
        _m(
            "one-all-reduce-per-layer",
            "Counted one all-reduce per layer, not two",
            "Megatron tensor parallelism all-reduces after attention and again after the MLP in "
            "every layer's forward pass.",
            tp_layer_comm_time="all_reduce_time",
        ),
        _m(
            "latency-once",
            "Counted the latency once, not per step",
            "A ring all-reduce is 2(N − 1) steps and each pays the latency α; an all-gather is N − 1.",
            alpha_beta_all_reduce_time="link_latency + all_reduce_time",
            alpha_beta_all_gather_time="link_latency + ring_pass_time",
            measured_step_latency="measured_runtime",
        ),
        _m(
            "algbw-as-busbw",
            "Took algorithm bandwidth for bus bandwidth",
            "nccl-tests' algbw is size ÷ time; busbw = algbw·2(N − 1)/N for an all-reduce is what "
            "compares with one GPU's link.",
            all_reduce_bus_bandwidth="algorithm_bandwidth",
            all_gather_bus_bandwidth="algorithm_bandwidth",
        ),
        _m(
            "shard-as-buffer",
            "Used one GPU's shard as the gathered buffer",
            "An all-gather's size is the whole gathered buffer, N shards; each GPU sends (N − 1)/N of it.",
            collective_bytes="collective_bytes / participants",
        ),
        _m(
            "all-gather-as-all-reduce",
            "Counted an all-gather as an all-reduce",
            "An all-gather or a reduce-scatter is one pass around the ring; an all-reduce is two.",
            all_gather_time="2 * ring_pass_time",
            reduce_scatter_time="2 * ring_pass_time",
            intra_node_reduce_scatter_time="2 * intra_node_reduce_scatter_time",
        ),
        _m(
            "gbit-as-gbyte",
            "Read Gb/s as GB/s",
            "Network links are quoted in gigabits per second: 400 Gb/s is 50 GB/s.",
            network_bandwidth="8 * network_bandwidth",
        ),
        _m(
            "full-buffer-across-nodes",
            "Sent the whole buffer across nodes from every GPU",
            "After the in-node reduce-scatter each GPU holds 1/g of the sum, and only that shard "
            "crosses the network.",
            inter_node_all_reduce_time="inter_node_all_reduce_time * node_chips",
        ),
        _m(
            "fractional-waves",
            "Counted a fraction of a wave",
            "Waves are whole: one tile more than the SMs hold runs a second wave as long as the first.",
            waves="output_tiles / sm_count",
        ),
        _m(
            "full-occupancy",
            "Assumed a small launch streams at full bandwidth",
            "With fewer thread blocks than SMs the idle SMs issue no loads, so the kernel cannot "
            "reach the full HBM rate.",
            busy_sm_fraction="1",
        ),
        _m(
            "l2-ignored",
            "Read the weights from HBM on every call",
            "Weights that fit in L2 stay there between back-to-back calls, so HBM serves only the "
            "activations.",
            weights_fit_l2="0",
        ),
        # Issue 13, topics 5-7: attention in decode, quantization beyond weights, MoE serving.
        _m(
            "attention-kv-heads",
            "Counted attention FLOPs at the KV heads",
            "Every query head scores and mixes the context on its own; GQA shares only the cached K and V.",
            attention_flops_per_sequence="attention_flops_per_sequence * kv_heads / heads",
            prompt_attention_flops="prompt_attention_flops * kv_heads / heads",  # and over a prompt
        ),
        _m(
            "causal-half-in-decode",
            "Halved decode attention as if it were causal",
            "The causal mask halves attention over a prompt; a new token attends to its whole context.",
            attention_flops_per_sequence="attention_flops_per_sequence / 2",
        ),
        _m(
            "scores-counted-once",
            "Counted the score matrix once",
            "Standard attention writes S, reads it back, writes P = softmax(S) and reads P again: "
            "four N² passes.",
            standard_attention_hbm_bytes="standard_attention_hbm_bytes - 3 * score_matrix_bytes",
        ),
        _m(
            "flash-one-pass",
            "Read Q and O only once in FlashAttention",
            "With K and V blocks in the outer loop, every block makes one more pass over Q and O.",
            flash_outer_passes="1",
        ),
        _m(
            "sram-bytes-as-elements",
            "Counted the SRAM in bytes, not elements",
            "B_c = ⌈M / 4d⌉ counts M in elements: a bf16 element takes 2 bytes of SRAM.",
            flash_block_rows="ceil(sram_bytes / (4 * head_dim))",
        ),
        _m(
            "ignored-group-scales",
            "Left out the group scales",
            "Each group of values also stores its scale (and any zero point): scale bits ÷ group size "
            "per value.",
            quantized_bits_per_value="quant_bits",
            weight_bytes_per_param="quant_bits / 8",
        ),
        _m(
            "ignored-kv-scales",
            "Left out the KV cache's scales",
            "A group-quantized cache also stores one scale per group of K or V values.",
            kv_bytes_per_element="kv_bytes_per_element * quant_bits / quantized_bits_per_value",
        ),
        _m(
            "low-precision-peak-ignored",
            "Kept the 16-bit peak for low-precision math",
            "Math in int8, fp8 or fp4 runs on tensor-core paths with their own, usually higher, peak.",
            peak_flops="bf16_peak_flops",
        ),
        _m(
            "experts-touched-no-overlap",
            "Assumed no two tokens pick the same expert",
            "Tokens often share experts: a batch touches E·(1 − (1 − k/E)^B) of them, fewer than B·k.",
            experts_touched="min(experts, batch * experts_per_token)",
        ),
        _m(
            "all-experts-read",
            "Read every expert each step",
            "A decode step reads only the experts its tokens route to; at a small batch most stay idle.",
            weights_read_bytes="weight_bytes",
        ),
        _m(
            "active-weights-only",
            "Read one token's active weights for the whole batch",
            "Different tokens pick different experts, so a batch reads more than one token's k experts.",
            # At batch 1 the active weights are exactly what is read: no slip there.
            weights_read_bytes="active_params * weight_bytes_per_param if batch > 1 else weights_read_bytes",
        ),
        _m(
            "all-to-all-no-topk",
            "Sent each token to one expert",
            "With top-k routing each token goes to k experts, so it is sent k times.",
            all_to_all_bytes="all_to_all_bytes / experts_per_token",
        ),
        _m(
            "all-to-all-local-share",
            "Sent the tokens bound for local experts too",
            "Of the N chips' experts, 1/N sit on the sending chip: only (N−1)/N of the traffic leaves it.",
            all_to_all_bytes="all_to_all_bytes * participants / (participants - 1)",
        ),
        _m(
            "all-to-all-one-way",
            "Counted the dispatch but not the combine",
            "The expert outputs travel back to their tokens' chips: a second all-to-all per MoE layer.",
            moe_all_to_all_time="moe_all_to_all_time / 2",
        ),
        _m(
            "even-load-assumed",
            "Assumed even routing",
            "The layer waits for its busiest chip, which does busiest share × N times the even share.",
            load_imbalance="1",
        ),
        _m(
            "every-expert-per-chip",
            "Read every expert on every chip",
            "With expert parallelism each chip holds and reads only E/N of the experts.",
            local_expert_read_time="local_expert_read_time * participants",
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
            decode_mfu="decode_mfu * chips",  # and a measured decode server's
        ),
        # Issue 13, speculative decoding (engine/model/speculative.py)
        _m(
            "alpha-to-the-k",
            "Used α^k instead of α^(k+1)",
            "A round yields 1 + α + … + α^k tokens: k + 1 terms, the last for all k drafts accepted, "
            "so the closed form is (1 − α^(k+1)) ÷ (1 − α).",
            expected_tokens_per_round="(1 - acceptance_rate**draft_tokens) / (1 - acceptance_rate)",
        ),
        _m(
            "all-drafts-accepted",
            "Counted all k + 1 tokens every round",
            "The target rejects a draft with probability 1 − α and the round stops there: on average "
            "a round yields (1 − α^(k+1)) ÷ (1 − α) tokens, not k + 1.",
            expected_tokens_per_round="draft_tokens + 1",
        ),
        _m(
            "forgot-bonus-token",
            "Counted only the accepted drafts",
            "Every round also yields the target's own token (a correction, or a bonus after k "
            "accepted drafts): one more than the accepted drafts.",
            expected_tokens_per_round="expected_tokens_per_round - 1",
        ),
        _m(
            "forgot-draft-cost",
            "Left out the draft model's time",
            "The k draft steps run one after another before the verification: a round costs "
            "k·c + 1 target steps, not 1.",
            draft_cost_ratio="0",
            draft_step_time="0",
        ),
        _m(
            "verify-as-one-step",
            "Took the verification as one plain step",
            "The target scores k + 1 positions for every sequence: at a large batch that math, not "
            "the weight reads, sets the time, and verifying costs up to k + 1 plain steps.",
            verify_runtime="runtime",
            verify_slowdown="1",
        ),
        # Issue 24: slips a candidate made on purpose that the catalogue did not name.
        _m(
            "kv-16-bit-for-8-bit",
            "Used 2 bytes per element for an 8-bit KV cache",
            "An fp8 or int8 cache stores 1 byte per K or V element, half of bf16's 2.",
            kv_bytes_per_element="2 if kv_bytes_per_element < 2 else kv_bytes_per_element",
        ),
        _m(
            "weights-16-bit-for-8-bit",
            "Used bf16's 2 bytes for low-precision weights",
            "int8 and fp8 weights take 1 byte per parameter, fp4 half a byte: the weight reads shrink "
            "with them.",
            weight_bytes_per_param="2 if weight_bytes_per_param < 2 else weight_bytes_per_param",
        ),
        _m(
            "ring-whole-buffer-per-step",
            "Sent the whole buffer at every ring step",
            "A ring splits the buffer into N chunks: each of the 2(N − 1) steps sends one chunk, S/N, not S.",
            ring_pass_time="ring_pass_time * participants",
        ),
        _m(
            "mfu-forgotten",
            "Left out the MFU",
            "Real kernels reach only a fraction of the peak: divide the FLOPs by MFU × peak, not by "
            "the peak.",
            mfu="1",
        ),
        _m(
            "one-chip-memory",
            "Counted one chip's memory, not all the chips'",
            "The model is spread over every chip, and so is the memory left for the cache: chips × capacity.",
            # Only where one chip would hold the weights: a negative free memory is no one's answer.
            system_memory="memory_capacity if memory_capacity > weight_bytes else system_memory",
        ),
        _m(
            "shared-expert-left-out",
            "Left out the shared experts",
            "Every token also goes through the always-on shared experts, beside its top-k routed ones.",
            active_params="active_params - moe_layers * shared_experts * mlp_params_per_expert",
        ),
        _m(
            "percent-as-fraction",
            "Typed a fraction for a percent",
            "The part asks for a percent: 0.198 as a fraction is 19.8%.",
            answer="answer / 100",
        ),
        _m(
            "base-unit-for-tera",
            "Typed the count in base units where tera- is asked",
            "A plain number is read in the unit shown next to the part: 1.33e13 FLOP is 13.3 TFLOP.",
            answer="answer * 1e12",
        ),
        _m(
            "prefix-copies-all",
            "Counted every request's copy as saved",
            "With the prefix cached once, one copy stays: batch requests save batch − 1 copies, not batch.",
            prefix_kv_bytes_saved="prefix_kv_bytes_saved * batch / (batch - 1)",
        ),
        # Issue 13, bank shape: prefill attention over a long prompt
        _m(
            "causal-full-square",
            "Counted the whole prompt² of a causal prefill",
            "With a causal mask each prompt token scores only the tokens up to itself: half of the "
            "prompt × prompt score matrix, so half the attention FLOPs.",
            prompt_attention_flops="2 * prompt_attention_flops",
        ),
    )
}
