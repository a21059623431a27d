"""A profiled model pass implies an MFU a real server reaches: at most 65% of the chips' dense peak.

A blind solver found speculative/measured-rounds checking 1,792 tokens of a 72B model in 78.4 ms on
4 x H100: 2 x 72e9 x 1,792 FLOP / 0.0784 s = 3.29 PFLOP/s of 4 x 989 TFLOP/s = 83% MFU, while real
prefill-like passes reach about 40-60% (PaLM 46.2%, Megatron-LM 52%; engine/model/inefficiencies.py).
The implied MFU is worked here from the numbers each prompt shows: model FLOPs (2 per parameter per
token) over the shown time, the chips and the chip's datasheet dense bf16 peak.
"""

from __future__ import annotations

import pytest

from perfdrill.engine.model import load_specs
from perfdrill.engine.problems.bank import load_bank
from perfdrill.engine.problems.generation import Problem, generate

BANK = load_bank()
SPECS = load_specs()
SEEDS = 100
CEILING = 0.65


def _problems(template_id: str) -> list[Problem]:
    return [generate(BANK.get(template_id), seed, SPECS) for seed in range(SEEDS)]


def _shown(problem: Problem, name: str) -> float:
    return float(problem.variant.lookup(name, None))


def _mfu(params: float, tokens: float, seconds: float, chips: int, peak: float) -> float:
    return 2 * params * tokens / seconds / (chips * peak)


def test_the_reported_check_was_past_the_ceiling() -> None:
    # 2 x 72e9 x 1,792 = 2.580e14 FLOP; / 0.0784 s = 3.291e15 FLOP/s; / (4 x 989e12) = 0.832.
    assert _mfu(72e9, 1792, 0.0784, 4, 989e12) == pytest.approx(0.832, abs=5e-4)
    assert SPECS.chip("h100-sxm").flops("bf16") == pytest.approx(989e12, rel=1e-3)


def test_a_speculative_check_implies_at_most_65_percent_mfu() -> None:
    compute_bound = 0
    for problem in _problems("speculative/measured-rounds"):
        p = problem.variant.params
        tokens = p["batch"] * (p["k"] + 1)  # k drafts and the target's own position, per sequence
        peak = p["chip"].flops("bf16")
        mfu = _mfu(_shown(problem, "params"), tokens, _shown(problem, "verify_runtime"), p["chips"], peak)
        assert mfu <= CEILING, (problem.seed, mfu)
        if _shown(problem, "verify_runtime") > 1.15 * _shown(problem, "runtime"):
            compute_bound += 1  # the check costs more than a plain step: it is compute-bound
            assert mfu >= 0.30, (problem.seed, mfu)  # and never absurdly slow: 40-60% less attention
    assert compute_bound >= 10


def test_a_timed_decode_step_implies_at_most_65_percent_mfu() -> None:
    recomputed = 0
    for problem in _problems("runtime_check/decode-step"):
        p = problem.variant.params
        # Without the cache a step reruns the whole prefix: batch x context tokens; with it, batch.
        tokens = p["batch"] * (p["context"] if p["code"] == "recompute" else 1)
        recomputed += p["code"] == "recompute"
        peak = p["chip"].flops("bf16")
        mfu = _mfu(_shown(problem, "params"), tokens, _shown(problem, "measured_runtime"), 1, peak)
        assert mfu <= CEILING, (problem.seed, mfu)
    assert recomputed >= 10


def test_a_profiled_chunked_step_implies_at_most_65_percent_mfu() -> None:
    for problem in _problems("serving/chunked-prefill-steps"):
        p = problem.variant.params
        tokens = p["batch"] + p["chunk"]  # one token per running sequence and the prompt's chunk
        peak = p["chip"].flops("bf16")
        mfu = _mfu(_shown(problem, "params"), tokens, _shown(problem, "mixed_step_time"), p["chips"], peak)
        assert mfu <= CEILING, (problem.seed, mfu)


def test_a_profiled_decode_step_implies_at_most_65_percent_mfu() -> None:
    # serving/decode-profile keeps a GEMM's 70-85% for its measured rates: its steps (batch 8 at most)
    # are memory-bound, so the model FLOPs of one token per sequence imply far less.
    for problem in _problems("serving/decode-profile"):
        p = problem.variant.params
        peak = p["chip"].flops("bf16")
        mfu = _mfu(
            _shown(problem, "params"), p["batch"], _shown(problem, "measured_runtime"), p["chips"], peak
        )
        assert mfu <= CEILING, (problem.seed, mfu)
