"""A decode step at a drawn context needs one position past the cache: a model with a 1,024-position
window (GPT-2 small) decodes with at most 1,023 tokens cached, never 1,024.

Every template that decodes at a drawn context holds `context + 1 <= context_window` (a speculative
check scores k + 1 positions: `context + k + 1`), as serving/decode-intensity and serving/decode-mfu
did first. Templates that only size a cache of `context` tokens (a sequence that has filled its window
still holds them) are listed apart, so a new template that decodes is never missed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

import pytest

from perfdrill.engine.model import load_specs
from perfdrill.engine.problems.bank import load_bank
from perfdrill.engine.problems.generation import draw_variant
from perfdrill.engine.problems.variants import Variant

BANK = load_bank()
SPECS = load_specs()
SEEDS = 200


def _one(_: Mapping[str, Any]) -> int:
    return 1


def _check(params: Mapping[str, Any]) -> int:
    return int(params["k"]) + 1  # the target checks the k drafts and one position of its own


# Template -> (the input the step decodes at, the positions it decodes past it).
DECODES: dict[str, tuple[str, Callable[[Mapping[str, Any]], int]]] = {
    **{
        template_id: ("context", _one)
        for template_id in (
            "attention_memory/decode-intensity",
            "attention_memory/long-context-flops",
            "moe/all-experts-profile",
            "moe/experts-touched",
            "overhead/decode-launches",
            "parallelism/tp-decode",
            "performance_model/batching-gain",
            "performance_model/decode-batch",
            "performance_model/optimal-batch",
            "quantization/group-scales",
            "quantization/kv-cache-batch",
            "quantization/weight-only-decode",
            "runtime_check/decode-step",
            "serving/chip-choice",
            "serving/chunked-prefill",
            "serving/chunked-prefill-steps",
            "serving/decode-mfu",
            "serving/decode-profile",
            "serving/interview-chain",
            "serving/slo-cost",
        )
    },
    # The cache is the prompt: a preempted sequence resumes decoding, a decode step follows a prefill.
    "kv_cache/preemption-reload": ("prompt", _one),
    "prefill_decode/which-bound": ("prompt", _one),
    "speculative/draft-cost": ("context", _check),
    "speculative/large-batch": ("context", _check),
    "speculative/measured-rounds": ("context", _check),
}
# They size a cache of `context` tokens and decode nothing at it: a full window's cache is real.
SIZES_ONLY = {
    "kv_cache/bytes-per-token",
    "kv_cache/mha-vs-gqa",
    "performance_model/fits-sweep",
    "quantization/kv-cache-bytes",
}

# Templates whose context is derived from something else the constraints bound.
OTHER_CONTEXTS = {
    # context = prompt + output/2, the average decode; prompt + output <= window bounds the last one.
    "prefill_decode/pd-ratio",
    "serving/latency-breakdown",
    # The TTFT of a prefill: no decode step at the prompt.
    "prefill_decode/time-to-first-token",
    # A share of a reserved length at most the window: sizes the cache only.
    "kv_cache/paged-waste",
    # A prefill of system + user prompts: TTFT and cache sizes only.
    "kv_cache/prefix-caching",
    # context_capacity is compared with the window; the context itself is 1.
    "kv_cache/max-batch",
}


@cache
def _variants(template_id: str) -> list[Variant]:
    return [draw_variant(BANK.get(template_id), seed, SPECS) for seed in range(SEEDS)]


def _window(variant: Variant) -> float:
    return float(variant.lookup("context_window", None))


@pytest.mark.parametrize("template_id", sorted(DECODES))
def test_no_variant_decodes_past_its_window(template_id: str) -> None:
    name, past = DECODES[template_id]
    for seed, variant in enumerate(_variants(template_id)):
        cached = float(variant.lookup(name, None))
        assert cached + past(variant.params) <= _window(variant), (seed, cached, _window(variant))


def test_gpt2_small_never_decodes_with_1024_tokens_cached() -> None:
    # GPT-2 small has 1,024 positions (its config's n_positions): 1,023 cached tokens and the new one.
    assert SPECS.model("gpt2-small").context_window.value == 1024
    seen = 0
    for template_id, (name, _) in sorted(DECODES.items()):
        for seed, variant in enumerate(_variants(template_id)):
            if variant.lookup("context_window", None) == 1024:
                seen += 1
                assert float(variant.lookup(name, None)) <= 1023, (template_id, seed)
    assert seen >= 50  # GPT-2 small is drawn often enough for the check to mean something


def test_every_template_with_a_drawn_context_is_classified() -> None:
    for template_id, template in BANK.templates.items():
        drawn = template.inputs.get("context")
        if drawn is None or not drawn.names:
            continue  # no context, or a fixed one (1 token, or none with the cache left out)
        assert template_id in DECODES or template_id in SIZES_ONLY or template_id in OTHER_CONTEXTS, (
            template_id
        )


# A request's prompt leaves its first output token a position: a blind solver objected to a
# 4,096-token prompt on Llama 2 13B (a 4,096-position window), whose answer could not go on.
PROMPTED = (
    "prefill_decode/disaggregation-pays",
    "prefill_decode/kv-transfer",
    "prefill_decode/time-to-first-token",
    "serving/chunked-prefill",
    "serving/chunked-prefill-steps",
)


@pytest.mark.parametrize("template_id", PROMPTED)
def test_a_prompt_leaves_its_first_output_token_a_position(template_id: str) -> None:
    for seed, variant in enumerate(_variants(template_id)):
        prompt = float(variant.lookup("prompt", None))
        assert prompt + 1 <= _window(variant), (seed, prompt, _window(variant))
