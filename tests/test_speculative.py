"""Speculative decoding (engine/model/speculative.py) against Leviathan, Kalman and Matias, "Fast
Inference from Transformers via Speculative Decoding" (ICML 2023, arXiv 2211.17192), and hand
derivations. Expected values are the arithmetic written out, never the engine's output.
"""

from __future__ import annotations

import json

import pytest

from perfdrill.engine.model import load_specs
from perfdrill.engine.model.evaluation import evaluate
from perfdrill.engine.problems.bank import load_bank
from perfdrill.engine.problems.generation import generate

PAPER = ["expected_tokens_per_round", "speculative_speedup", "speculative_pays", "best_draft_tokens"]


def _paper(alpha: float, k: int, c: float, s: float = 1.0) -> dict[str, float]:
    inputs = {"acceptance_rate": alpha, "draft_tokens": k, "draft_cost_ratio": c, "verify_slowdown": s}
    return evaluate("speculative", inputs, [*PAPER, "all_drafts_accepted"])


@pytest.mark.parametrize(
    ("alpha", "gamma", "tokens"),
    [
        # Table 2's best drafts (T5-small drafting for T5-XXL): Eq. 1, E = (1 − α^(γ+1)) / (1 − α).
        (0.75, 7, (1 - 0.100112915039) / 0.25),  # En-De, argmax: 0.75^8 = 0.100112915...
        (0.62, 7, (1 - 0.021834011) / 0.38),  # En-De, temperature 1: 0.62^8 = 0.0218340...
        (0.65, 5, (1 - 0.075418890625) / 0.35),  # CNN/DM, argmax: 0.65^6
        (0.53, 5, (1 - 0.022164361129) / 0.47),  # CNN/DM, temperature 1: 0.53^6
    ],
)
def test_expected_tokens_per_round_is_equation_1(alpha: float, gamma: int, tokens: float) -> None:
    assert _paper(alpha, gamma, 0.0)["expected_tokens_per_round"] == pytest.approx(tokens, rel=1e-9)


def test_the_series_and_its_closed_form_agree() -> None:
    """E counts the accepted drafts plus the target's own token: 1 + α + α² + α³ for k = 3."""
    assert _paper(0.5, 3, 0.0)["expected_tokens_per_round"] == pytest.approx(1 + 0.5 + 0.25 + 0.125)
    assert _paper(0.5, 3, 0.0)["all_drafts_accepted"] == pytest.approx(0.125)
    assert _paper(0.0, 4, 0.0)["expected_tokens_per_round"] == 1  # nothing accepted: one token a round


def test_speedup_is_theorem_3_8() -> None:
    # α = 0.8, γ = 5, c = 0.05: E = (1 − 0.262144) / 0.2 = 3.68928, cost 5 · 0.05 + 1 = 1.25 steps.
    values = _paper(0.8, 5, 0.05)
    assert values["expected_tokens_per_round"] == pytest.approx(3.68928, rel=1e-12)
    assert values["speculative_speedup"] == pytest.approx(3.68928 / 1.25, rel=1e-12)  # 2.951424
    assert _paper(0.8, 5, 0.5)["speculative_speedup"] == pytest.approx(3.68928 / 3.5, rel=1e-12)


@pytest.mark.parametrize(("alpha", "c", "pays"), [(0.15, 0.10, 1), (0.05, 0.10, 0), (0.8, 0.3, 1)])
def test_one_draft_token_gives_corollary_3_9(alpha: float, c: float, pays: int) -> None:
    """With γ = 1 the speed-up is (1 + α) / (1 + c), above 1 exactly when α > c."""
    values = _paper(alpha, 1, c)
    assert values["speculative_speedup"] == pytest.approx((1 + alpha) / (1 + c), rel=1e-12)
    assert values["speculative_pays"] == pays


def test_a_free_draft_is_bounded_by_one_over_one_minus_alpha() -> None:
    """A draft that costs nothing (the paper's bigram model, α ≈ 0.2) cannot pass 1 / (1 − α) = 1.25."""
    assert _paper(0.2, 30, 0.0)["speculative_speedup"] == pytest.approx(1.25, rel=1e-12)


