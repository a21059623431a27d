"""Training under sharding against the ZeRO paper, Korthikanti et al., Narayanan et al., the
scaling book, and hand derivations written out here."""

import pytest

from perfdrill.engine.model import load_specs
from perfdrill.engine.model.evaluation import evaluate
from perfdrill.engine.model.formula_inputs import hardware, model_inputs

GB = 1e9


def _zero(params: float, ranks: int, memory: float = 32 * GB) -> dict:
    inputs = {
        "params": params,
        "weight_bytes_per_param": 2,
        "optimizer_bytes_per_param": 12,
        "dp_ranks": ranks,
        "memory_capacity": memory,
    }
    wanted = ["replicated_state_bytes", "zero1_state_bytes", "zero2_state_bytes", "zero3_state_bytes"]
    return evaluate("train_sharded", inputs, [*wanted, "smallest_zero_stage"])


def test_zero_paper_figure_1_for_a_7_5b_model_on_64_gpus() -> None:
    # Rajbhandari et al. 2019, Figure 1: Ψ = 7.5B, N_d = 64, K = 12 gives 120 GB for the
    # baseline, 31.4 GB with P_os, 16.6 GB with P_os+g and 1.9 GB with P_os+g+p.
    values = _zero(7.5e9, 64)
    assert values["replicated_state_bytes"] == pytest.approx(120 * GB)
    assert values["zero1_state_bytes"] == pytest.approx(31.4 * GB, abs=0.05 * GB)
    assert values["zero2_state_bytes"] == pytest.approx(16.6 * GB, abs=0.05 * GB)
    assert values["zero3_state_bytes"] == pytest.approx(1.9 * GB, abs=0.05 * GB)
    # On the paper's 32 GB V100s the optimizer-state split alone fits (31.4 < 32 < 120).
    assert values["smallest_zero_stage"] == 1


def test_zero_paper_trillion_parameters_on_1024_gpus() -> None:
    # The ZeRO paper: with all three stages, 1T parameters (16 TB of state) need 15.6 GB per GPU
    # over 1024 GPUs: 16e12 / 1024 = 15.625e9.
    assert _zero(1e12, 1024)["zero3_state_bytes"] == pytest.approx(15.625 * GB)


def test_no_stage_fits_when_even_zero3_overflows() -> None:
    # 70B over 8 GPUs: 16 · 70e9 / 8 = 140 GB per GPU, more than an 80 GB GPU holds.
    assert _zero(70e9, 8, memory=80 * GB)["smallest_zero_stage"] == 4


def _activations(model: str, sequence: int, batch: int, **extra: float) -> dict:
    inputs = {
        **model_inputs(load_specs().model(model), weight_dtype="bf16", kv_dtype="bf16"),
        "sequence": sequence,
        "batch": batch,
        **extra,
    }
    return evaluate(
        "train_sharded",
        inputs,
        ["activation_memory", "selective_activation_memory", "checkpointed_activation_memory"],
    )


def test_selective_recomputation_drops_the_attention_share_for_gpt3() -> None:
    # Korthikanti et al. 2022, section 4.2: for GPT-3 (h = 12288, a = 96, s = 2048) the attention
    # term 5·a·s/h is 80, so a layer keeps 34 of its 34 + 80 = 114 bytes per s·b·h: selective
    # recomputation removes 80/114 = 70% of the activation memory.
    values = _activations("gpt3-175b", 2048, 1)
    assert values["selective_activation_memory"] / values["activation_memory"] == pytest.approx(34 / 114)
    # By hand: 96 layers · 34 · 2048 · 1 · 12288 bytes.
    assert values["selective_activation_memory"] == pytest.approx(96 * 34 * 2048 * 12288)


def test_largest_micro_batch_beside_zero3_by_hand() -> None:
    # Llama 2 7B has 32 layers and h = 4096. Take Ψ = 7e9 over 8 GPUs: 16 · 7e9 / 8 = 14 GB of
    # state. Each sequence of 4096 tokens keeps 32 · 34 · 4096 · 4096 = 18.25 GB under selective
    # recomputation, so 80 GB holds floor(66 / 18.25) = 3 sequences.
    book = load_specs()
    inputs = {
        **hardware(book.chip("h100-sxm"), "bf16").inputs(),
        **model_inputs(book.model("llama-2-7b"), weight_dtype="bf16", kv_dtype="bf16"),
        "params": 7e9,
        "optimizer_bytes_per_param": 12,
        "dp_ranks": 8,
        "sequence": 4096,
        "batch": 1,
    }
    values = evaluate("train_sharded", inputs, ["zero3_state_bytes", "fsdp_max_batch", "recompute_plan"])
    assert values["zero3_state_bytes"] == pytest.approx(14 * GB)
    assert values["fsdp_max_batch"] == 3
    # One sequence without recomputation: 32 · 4096 · 4096 · (34 + 5 · 32 · 4096 / 4096) = 104.2 GB
    # does not fit beside 14 GB in 80 GB; with selective recomputation 18.25 GB does.
    assert values["recompute_plan"] == 1


def _pipeline(stages: int, micro: int, **extra: float) -> dict:
    inputs = {"pipeline_stages": stages, "microbatches": micro, "stage_microbatch_time": 0.01, **extra}
    wanted = [
        "pipeline_bubble_fraction",
        "pipeline_step_time",
        "interleaved_bubble_fraction",
        "min_microbatches",
    ]
    return evaluate("pipeline", inputs, wanted)


