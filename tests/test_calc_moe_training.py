"""calc train counts 6·N·D with N the parameters a token uses: a mixture of experts' active count,
and for a dense model exactly its params (embeddings included, as Chinchilla's N is; Kaplan et al.
2020 count non-embedding parameters, which Pearce & Song 2024 show is what separates the two laws).
Every expected value is a published figure or worked by hand here."""

import json

import pytest


def _results(run_cli, *args: str) -> dict:
    code, out, err = run_cli(*args, "--json")
    assert code == 0, err
    return {name: r["value"] for name, r in json.loads(out)["results"].items()}


def test_deepseek_v3_trains_on_its_37b_active_parameters(run_cli) -> None:
    """DeepSeek-V3 technical report (arXiv 2412.19437): 671B parameters, 37B activated per token,
    14.8T pre-training tokens. By hand from the config: 671,026,404,352 − 58 MoE layers x (256 − 8)
    skipped experts x 3 x 7168 x 2048 = 671,026,404,352 − 633,474,121,728 = 37,552,282,624 active;
    6 x 37,552,282,624 x 14.8e12 = 3.3346e24 FLOP. Counting all 671B would give 5.96e25, 18x more
    than the 37B the report trains."""
    result = _results(
        run_cli, "calc", "train", "--model", "deepseek-v3", "--chip", "h100-sxm", "--tokens", "14.8e12"
    )
    assert result["flops"] == pytest.approx(6 * 37_552_282_624 * 14.8e12)
    assert result["flops"] == pytest.approx(6 * 37e9 * 14.8e12, rel=0.02)  # the report's rounded 37B
    assert 6 * 671_026_404_352 * 14.8e12 / result["flops"] == pytest.approx(17.87, abs=0.005)
    # recomputing the forward for checkpointing costs 2 FLOP per active parameter too
    assert result["checkpointed_time"] == pytest.approx(result["time"] * 8 / 6)


def test_mixtral_counts_its_12_9b_active_parameters(run_cli) -> None:
    """Mistral AI, "Mixtral of experts" (2023): 46.7B parameters in all, 12.9B per token. By hand,
    1T tokens: 6 x 12,879,925,248 x 1e12 = 7.728e22 FLOP; on 512 H100s (989 TFLOP/s) at 40% MFU
    7.728e22 / (512 x 989e12 x 0.4) = 381,552 s = 4.42 days."""
    args = ["calc", "train", "--model", "mixtral-8x7b", "--chip", "h100-sxm", "--chips", "512"]
    result = _results(run_cli, *args, "--mfu", "0.4", "--tokens", "1e12")
    assert result["flops"] == pytest.approx(6 * 12_879_925_248 * 1e12)
    assert round(result["flops"] / 1e22, 1) == pytest.approx(6 * 12.9e9 * 1e12 / 1e22, abs=0.05)
    assert result["time"] == pytest.approx(6 * 12_879_925_248 * 1e12 / (512 * 989e12 * 0.4))
    # the memory holds every expert: 16 bytes per parameter of all 46.7B
    assert result["memory_required"] == 16 * 46_702_792_704


def test_an_moe_given_by_counts_needs_its_active_count(run_cli) -> None:
    """--params alone cannot say how many of an MoE's parameters a token uses: refused, and accepted
    with --active-params (6 x 37e9 x 14.8e12 = 3.2856e24)."""
    moe = ["calc", "train", "--chip", "h100-sxm", "--tokens", "14.8e12", "--experts", "256"]
    moe += ["--experts-per-token", "8", "--params", "671e9"]
    code, _, err = run_cli(*moe)
    assert code == 2 and "give --active-params too" in err
    assert _results(run_cli, *moe, "--active-params", "37e9")["flops"] == pytest.approx(3.2856e24)


def test_a_dense_model_gives_the_bank_answer_from_the_same_count(run_cli) -> None:
    """training/time-6nd's reviewed answer (tests/golden/training__time-6nd__62286.txt): Llama 2 13B
    shown as 13B params, 6.7T tokens, 512 TPU v6e at 918 TFLOP/s and 50% MFU:
    6 x 13e9 x 6.7e12 / (512 x 918e12 x 0.5) = 2,223,754 s = 25.74 days. The architecture's exact
    13,015,864,320 gives 25.77 days: the 25.7 vs 25.8 is the prompt's rounded count, not the
    embeddings (a dense model's active count is its total, embeddings included)."""
    v6e = ["calc", "train", "--chip", "tpu-v6e", "--chips", "512", "--mfu", "0.5", "--tokens", "6.7e12"]
    rounded = _results(run_cli, *v6e, "--params", "13e9")["time"] / 86400
    assert round(rounded, 1) == 25.7
    exact = _results(run_cli, *v6e, "--model", "llama-2-13b")
    assert exact["flops"] == pytest.approx(6 * 13_015_864_320 * 6.7e12)
    assert round(exact["time"] / 86400, 1) == 25.8
    model = _results(run_cli, "calc", "model", "--model", "llama-2-13b")
    assert model["active_params"] == model["params"] == 13_015_864_320
