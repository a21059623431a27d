"""Givens the prompt does not show (issue 21, task F2b): each worked solution lists only values its
prompt states, and works the rest from them. Pinned at one seed each, with the numbers worked by
hand in the test from what the prompt shows."""

from __future__ import annotations

from perfdrill.engine.model import load_specs
from perfdrill.engine.model.simplifier import Simplifier
from perfdrill.engine.problems.bank import load_bank
from perfdrill.engine.problems.generation import answer_digits, generate
from tests.helpers import key_lines as _lines

BANK, SPECS = load_bank([]), load_specs([])
NBSP = "\u00a0"


def _givens(lines: list[str]) -> str:
    return " · ".join(line for line in lines if line.startswith("Given:"))


def test_a_nic_quoted_in_gbit_is_worked_into_bytes() -> None:
    """disaggregation-pays, kv-transfer and preemption-reload listed "network bandwidth = 25 GB/s"
    where the prompt says 200 Gb/s. 8 bits a byte: 200 ÷ 8 = 25 GB/s (disaggregation-pays seed 1),
    100 ÷ 8 = 12.5 GB/s (kv-transfer seed 1), 50 ÷ 8 = 6.25 GB/s (preemption-reload seed 1)."""
    for template_id, step in (
        ("prefill_decode/disaggregation-pays", "- network bandwidth = 200 Gb/s ÷ 8 = 25 GB/s"),
        ("prefill_decode/kv-transfer", "- network bandwidth = 100 Gb/s ÷ 8 = 12.5 GB/s"),
        ("kv_cache/preemption-reload", "- network bandwidth = 50 Gb/s ÷ 8 = 6.25 GB/s"),
    ):
        lines = _lines(template_id, 1)
        assert step in lines, template_id
        assert "network bandwidth" not in _givens(lines), template_id


def test_a_max_the_question_settles_is_worked_as_its_larger_side() -> None:
    """A runtime max(compute, memory) whose constraint says compute wins is the compute time:
    the memory side would read a bandwidth the prompt never gives."""
    values = {"compute": 2.0, "memory": 1.0}
    simplifier = Simplifier(values, settled=[("compute", "memory")])
    assert simplifier.run(("max", "compute", "memory")) == "compute"
    assert simplifier.run(("min", "compute", "memory")) == "memory"
    assert Simplifier(values).run(("max", "compute", "memory")) == ("max", "compute", "memory")


def test_a_compute_bound_prefill_reads_no_bandwidth() -> None:
    """The prompts of these templates say the prefill (or the GEMM) is compute-bound and give no
    memory bandwidth; the working listed one and worked a memory time from it.
    preemption-reload seed 1 (Llama 3.1 8B, one H100 SXM at 40% MFU, 768 tokens):
    2 × 8.03e9 × 768 = 12.33 TFLOP, + attention 2 × 32 × 32 × 128 × 768² = 0.155 TFLOP,
    = 12.49 TFLOP ÷ (989 × 0.40 = 395.6 TFLOP/s) = 31.6 ms.
    mamf-vs-datasheet seed 1 (A100, 312 TFLOP/s): 2 × 10,240 × 9,216 × 11,264 = 2.126 TFLOP
    ÷ 312 TFLOP/s = 6.81 ms."""
    lines = _lines("kv_cache/preemption-reload", 1)
    assert "- **(c)** prefill runtime = prefill compute time = **31.6 ms**" in lines
    lines = _lines("roofline/mamf-vs-datasheet", 1)
    assert "- **(b)** runtime = compute time = **6.81 ms**" in lines
    for template_id in (
        "attention_memory/prefill-quadratic",
        "kv_cache/preemption-reload",
        "kv_cache/prefix-caching",
        "prefill_decode/disaggregation-pays",
        "roofline/mamf-vs-datasheet",
    ):
        for seed in (1, 2, 3):
            lines = _lines(template_id, seed)
            assert not any("memory bandwidth" in line or "memory time" in line for line in lines), template_id
    # prefill-quadratic's prompt names no dtype: its FLOPs need none
    assert "bytes per" not in _givens(_lines("attention_memory/prefill-quadratic", 1))


def test_pd_ratio_names_the_prefill_of_one_request() -> None:
    """pd-ratio headed the prefill of one prompt "With batch at 1 instead of 16" and (d) read
    "prefill runtime with batch 1". Seed 1: a decode batch of 128. (Its context, prompt + half
    the output, is worked by the input steps of branch givens1.)"""
    lines = _lines("prefill_decode/pd-ratio", 1)
    assert "*With one request on its own:*" in lines  # worked first: a case of its own, no "instead of"
    assert not any("batch at 1" in line or "batch 1" in line for line in lines)


