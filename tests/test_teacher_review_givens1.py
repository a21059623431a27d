"""Givens the prompt does not show (issue 21, task F2a): a value the template works out from what
the prompt states is a step, never a given. Each pinned at a teacher's seed (/work/teacher4), with
the numbers worked by hand in the test from what the prompt shows."""

from __future__ import annotations

from perfdrill.engine.model import load_specs
from perfdrill.engine.problems.bank import load_bank
from tests.helpers import key_lines as _lines

BANK, SPECS = load_bank([]), load_specs([])
NBSP = "\u00a0"


def _givens(lines: list[str]) -> str:
    return " ".join(line for line in lines if line.startswith("Given:"))


def test_tokens_per_step_are_worked_from_the_batch() -> None:
    """training/mamf-step-check seed 766682 (P247): 4,096 sequences of 2,048 tokens each step,
    4,096 × 2,048 = 8,388,608 = 8.389M tokens, which the prompt never states."""
    lines = _lines("training/mamf-step-check", 766682)
    assert "- training tokens = sequences × sequence length = 4,096 × 2,048 tokens = 8.389M tokens" in lines
    assert "training tokens" not in _givens(lines)


def test_optimizer_bytes_are_worked_from_the_fp32_state() -> None:
    """training/zero-stages and fsdp-activations listed "optimizer bytes per param = 12 B/param",
    which the prompt never states: it names an fp32 master copy and two fp32 moments, 4 + 4 + 4 B."""
    for template_id, seed in (("training/zero-stages", 41934), ("training/fsdp-activations", 641004)):
        lines = _lines(template_id, seed)
        assert "- optimizer bytes per param = 4 B/param + 4 B/param + 4 B/param = 12 B/param" in lines
        assert "optimizer bytes" not in _givens(lines)


def test_flops_per_element_are_worked_from_the_kernels() -> None:
    """overhead/kernel-chain seed 345015 (P85) listed "FLOPs per element = 200 FLOP" against the
    prompt's one FLOP per element in each kernel: 200 kernels × 1 FLOP = 200 FLOP, worked."""
    lines = _lines("overhead/kernel-chain", 345015)
    assert "- FLOPs per element = kernels × 1 FLOP = 200 × 1 FLOP = 200 FLOP" in lines
    assert "FLOPs per element" not in _givens(lines)


def test_batch_doubling_reads_the_measured_doubling_first() -> None:
    """overhead/batch-doubling seed 950918 (P79) never used the measured 5.16 ms -> 10.3 ms it is
    built on: (a) now asks for it, 10.3 ÷ 5.16 = 1.996, to three figures 2 (the work bounds the step)."""
    lines = _lines("overhead/batch-doubling", 950918)
    assert "- **(a)** step time growth = doubled step time ÷ step time = 10.3 ms ÷ 5.16 ms = **2**" in lines
    assert "FLOPs per element" not in _givens(lines)
    assert "- FLOPs per element = kernels × 1 FLOP = 200 × 1 FLOP = 200 FLOP" in lines


def test_mamf_step_check_names_each_step_and_lists_the_mamf() -> None:
    """training/mamf-step-check seed 766682 (P247): the prompt's MAMF (271 TFLOP/s) was read but
    never listed; (c) and (d) had no name on the left; a rate read "achieved FLOPs". By hand:
    6 × 69B × 8.389M = 3,473 PFLOP; ÷ (1,024 × 271 TFLOP/s) = 12.5 s; 3,473 PFLOP ÷ 32.9 s =
    105.6 PFLOP/s; ÷ (1,024 × 271 TFLOP/s) = 38 %."""
    lines = _lines("training/mamf-step-check", 766682)
    assert "MAMF = 271 TFLOP/s" in _givens(lines)
    assert (
        "- **(c)** MAMF step time = FLOPs ÷ (chips × MAMF) = 3,470 PFLOP ÷ (1,024 × 271 TFLOP/s) = **12.5 s**"
        in lines
    )
    share = "- **(d)** share of MAMF = achieved FLOP/s ÷ (chips × MAMF)"
    assert f"{share} = 106 PFLOP/s ÷ (1,024 × 271 TFLOP/s) = **38 %**" in lines
    assert not any("achieved FLOPs" in line for line in lines)


