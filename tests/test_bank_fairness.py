"""Every question is fair and physically possible: it states its assumptions, never asks for a set-up
nobody could run, shows code for the chip it names, and answers from exactly the numbers it shows.

Expected values come from the spec sheets, quoted in the comments, and from hand derivations.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator

import pytest

from perfdrill.engine.model import load_specs
from perfdrill.engine.model.evaluation import evaluate, info
from perfdrill.engine.model.numbers import format_in_unit
from perfdrill.engine.model.units import parse_quantity
from perfdrill.engine.problems.bank import load_bank
from perfdrill.engine.problems.generation import Problem, generate
from perfdrill.engine.problems.prompts import Given
from perfdrill.engine.problems.templates import Template

BANK = load_bank()
SPECS = load_specs()
SEEDS = range(60)


def _problems(template_id: str, seeds: range = SEEDS) -> Iterator[Problem]:
    template = BANK.get(template_id)
    for seed in seeds:
        yield generate(template, seed, SPECS)


def _input(problem: Problem, name: str) -> float:
    return float(problem.variant.lookup(name, None))


# The context windows of the model configs (max_position_embeddings / n_positions), as
# specs_reference.yaml records them.
CONTEXT_WINDOWS = {
    "gpt2-small": 1024,
    "gpt3-175b": 2048,
    "llama-2-7b": 4096,
    "llama-2-13b": 4096,
    "llama-2-70b": 4096,
    "gemma-2-9b": 8192,
    "gemma-2-27b": 8192,
    "mistral-7b": 32768,
    "mixtral-8x7b": 32768,
    "llama-3.1-8b": 131072,
    "llama-3.1-70b": 131072,
    "llama-3.1-405b": 131072,
    "qwen2.5-7b": 131072,
    "qwen2.5-72b": 131072,
    "deepseek-v3": 163840,
}


def test_every_model_records_its_context_window() -> None:
    assert {m: int(SPECS.model(m).context_window.value) for m in CONTEXT_WINDOWS} == CONTEXT_WINDOWS  # type: ignore[union-attr]


@pytest.mark.parametrize("template_id", sorted(BANK.templates))
def test_no_context_past_the_model_window(template_id: str) -> None:
    """GPT-2 never sees 4,096-token contexts, and no question runs any model past its window."""
    for problem in _problems(template_id, range(40)):
        if not problem.models:
            continue
        window = CONTEXT_WINDOWS[problem.models[0].id]
        for name in ("context", "prompt", "sequence"):
            if name in problem.variant.inputs and name in {n for _, n in _names(problem.template)}:
                assert _input(problem, name) <= window, (template_id, problem.seed, name)


def _names(template: Template) -> set[tuple[str | None, str]]:
    names: set[tuple[str | None, str]] = set()
    for expression in template.inputs.values():
        names |= expression.names
    return names | {(None, name) for name in template.inputs}


def test_data_parallel_replicas_fit_on_each_gpu() -> None:
    """Plain data parallelism holds the whole model and its gradients on every GPU: no 405B, GPT-3 or
    DeepSeek-V3 on 2-8 GPUs, and no 275.9 GB of Llama 2 70B gradients on an A100 40GB."""
    seen = set()
    for problem in _problems("parallelism/dp-gradient-sync", range(300)):
        model, chip = problem.models[0], problem.chips[0]
        assert model.published_params is not None
        grad_bytes = 4 if "fp32 gradients" in problem.prompt or "kept in **fp32**" in problem.prompt else 2
        # bf16 weights, the gradients and a 1/N share of Adam's 12 B a parameter (wave 4's blind
        # solver: Mistral 7B on 4 x A100 40GB needs 7.24B x (2 + 2 + 3) = 50.7 GB of 40 GB)
        ranks = problem.variant.params["chips"]
        need = model.published_params.value * (2 + grad_bytes + 12 / ranks)
        assert need <= chip.memory.value, problem.seed
        seen.add(model.id)
    assert not seen & {"llama-3.1-405b", "gpt3-175b", "deepseek-v3", "llama-2-70b"}


def test_tensor_parallelism_splits_the_heads_evenly() -> None:
    for problem in _problems("parallelism/tp-allreduce", range(300)):
        model = problem.models[0]
        tp = int(_input(problem, "participants"))
        assert model.heads % tp == 0, (model.id, tp)  # no 8-way split of GPT-2 small's 12 heads
        assert model.kv_heads % tp == 0 or tp % model.kv_heads == 0


@pytest.mark.parametrize(
    "template_id", ["parallelism/all-reduce-link", "parallelism/dp-gradient-sync", "parallelism/tp-allreduce"]
)
def test_collectives_stay_within_what_the_link_joins(template_id: str) -> None:
    """The H100 PCIe NVLink bridge joins two cards: never a 4- or 8-GPU ring over it."""
    for problem in _problems(template_id, range(300)):
        if problem.chips[0].id == "h100-pcie":
            assert _input(problem, "participants") == 2


def test_link_topology_in_the_specs() -> None:
    mi300x, h100_pcie, h100 = SPECS.chip("mi300x"), SPECS.chip("h100-pcie"), SPECS.chip("h100-sxm")
    # AMD: 7 Infinity Fabric links of 64 GB/s one way; 448 GB/s is their sum, not any one pair's.
    assert mi300x.link_peer_bandwidth is not None and mi300x.link_peer_bandwidth.value == 64e9
    assert mi300x.link_bandwidth is not None and mi300x.link_bandwidth.value == 448e9
    assert (mi300x.link_topology, mi300x.link_domain) == ("mesh", 8)
    assert (h100_pcie.link_topology, h100_pcie.link_domain) == ("pair", 2)
    assert (h100.link_topology, h100.link_domain) == ("switch", 8)


def test_a_pair_of_mi300x_all_reduces_over_one_64_gbs_link() -> None:
    # Ring all-reduce of 1 GB between 2 GPUs: 2 · (1/2) · 1 GB ÷ 64 GB/s = 15.625 ms (not 2.23 ms at 448).
    inputs = {
        "collective_bytes": 1e9,
        "participants": 2.0,
        "link_bandwidth": 448e9,
        "link_peer_bandwidth": 64e9,
    }
    assert evaluate("group_collective", inputs, ["all_reduce_time"])["all_reduce_time"] == pytest.approx(
        15.625e-3
    )


def test_gqa_score_matrix_counts_k_and_v_at_the_kv_heads() -> None:
    # Llama 3.1 70B, 64 query heads and 8 KV heads of 128, 4,096 tokens: the score matrix is
    # 64 · 4096² scores, Q and O are 2 · 64 · 4096 · 128 values and K and V 2 · 8 · 4096 · 128, so
    # the ratio is 64 · 4096 / (2 · 72 · 128) = 14.22 (it would be 8 with K and V at 64 heads).
    values = evaluate(
        "attention",
        {"batch": 2, "sequence": 4096, "heads": 64, "kv_heads": 8, "head_dim": 128, "activation_bytes": 2},
        ["score_matrix_ratio"],
    )
    assert values["score_matrix_ratio"] == pytest.approx(64 * 4096 / (2 * 72 * 128))


def test_eager_regime_follows_the_unfused_traffic() -> None:
    """200 fp32 pointwise kernels over 35M elements on a B200: each kernel moves 280 MB, 56 GB in all,
    7 ms at 8 TB/s, while launching them takes 200 · 5 µs = 1 ms: memory-bound. The fused intensity
    (200 FLOP per 8 bytes) is above the fp32 ridge (75 TFLOP/s ÷ 8 TB/s = 9.4), which is what once
    called this compute-bound."""
    inputs = {
        "peak_flops": 75e12,
        "memory_bandwidth": 8e12,
        "chips": 1,
        "mfu": 1,
        "mbu": 1,
        "elements": 35e6,
        "ops_per_element": 200,
        "inputs": 1,
        "outputs": 1,
        "kernels": 200,
        "activation_bytes": 4,
        "launch_overhead": 5e-6,
        "kernel_floor": 2e-6,
    }
    values = evaluate("elementwise", inputs, ["regime", "eager_runtime", "bound"])
    assert values["bound"] == 1  # the fused kernel would be compute-bound
    assert values["regime"] == 0  # memory-bound as eagerly run
    assert values["eager_runtime"] == pytest.approx(7e-3)


def test_moe_prompt_states_embeddings_and_position_tables() -> None:
    """The count in moe/active-params is the natural reading of what the prompt states."""
    for problem in _problems("moe/active-params", range(200)):
        base = problem.models[0]
        if base.tied_embeddings:
            assert "they are tied" in problem.prompt
        else:
            assert "separate output head" in problem.prompt
        if base.position_embeddings:
            assert f"position table of {base.position_embeddings:,}" in problem.prompt
        else:
            assert "position table" not in problem.prompt


def test_moe_active_params_by_hand_for_gpt2_small() -> None:
    """GPT-2 small as an MoE, from what the prompt states: a tied 50,257 × 768 embedding, a 1,024 × 768
    position table, per layer Q/K/V/O (4 · 768²), two 768 × 3,072 matrices per expert, two norms and
    a 768 × E router; 12 layers and a final norm; biases ignored."""
    template = BANK.get("moe/active-params")
    checked = 0
    for seed in range(300):
        problem = generate(template, seed, SPECS)
        if problem.models[0].id != "gpt2-small":
            continue
        experts, top_k, shared = (int(problem.variant.params[k]) for k in ("experts", "top_k", "shared"))
        d, vocab, ffn, layers = 768, 50257, 3072, 12
        outside = vocab * d + 1024 * d + d
        per_layer = 4 * d * d + 2 * d + d * experts
        expert = 2 * d * ffn
        total = outside + layers * (per_layer + (experts + shared) * expert)
        active = outside + layers * (per_layer + (top_k + shared) * expert)
        assert problem.part("total").value == pytest.approx(total, rel=1e-12)
        assert problem.part("active").value == pytest.approx(active, rel=1e-12)
        checked += 1
    assert checked >= 5


def test_mha_comparison_keeps_the_weights() -> None:
    """The MHA counterfactual enlarges the cache only; its max batch follows from the same free memory."""
    for problem in _problems("kv_cache/mha-vs-gqa", range(40)):
        model = problem.models[0]
        free = problem.variant.lookup("system_memory", None) - problem.variant.lookup("weight_bytes", None)
        context = _input(problem, "context")
        mha_token = 2 * model.layers * model.heads * model.head_dim * 2  # bf16, every query head
        assert problem.part("mha_max_batch").value == math.floor(free / (context * mha_token))
        assert problem.part("ratio").value == pytest.approx(model.heads / model.kv_heads)


@pytest.mark.parametrize(
    ("template_id", "sentence"),
    [
        ("training/adam-memory", "if the state fits on one chip, replicate it with data parallelism only"),
        ("parallelism/tp-allreduce", "every layer all-reduces its output twice in the forward pass"),
        ("performance_model/optimal-batch", "Model a decode step as **one roofline**"),
        ("kv_cache/mha-vs-gqa", "while the weights stayed exactly as they are"),
    ],
)
def test_prompts_state_their_assumptions(template_id: str, sentence: str) -> None:
    assert all(sentence in problem.prompt for problem in _problems(template_id, range(5)))


@pytest.mark.parametrize("template_id", ["matmul/square-time", "matmul/gemv"])
def test_tpu_variants_show_jax_and_gpu_variants_cuda(template_id: str) -> None:
    vendors = set()
    for problem in _problems(template_id, range(100)):
        vendor = problem.chips[0].vendor
        vendors.add(vendor)
        if vendor == "Google":
            assert "jax" in problem.prompt and "cuda" not in problem.prompt
        else:
            assert 'device="cuda"' in problem.prompt
    assert "Google" in vendors and len(vendors) > 1


@pytest.mark.parametrize(
    "template_id", sorted(t for t in BANK.templates if not t.startswith("runtime_check/"))
)
def test_no_cuda_code_on_a_tpu(template_id: str) -> None:
    for problem in _problems(template_id, range(30)):
        if problem.chips and problem.chips[0].vendor == "Google":
            assert "cuda" not in problem.prompt


_GRAMMAR = [
    (re.compile(r"\ban \*{0,2}Google"), "an Google"),
    (re.compile(r"\b1\s(sequences|requests|tokens)\b"), "1 plural"),
    (re.compile(r"\bA (fp8|fp16|fp32|int8|int4)\b"), "A fp8"),
    (re.compile(r"\d\.0 FLOPs?\b"), "14.0 FLOPs"),
    (re.compile(r"\d{1,3}(,\d{3}){3,}(?!\s(bytes|FLOP|params|tokens))"), "a raw count with no unit"),
]


@pytest.mark.parametrize("template_id", sorted(BANK.templates))
def test_prompts_read_well(template_id: str) -> None:
    for problem in _problems(template_id, range(40)):
        for pattern, what in _GRAMMAR:
            assert not pattern.search(problem.prompt), (what, problem.seed, problem.prompt)


def test_attainable_prints_units() -> None:
    for problem in _problems("roofline/attainable", range(10)):
        assert re.search(r"performs \*\*[\d.]+\s[kMGTPE]?FLOP\*\*", problem.prompt)
        assert re.search(r"moves \*\*[\d.]+\s[kMGT]?B\*\*", problem.prompt)


_GIVEN = re.compile(r"given\.([a-z_]+)")
_QTY = re.compile(r"given\.([a-z_]+) \| qty\('([^']+/token)', (\d+)\)")


@pytest.mark.parametrize("template_id", sorted(BANK.templates))
def test_every_shown_value_is_the_value_answers_use(template_id: str) -> None:
    """What `given.X` prints reads back as exactly the value every answer is computed from: a computed
    quantity shown rounded (a parameter count) must be pinned at that rounding."""
    template = BANK.get(template_id)
    shown = sorted(set(_GIVEN.findall(template.prompt)))
    # A value the prompt writes in a unit of its own (`qty('KiB/token', 5)`) reads back from there.
    written = {name: (unit, int(digits)) for name, unit, digits in _QTY.findall(template.prompt)}
    derived_units = {d.name: d.unit for d in template.derived if d.unit}
    for problem in _problems(template_id, range(30)):
        context_lookup = problem.variant
        shown_text = Given(problem.variant, derived_units)
        for name in shown:
            text = shown_text[name]
            if name in written:
                unit, digits = written[name]
                value = float(context_lookup.lookup(name, None))
                text = format_in_unit(value / parse_quantity(f"1 {unit}", "byte/token"), unit, digits=digits)
                assert text in problem.prompt, (name, text)
                assert parse_quantity(text, "byte/token") == pytest.approx(value, rel=1e-9), (name, text)
                continue
            value = float(context_lookup.lookup(name, None))
            unit = derived_units.get(name) or info(template.workload, name).unit
            read = _count(text) if unit == "1" else parse_quantity(text, unit, what=name)
            assert read == pytest.approx(value, rel=1e-9), (name, text, value)


def _count(text: str) -> float:
    """A plain count as prompts print it: 15M, 1.2k, 3,072."""
    match = re.fullmatch(r"([\d.,]+)([kMBT]?)", text)
    assert match is not None, text
    scale = {"": 1, "k": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}[match.group(2)]
    return float(match.group(1).replace(",", "")) * scale


def test_weight_only_decode_seed_406_answers_from_the_shown_70_6b() -> None:
    # The variant seed 377507 drew (Llama 3.1 70B, fp8, B200) before TPUs without fp8 left the draw.
    problem = generate(BANK.get("quantization/weight-only-decode"), 406, SPECS)
    assert "70.6B\u00a0params" in problem.prompt
    assert problem.part("weights").value == pytest.approx(70.6)  # fp8: 1 byte × 70.6B


def test_dp_gradient_sync_answers_from_the_shown_parameter_count() -> None:
    template = BANK.get("parallelism/dp-gradient-sync")
    for seed in range(60):
        problem = generate(template, seed, SPECS)
        shown = re.search(r"\(([\d.]+)([MB])\sparams\)", problem.prompt)
        assert shown is not None
        params = float(shown.group(1)) * (1e9 if shown.group(2) == "B" else 1e6)
        grad = 4 if "**fp32**" in problem.prompt else 2
        chips = _input(problem, "participants")
        bandwidth = float(problem.variant.lookup("group_link_bandwidth", None))
        # ring all-reduce: 2 · (N−1)/N · bytes ÷ one-way bandwidth, from the prompt's own count
        expected_ms = 2 * (chips - 1) / chips * params * grad / bandwidth * 1e3
        assert problem.part("sync_time").value == pytest.approx(expected_ms, rel=1e-9)