@pytest.mark.parametrize(
    ("alpha", "c", "best"),
    [
        # α = 0.8, c = 0.05, k = 1…9: 1.714, 2.218, 2.567, 2.801, 2.951, 3.040, 3.082, 3.092, 3.078
        (0.8, 0.05, 8),
        # α = 0.6, c = 0.05, k = 3…5: 2.176/1.15 = 1.892, 2.3056/1.2 = 1.921, 2.38336/1.25 = 1.907
        (0.6, 0.05, 4),
        # α = 0.6, c = 0.1, k = 2…4: 1.96/1.2 = 1.633, 2.176/1.3 = 1.674, 2.3056/1.4 = 1.647
        (0.6, 0.1, 3),
        # α = 0.3, c = 0.4: k = 1 gives 1.3/1.4 = 0.929, k = 2 gives 1.39/1.8 = 0.772: nothing pays
        (0.3, 0.4, 1),
    ],
)
def test_best_draft_length_by_hand(alpha: float, c: float, best: int) -> None:
    assert _paper(alpha, 1, c)["best_draft_tokens"] == best


def test_a_costlier_verification_shortens_the_best_draft() -> None:
    # α = 0.8, c = 0.05, but each verification costs 2 plain steps: k = 8…10 give
    # 4.32891136/2.4 = 1.8037, 4.463129088/2.45 = 1.8217, 4.5705032704/2.5 = 1.8282, and k = 11
    # 4.65640261632/2.55 = 1.8260: the best draft is longer (10), and the speed-up far lower.
    assert _paper(0.8, 1, 0.05, s=2.0)["best_draft_tokens"] == 10


# A served 70B target (140 GB of bf16 weights given directly) on one chip of 1 PFLOP/s and 2 TB/s,
# with no KV cache (context 0), so every time below is one division written out.
SERVED = {
    "peak_flops": 1e15,
    "memory_bandwidth": 2e12,
    "memory_capacity": 192e9,
    "chips": 1,
    "mfu": 1,
    "mbu": 1,
    "params": 70e9,
    "active_params": 70e9,
    "weight_bytes_per_param": 2,
    "kv_bytes_per_token": 327_680,
    "context": 0,
    "acceptance_rate": 0.8,
    "draft_tokens": 4,
}
STEP = ["runtime", "draft_cost_ratio", "verify_runtime", "verify_slowdown", "speculative_round_time"]


def _served(**inputs: float) -> dict[str, float]:
    wanted = [*STEP, "speculative_speedup", "speculative_tpot", "verify_bound", "speculative_pays"]
    return evaluate("speculative_decode", {**SERVED, **inputs}, wanted)


def test_memory_bound_target_verifies_in_one_step() -> None:
    values = _served(batch=1, draft_step_time=0.005)
    # Plain step: 140e9 B / 2e12 B/s = 70 ms (its math, 1.4e11 FLOP, takes 0.14 ms).
    assert values["runtime"] == pytest.approx(0.070, rel=1e-12)
    # Verifying 5 positions: 7e11 FLOP = 0.7 ms of math, still under the 70 ms of reads.
    assert values["verify_runtime"] == pytest.approx(0.070, rel=1e-12)
    assert values["verify_slowdown"] == pytest.approx(1.0)
    assert values["draft_cost_ratio"] == pytest.approx(0.005 / 0.070, rel=1e-12)
    # Round: 4 · 5 ms + 70 ms = 90 ms for E = (1 − 0.8^5)/0.2 = 3.3616 tokens.
    assert values["speculative_round_time"] == pytest.approx(0.090, rel=1e-12)
    assert values["speculative_tpot"] == pytest.approx(0.090 / 3.3616, rel=1e-9)
    assert values["speculative_speedup"] == pytest.approx(3.3616 * 0.070 / 0.090, rel=1e-9)  # 2.61