def test_mfu_claim_uses_the_stated_parameter_count() -> None:
    """training/mfu-claim seed 597446 (P250) rebuilt 13B from an architecture the prompt never
    shows. By hand from the stated 13B: 6 × 13B × (2,048 × 4,096 = 8.389M) = 654 PFLOP."""
    lines = _lines("training/mfu-claim", 597446)
    assert "- active params = params = 13B params" in lines
    assert (
        "- FLOPs = 6 × active params × training tokens = 6 × 13B params × 8.389M tokens = 654 PFLOP" in lines
    )
    assert not any("MLP width" in line or "vocabulary" in line for line in lines)
    assert "training tokens" not in _givens(lines)


def test_gradient_bytes_are_named_as_gradients() -> None:
    """parallelism/dp-gradient-sync (P95, Gemma 2 9B) listed "bytes per weight = 4 B/param" for
    fp32 gradients of bf16 weights. Seed 431158 draws it again (the seed of the review, 431149,
    moved when the Adam state joined the fit). By hand: 9.24B params × 4 B = 36.96 GB → 37 GB."""
    lines = _lines("parallelism/dp-gradient-sync", 431158)
    assert "bytes per gradient = 4 B/param" in _givens(lines)
    assert (
        "- **(a)** all-reduce buffer = params × bytes per gradient = 9.24B params × 4 B/param = **37 GB**"
        in lines
    )
    assert not any("bytes per weight" in line for line in lines)


def test_an_exponent_of_one_is_kept_and_given() -> None:
    """moe/all-experts-profile seed 954692 (P66): at batch 1 the formula lost its ^(batch) and batch
    was missing from the givens. By hand: 8 × (1 − (1 − 2 ÷ 8)¹) = 8 × 0.25 = 2."""
    lines = _lines("moe/all-experts-profile", 954692)
    assert "batch = 1" in _givens(lines)
    touched = "- **(a)** experts touched = experts × (1 − (1 − experts per token ÷ experts)^(batch))"
    assert f"{touched} = 8 × (1 − (1 − 2 ÷ 8)¹) = **2**" in lines


def test_a_kib_figure_stays_binary() -> None:
    """moe/all-experts-profile (P64-P66): the prompt's 128 KiB/token was restated "131 kB/token".
    Mixtral 8x7B by hand: 2 (K, V) × 32 layers × 8 KV heads × 128 × 2 B = 131,072 B = 128 KiB;
    seed 954692 reads 1,024 tokens: 128 KiB × 1,024 = 134.2 MB."""
    lines = _lines("moe/all-experts-profile", 954692)
    assert "KV cache per token = 128 KiB/token" in _givens(lines)
    assert "- KV cache = KV cache per token × context = 128 KiB/token × 1,024 tokens = 134 MB" in lines
    assert not any("131 kB" in line for line in lines)


def test_moe_tokens_are_the_prompts_tokens_per_chip() -> None:
    """moe/expert-parallel-all-to-all seed 927491 (P70) and load-imbalance seed 230748 (P76)
    listed "sequence length = 1 token" and called a GPU's tokens "batch". By hand: top-4 routing of
    a 512-token prefill chunk is 4 × 512 = 2,048 assignments; top-2 of 16,384 tokens is 32,768."""
    lines = _lines("moe/expert-parallel-all-to-all", 927491)
    assert "tokens per chip = 512 tokens" in _givens(lines)
    assert (
        "- routed assignments per chip = experts per token × tokens per chip = 4 × 512 tokens = 2,048"
        in lines
    )
    lines += _lines("moe/load-imbalance", 230748)
    assert (
        "- routed assignments per chip = experts per token × tokens per chip = 2 × 16,384 tokens = 32,768"
        in lines
    )
    assert not any("sequence length" in line or "batch =" in line for line in lines)
