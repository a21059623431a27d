"""Slips that candidates made on purpose in review (issue 24) and the catalogue had not named,
across topics, and the causal prefill's full square. Kept after the topic modules: the catalogue's
order is the order of the mistake ids in docs/question.schema.json.
"""

from __future__ import annotations

from perfdrill.engine.problems.mistakes.mistake import Mistake, slip

REVIEWED: tuple[Mistake, ...] = (
    slip(
        "kv-16-bit-for-8-bit",
        "Used 2 bytes per element for an 8-bit KV cache",
        "An fp8 or int8 cache stores 1 byte per K or V element, half of bf16's 2.",
        kv_bytes_per_element="2 if kv_bytes_per_element < 2 else kv_bytes_per_element",
    ),
    slip(
        "weights-16-bit-for-8-bit",
        "Used bf16's 2 bytes for low-precision weights",
        "int8 and fp8 weights take 1 byte per parameter, fp4 half a byte: the weight reads shrink with them.",
        weight_bytes_per_param="2 if weight_bytes_per_param < 2 else weight_bytes_per_param",
    ),
    slip(
        "ring-whole-buffer-per-step",
        "Sent the whole buffer at every ring step",
        "A ring splits the buffer into N chunks: each of the 2(N − 1) steps sends one chunk, S/N, not S.",
        ring_pass_time="ring_pass_time * participants",
    ),
    slip(
        "mfu-forgotten",
        "Left out the MFU",
        "Real kernels reach only a fraction of the peak: divide the FLOPs by MFU × peak, not by the peak.",
        mfu="1",
    ),
    slip(
        "one-chip-memory",
        "Counted one chip's memory, not all the chips'",
        "The model is spread over every chip, and so is the memory left for the cache: chips × capacity.",
        # Only where one chip would hold the weights: a negative free memory is no one's answer.
        system_memory="memory_capacity if memory_capacity > weight_bytes else system_memory",
    ),
    slip(
        "shared-expert-left-out",
        "Left out the shared experts",
        "Every token also goes through the always-on shared experts, beside its top-k routed ones.",
        active_params="active_params - moe_layers * shared_experts * mlp_params_per_expert",
    ),
    slip(
        "percent-as-fraction",
        "Typed a fraction for a percent",
        "The part asks for a percent, not a fraction: multiply the fraction by 100.",
        with_number="The part asks for a percent: {typed} as a fraction is {undone} %.",
        answer="answer / 100",
    ),
    slip(
        "base-unit-for-tera",
        "Typed the count in base units where tera- is asked",
        "A plain number is read in the unit shown next to the part: divide a count in base units by 10^12.",
        with_number="A plain number is read in the unit shown next to the part ({unit}): "
        "{typed} in base units is {undone} {unit}.",
        answer="answer * 1e12",
    ),
    slip(
        "prefix-copies-all",
        "Counted every request's copy as saved",
        "With the prefix cached once, one copy stays: batch requests save batch − 1 copies, not batch.",
        prefix_kv_bytes_saved="prefix_kv_bytes_saved * batch / (batch - 1)",
    ),
    slip(
        "causal-full-square",
        "Counted the whole prompt² of a causal prefill",
        "With a causal mask each prompt token scores only the tokens up to itself: half of the "
        "prompt × prompt score matrix, so half the attention FLOPs.",
        prompt_attention_flops="2 * prompt_attention_flops",
    ),
)