def test_a_tight_tolerance_prints_the_figures_it_needs_not_six() -> None:
    """prefix-caching (a) printed 2.64241 GB: any tolerance under 2% got 6 figures. Rounding to d
    figures is off by at most 5 × 10^-d (leading digit 1); within a quarter of a 0.5% tolerance
    needs 4 figures. Seed 1: 28 layers × 2 × 4 KV heads × 128 × 2 B = 57,344 B/token;
    × 1,536 prefix tokens × (8 − 1) copies = 616,562,688 B = 0.6166 GB."""
    assert [answer_digits(("relative", tolerance)) for tolerance in (0.05, 0.02, 0.01, 0.005, 0.001)] == [
        3,
        3,
        4,
        4,
        5,
    ]
    lines = _lines("kv_cache/prefix-caching", 1)
    assert any(line.startswith("- **(a)**") and line.endswith("= **0.6166 GB**") for line in lines)


def test_a_gib_memory_is_converted_before_gb_are_taken_from_it() -> None:
    """fits-sweep (b) printed "⌊(32 GiB − 18.5 GB) ÷ …⌋ = 11" (as printed, 32 − 18.5 gives 9).
    Seed 226949 (the reviewed P124): 32 GiB = 32 × 1.073741824 GB = 34.36 GB; the weights
    9.24B × 2 B = 18.48 GB; per sequence 42 × 2 × 8 × 256 × 2 B × 4,096 = 1.409 GB;
    ⌊(34.36 − 18.48) ÷ 1.409⌋ = ⌊11.27⌋ = 11."""
    lines = _lines("performance_model/fits-sweep", 226949)
    assert "- memory per chip = 32 GiB = 34.36 GB" in lines
    (b,) = [line for line in lines if line.startswith("- **(b)**")]
    assert "⌊(34.36 GB − 18.5 GB) ÷ (344 kB/token × 4,096 tokens)⌋ = **11**" in b
    assert not any("GiB −" in line or "≤ memory per chip 32 GiB" in line for line in lines)


def test_no_batch_meets_the_target_is_worked_not_a_bare_zero() -> None:
    """interview-chain (f) read "SLO fix: 0 < 1, so no batch meets it", the 0 never derived, and
    the 20 ms TPOT target was not among the givens. Seed 62585 (the reviewed P205: Llama 3.1 8B
    on one A10G, 600 GB/s, 24 GB, 1,536 tokens): 600 GB/s × 20 ms = 12 GB, less than the
    16.06 GB of weights, so (12 − 16.06) GB ÷ (131.1 kB × 1,536 = 201.4 MB) = −20.2 sequences."""
    lines = _lines("serving/interview-chain", 62585)
    assert "TPOT SLO = 20 ms" in _givens(lines)
    read = "- SLO read batch = (memory bandwidth × TPOT SLO − weight bytes) ÷ (KV cache per token × context)"
    assert f"{read} = (600 GB/s × 20 ms − 16.06 GB) ÷ (131.1 kB/token × 1,536 tokens) = −20.2" in lines
    (f,) = [line for line in lines if line.startswith("- **(f)**")]
    assert f.startswith("- **(f)** SLO fix: SLO latency batch 0 < 1, so **no batch meets it")


def test_a_return_to_a_batch_the_prompt_never_states_is_named() -> None:
    """slo-cost (e) headed its batch-1 working "Back to the question's own values" although the
    question never states a batch of 1: (e) compares with serving one request at a time. Seed
    424028 (the reviewed P211): the SLO batch is 34."""
    lines = _lines("serving/slo-cost", 424028)
    assert "*With one request on its own instead of a batch of 34:*" in lines
    assert "*Back to the question's own values:*" not in lines


def test_an_mha_model_states_its_kv_heads_in_the_prompt() -> None:
    """preemption-reload listed "KV heads = 40" where the prompt gave only 40 query heads. Seed 4
    draws Llama 2 13B, multi-head attention: 40 query heads and 40 KV heads, both now stated."""
    problem = generate(BANK.get("kv_cache/preemption-reload"), 4, SPECS)
    assert "40 query heads and 40 KV heads of dimension 128" in problem.prompt
    assert "KV heads = 40" in _givens(_lines("kv_cache/preemption-reload", 4))