def test_compute_bound_verification_at_a_large_batch_does_not_pay() -> None:
    values = _served(batch=512, draft_step_time=0.012)
    # Plain step: 512 · 1.4e11 = 7.168e13 FLOP = 71.68 ms of math against 70 ms of reads.
    assert values["runtime"] == pytest.approx(0.07168, rel=1e-12)
    # Verification: 5 positions each, 358.4 ms of math: compute-bound, 5 plain steps.
    assert values["verify_bound"] == 1
    assert values["verify_runtime"] == pytest.approx(0.3584, rel=1e-12)
    assert values["verify_slowdown"] == pytest.approx(5.0, rel=1e-12)
    # Round: 4 · 12 ms + 358.4 ms = 406.4 ms for 3.3616 tokens, against 71.68 ms per plain token.
    assert values["speculative_speedup"] == pytest.approx(3.3616 * 0.07168 / 0.4064, rel=1e-9)  # 0.593
    assert values["speculative_pays"] == 0


def test_the_speculative_slips_by_hand() -> None:
    """Each named slip, on generated variants, against its value worked by hand from α and k."""
    template, specs = load_bank([]).get("speculative/tokens-per-round"), load_specs([])
    for seed in range(20):
        problem = generate(template, seed, specs)
        alpha, k = problem.variant.params["alpha"], problem.variant.params["k"]
        right = sum(alpha**i for i in range(k + 1))  # 1 + α + … + α^k
        slips = dict(problem.part("per_round").mistakes)
        assert problem.part("per_round").value == pytest.approx(right, rel=1e-9)
        assert slips["alpha-to-the-k"] == pytest.approx(right - alpha**k, rel=1e-9)  # one term short
        assert slips["all-drafts-accepted"] == pytest.approx(k + 1)
        assert slips["forgot-bonus-token"] == pytest.approx(right - 1, rel=1e-9)


def test_leaving_out_the_draft_or_a_compute_bound_check_by_hand() -> None:
    """The draft's time left out: E ÷ check; the check taken as one step: E ÷ (k·c + 1)."""
    template, specs = load_bank([]).get("speculative/large-batch"), load_specs([])
    checked = 0
    for seed in range(40):
        problem = generate(template, seed, specs)
        look = problem.variant.lookup
        tokens, k = float(look("expected_tokens_per_round", None)), problem.variant.params["k"]
        step, check = float(look("runtime", None)), float(look("verify_runtime", None))
        draft = float(look("draft_step_time", None))
        slips = dict(problem.part("speedup").mistakes)
        assert slips["forgot-draft-cost"] == pytest.approx(tokens * step / check, rel=1e-9)
        if check > step:  # compute-bound: taking the check as one plain step is a different answer
            assert slips["verify-as-one-step"] == pytest.approx(tokens * step / (k * draft + step), rel=1e-9)
            checked += 1
    assert checked > 0


def test_calc_speculative(run_cli) -> None:
    args = ("--acceptance-rate", "0.8", "--draft-tokens", "5", "--cost-ratio", "0.05", "--json")
    code, out, _ = run_cli("calc", "speculative", *args)
    assert code == 0
    results = json.loads(out)["results"]
    assert results["tokens_per_round"]["value"] == pytest.approx(3.68928)
    assert results["speedup"]["value"] == pytest.approx(2.951424)
    assert results["best_draft_tokens"]["value"] == 8
    assert results["pays"]["value"] == "yes: speculation is faster"


@pytest.mark.parametrize("rate", ["1", "1.5", "-0.1", "nan"])
def test_calc_refuses_an_acceptance_rate_outside_0_to_1(run_cli, rate: str) -> None:
    code, out, err = run_cli(
        "calc", "speculative", "--acceptance-rate", rate, "--draft-tokens", "4", "--cost-ratio", "0.1"
    )
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "--acceptance-rate" in err


def test_the_key_reads_as_the_paper_writes_it() -> None:
    """Eq. 1 reads (1 − α^(k + 1)) ÷ (1 − α), the constant first where every other term is taken away,
    and a draft step worked in a scenario no part asks about still explains (it once crashed)."""
    from perfdrill.engine.output.markdown import explanation_markdown

    specs = load_specs([])
    text = explanation_markdown(generate(load_bank([]).get("speculative/tokens-per-round"), 3, specs))
    assert "(1 − α^(k + 1)) ÷ (1 − α)" in text.replace("\\", "")
    for seed in range(10):
        text = explanation_markdown(generate(load_bank([]).get("speculative/large-batch"), seed, specs))
        assert "- draft step time = " in text.replace("\\", "")  # read off in the draft's own block