def test_pipeline_bubble_by_hand_and_against_narayanan() -> None:
    # p = 4 stages, m = 8 micro-batches: a step is 8 + 3 = 11 slots, 3 of them idle.
    values = _pipeline(4, 8, virtual_stages=2, bubble_target_percent=20)
    assert values["pipeline_bubble_fraction"] == pytest.approx(3 / 11)
    assert values["pipeline_step_time"] == pytest.approx(0.11)
    # Narayanan et al. 2021, section 2.2: the bubble is (p − 1)/m of the ideal time, and
    # (p − 1)/(v·m) with v interleaved chunks: 3/8 and 3/16 here.
    bubble = values["pipeline_bubble_fraction"]
    assert bubble / (1 - bubble) == pytest.approx(3 / 8)
    interleaved = values["interleaved_bubble_fraction"]
    assert interleaved / (1 - interleaved) == pytest.approx(3 / 16)


@pytest.mark.parametrize(
    ("stages", "percent", "fewest"),
    [
        (4, 20, 12),  # 3/15 = 20% exactly; 11 gives 3/14 = 21.4% (3·0.8/0.2 is 12.000000000000002 in floats)
        (7, 20, 24),  # 6/30 = 20% exactly
        (8, 5, 133),  # 7/140 = 5% exactly; 132 gives 7/139 = 5.04%
        (2, 10, 9),  # 1/10 = 10% exactly
        (16, 2, 735),  # 15/750 = 2% exactly
    ],
)
def test_fewest_micro_batches_land_exactly_on_the_target(stages: int, percent: int, fewest: int) -> None:
    assert _pipeline(stages, 1, virtual_stages=1, bubble_target_percent=percent)["min_microbatches"] == fewest


def test_bucketed_overlap_by_hand() -> None:
    # All-reduce 10 ms in 4 buckets. Backward 8 ms: buckets are ready at 2, 4, 6, 8 ms and take
    # 2.5 ms each back to back, ending at 2 + 4 · 2.5 = 12 ms: 4 ms after backward.
    # Backward 20 ms: each bucket finishes before the next is ready; only the last 2.5 ms shows.
    for backward, exposed in ((0.008, 0.004), (0.020, 0.0025)):
        values = evaluate(
            "dp_overlap",
            {"all_reduce_time": 0.010, "backward_time": backward, "buckets": 4},
            ["exposed_comm_time", "dp_overlap_verdict"],
        )
        assert values["exposed_comm_time"] == pytest.approx(exposed)
        assert values["dp_overlap_verdict"] == (1 if backward >= 0.010 else 0)


def _dp(chips: int) -> dict:
    inputs = {
        "params": 7e9,
        "weight_bytes_per_param": 2,
        "participants": chips,
        "link_bandwidth": 450e9,
        "link_peer_bandwidth": 450e9,
        "peak_flops": 990e12,
        "mfu": 1,
        "batch": 1,
        "sequence": 2048,
    }
    return evaluate("dp_overlap", inputs, ["dp_critical_tokens", "backward_time", "all_reduce_time"])


def test_data_parallel_critical_batch_matches_the_scaling_book() -> None:
    # jax-ml/scaling-book gpus.md, "Data Parallelism": within an H100 node the per-GPU token batch
    # must exceed C/W = 990e12 / 450e9 = 2200 for backward to cover the all-reduce. That rule drops
    # the ring's (N−1)/N; with it, 8 GPUs need 7/8 of 2200 = 1925 tokens.
    assert _dp(10**6)["dp_critical_tokens"] == pytest.approx(2200, rel=1e-5)
    assert _dp(8)["dp_critical_tokens"] == pytest.approx(1925)
    # By hand, 2048 tokens of a 7B model: backward 4 · 7e9 · 2048 / 990e12 = 57.9 ms.
    assert _dp(8)["backward_time"] == pytest.approx(4 * 7e9 * 2048 / 990e12)


def test_tensor_parallel_ratio_by_hand() -> None:
    # A layer with MHA and a plain 4·h MLP holds 4h² + 8h² = 12h² weights. Per layer, two ring
    # all-reduces of T·h·2 bytes cost 2 · 2(t−1)/t · 2Th / W; the matmuls 2 · 12h² · T / (t·C).
    # The ratio is (t − 1)·C / (3·h·W): 7 · 989e12 / (3 · 4096 · 450e9) = 1.2518 for t = 8.
    h, t, tokens = 4096, 8, 8192
    inputs = {
        "d_model": h,
        "heads": 32,
        "kv_heads": 32,
        "head_dim": 128,
        "dense_ffn": 4 * h,
        "mlp_matrices": 2,
        "batch": 4,
        "sequence": tokens // 4,
        "activation_bytes": 2,
        "participants": t,
        "link_bandwidth": 450e9,
        "link_peer_bandwidth": 450e9,
        "peak_flops": 989e12,
        "mfu": 1,
    }
    values = evaluate(
        "tp_overlap", inputs, ["layer_matmul_params", "tp_layer_comm_time", "tp_comm_to_compute"]
    )
    assert values["layer_matmul_params"] == 12 * h * h
    assert values["tp_layer_comm_time"] == pytest.approx(2 * 2 * 7 / 8 * tokens * h * 2 / 450e9)
    assert values["tp_comm_to_compute"] == pytest.approx(7 * 989e12 / (3 * h * 450e9))
