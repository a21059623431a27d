"""Issue 22 §3: topics calc could not answer. Collectives over TPU ICI tori (the JAX scaling book's
worked answers), the parameter breakdown and system rates as results, and the fewest chips that
serve a model. Every expected value is the book's figure or worked by hand here."""

import json

import pytest

SCALING_BOOK_W = "45 GB/s"  # TPU v4p / v5e: 4.5e10 B/s one way per link, 9e10 bidirectional


def _results(run_cli, *args: str) -> dict:
    code, out, err = run_cli(*args, "--json")
    assert code == 0, err
    return {name: r["value"] for name, r in json.loads(out)["results"].items()}


def _ici(run_cli, *args: str) -> dict:
    return _results(run_cli, "calc", "ici", "--link-bandwidth", SCALING_BOOK_W, *args)


def test_all_gather_over_one_torus_axis(run_cli) -> None:
    """jax-ml/scaling-book sharding.md, Question 2.1: AllGather_X([B_X, D_Y]) on a v4p 4x4x4 with
    B = 1024, D = 4096 in bf16 gathers 2BD/Y = 2,097,152 bytes over one axis with wraparound:
    2,097,152 / 9e10 = 23 µs."""
    result = _ici(run_cli, "--op", "all-gather", "--bytes", "2097152")
    assert result["time"] == pytest.approx(2_097_152 / 9e10)
    assert round(result["time"] * 1e6) == 23


def test_all_gather_over_two_axes_is_the_published_46_us(run_cli) -> None:
    """Question 2.3: AllGather_XY moves the whole 2BD = 8,388,608 bytes over two axes:
    max(4 hops x 0.5 µs, 8,388,608 / (2 x 9e10)) = 46 µs, bandwidth-bound. A one-way ring
    through the 16 chips (calc collective) gave 8,388,608 x 15/16 / 9e10 = 87 µs."""
    result = _ici(
        run_cli, "--op", "all-gather", "--bytes", "8388608", "--axes", "2", "--axis-size", "4",
        "--hop-latency", "0.5 us",
    )  # fmt: skip
    assert result["latency_time"] == pytest.approx(2e-6)
    assert result["bandwidth"] == 1.8e11
    assert result["time"] == pytest.approx(8_388_608 / 1.8e11)
    assert int(result["time"] * 1e6) == 46


def test_a_small_all_gather_is_latency_bound(run_cli) -> None:
    """Question 3: AllGather_X([B_X]) of B = 128 in bf16 (256 bytes) over an axis of 4 takes
    2 hops, about 2 µs at 1 µs a hop; the bandwidth term is nanoseconds."""
    result = _ici(
        run_cli, "--op", "all-gather", "--bytes", "256", "--axis-size", "4", "--hop-latency", "1 us"
    )
    assert result["time"] == pytest.approx(2e-6)
    assert result["bandwidth_time"] == pytest.approx(256 / 9e10)


def test_pop_quiz_and_the_other_collectives(run_cli) -> None:
    """sharding.md Pop Quiz 2 (part 1, first approximation): 34 MB over one axis at 9e10 B/s =
    377 µs. Question 2.4: 2BD/16 = 524,288 bytes over one axis = 5.8 µs. An all-reduce costs
    twice an all-gather and an all-to-all a quarter ("What Have We Learned?" table)."""
    # 524,288 / 9e10 = 5.83 µs, which the book rounds to 5.8
    gather = _ici(run_cli, "--op", "all-gather", "--bytes", "34e6")["time"]
    assert round(gather * 1e6) == 378  # 377.8 µs; the book writes 377
    assert _ici(run_cli, "--op", "all-gather", "--bytes", "524288")["time"] == pytest.approx(524_288 / 9e10)
    assert _ici(run_cli, "--op", "reduce-scatter", "--bytes", "34e6")["time"] == pytest.approx(gather)
    assert _ici(run_cli, "--op", "all-reduce", "--bytes", "34e6")["time"] == pytest.approx(2 * gather)
    assert _ici(run_cli, "--op", "all-to-all", "--bytes", "34e6")["time"] == pytest.approx(gather / 4)


def test_without_the_axis_size_the_latency_is_neglected_and_said_so(run_cli) -> None:
    args = ["calc", "ici", "--op", "all-gather", "--bytes", "1e6", "--link-bandwidth", "45 GB/s", "--json"]
    code, out, _ = run_cli(*args)
    data = json.loads(out)
    assert code == 0 and data["results"]["time"]["value"] == pytest.approx(1e6 / 9e10)
    assert data["notes"] == [
        "hop latencies are unknown and neglected: the bandwidth term alone (give --axis-size to count them)"
    ]


def test_parameter_breakdown_of_llama_2_7b(run_cli) -> None:
    """By hand from the config (32 layers, d 4096, 32 heads, gated 11,008-wide MLP, 32,000 tokens):
    embeddings 2 x 4096 x 32,000 + 4096 = 262,148,096; attention 32 x 4 x 4096^2 = 2,147,483,648;
    MLP 32 x 3 x 4096 x 11,008 = 4,328,521,728; norms 32 x 2 x 4096 = 262,144. They add up to the
    published 6,738,415,616 (meta-llama/Llama-2-7b-hf safetensors)."""
    result = _results(run_cli, "calc", "model", "--model", "llama-2-7b")
    assert result["embedding_params"] == 262_148_096
    assert result["attention_params"] == 2_147_483_648
    assert result["mlp_params"] == 4_328_521_728
    assert result["norm_and_router_params"] == 262_144
    assert result["params"] == 6_738_415_616


def test_parameter_breakdown_of_deepseek_v3(run_cli) -> None:
    """By hand: 3 dense layers of 3 x 7168 x 18,432 = 1,189,085,184 and 58 MoE layers of
    257 experts x 3 x 7168 x 2048 = 656,463,101,952 (MLP); 61 x 187,107,328 (MLA) = 11,413,547,008;
    routers 58 x 7168 x 256 + norms 61 x 2 x 7168 = 107,304,960; embeddings 2 x 129,280 x 7168 +
    7168 = 1,853,365,248. Total 671,026,404,352: the README's 671B."""
    result = _results(run_cli, "calc", "model", "--model", "deepseek-v3")
    assert result["mlp_params"] == 1_189_085_184 + 656_463_101_952
    assert result["attention_params"] == 11_413_547_008
    assert result["norm_and_router_params"] == 107_304_960
    assert result["embedding_params"] == 1_853_365_248
    assert result["params"] == 671_026_404_352


def test_fewest_chips_to_serve_and_system_rates(run_cli) -> None:
    """Llama 3.1 70B, by hand: 80 layers x (2 x 8192 x 128 x 72 + 3 x 8192 x 28,672 + 2 x 8192)
    + 2 x 128,256 x 8192 + 8192 = 70,553,706,496 parameters, 141,107,412,992 B in bf16; one
    4,096-token cache 4096 x 80 x 2 x 8 x 128 x 2 = 1,342,177,280 B; 142.4 GB over 80 GB H100s
    needs 2. Eight chips at 50% MFU: 8 x 989e12 x 0.5 = 3.956e15 FLOP/s, 8 x 3.35e12 B/s."""
    decode = ["calc", "decode", "--model", "llama-3.1-70b", "--chip", "h100-sxm", "--context", "4096"]
    result = _results(run_cli, *decode, "--batch", "1")
    assert result["memory_required"] == 141_107_412_992 + 1_342_177_280
    assert result["min_chips"] == 2
    assert _results(run_cli, *decode, "--batch", "64")["min_chips"] == 3  # 226.9 GB
    rates = _results(run_cli, "calc", "roofline", "--chip", "h100-sxm", "--chips", "8", "--mfu", "0.5")
    assert rates["system_flops"] == pytest.approx(3.956e15)
    assert rates["system_bandwidth"] == pytest.approx(8 * 3.35e12)
    assert rates["system_memory"] == 8 * 80e9


V5P = ["calc", "ici-limits", "--flops", "4.59e14", "--link-bandwidth", "90 GB/s"]  # 9e10 one way a link


def test_data_parallelism_limits_on_tpu_v5p(run_cli) -> None:
    """jax-ml/scaling-book training.md: for TPU v5p C / W = 4.59e14 / (2 x 9e10) = 2,550, so a
    data-parallel (or FSDP) batch per chip must be at least 2,550 tokens; over all three axes 850,
    and a 16M-token batch splits over 16e6 / 850 = 18,823 chips."""
    one = _results(run_cli, *V5P)
    assert one["ici_intensity"] == pytest.approx(2550)
    assert one["dp_min_batch_per_chip"] == pytest.approx(2550)
    three = _results(run_cli, *V5P, "--axes", "3", "--batch-tokens", "16e6")
    assert three["dp_min_batch_per_chip"] == pytest.approx(850)
    assert int(three["dp_max_chips"]) == 18_823


def test_tensor_parallelism_and_mixed_limits(run_cli) -> None:
    """training.md: tensor parallelism is compute-bound while Y < F / 2550 ("the required F for
    8-way model sharding is 20k": 8 x 2,550 = 20,400; Gemma 7B's F ≈ 50k binds near 19-way);
    FSDP mixed with TP holds down to 2 x 2550² / F tokens per chip, "around 396" for F = 32,768."""
    assert _results(run_cli, *V5P, "--ffn", "20400")["tp_max_degree"] == pytest.approx(8)
    assert _results(run_cli, *V5P, "--ffn", "50000")["tp_max_degree"] == pytest.approx(19.6, abs=0.05)
    mixed = _results(run_cli, *V5P, "--ffn", "32768")["mixed_min_batch_per_chip"]
    assert mixed == pytest.approx(2 * 2550**2 / 32768) and int(mixed) == 396


def test_training_activation_memory_with_and_without_checkpointing(run_cli) -> None:
    """GPT-3 175B (96 layers, d 12,288, 96 heads), one 2,048-token sequence, by Korthikanti et al.
    2022 eq. 1: s·b·h·(34 + 5·a·s/h) = 2048 x 12,288 x (34 + 80) = 2,868,903,936 B a layer,
    x 96 = 275,414,777,856 B; full checkpointing keeps 2·s·b·h a layer, 96 x 50,331,648 =
    4,831,838,208 B, plus one layer rebuilt: 7,700,742,144 B. Its 300B training tokens take
    3.14e23 FLOP (Brown et al. 2020, table D.1)."""
    gpt3 = ["calc", "train", "--model", "gpt3-175b", "--chip", "h100-sxm", "--tokens", "300e9"]
    result = _results(run_cli, *gpt3, "--batch", "1", "--sequence", "2048")
    assert result["activation_memory"] == 275_414_777_856
    assert result["checkpointed_activation_memory"] == 7_700_742_144
    assert result["flops"] == pytest.approx(3.14e23, rel=0.005)
    # checkpointing recomputes the forward: 8·N·D instead of 6·N·D
    assert result["checkpointed_time"] == pytest.approx(result["time"] * 8 / 6)


def test_every_ring_collective_can_carry_its_latency(run_cli) -> None:
    """Thakur, Rabenseifner and Gropp 2005: a ring all-reduce takes 2(N−1) steps of α besides its
    bandwidth term. By hand, 1 MB over 8 GPUs at 450 GB/s one way with α = 5 µs:
    2 x 7 x 5 µs + 2 x 7/8 x 1e6 / 450e9 = 70 µs + 3.89 µs; an all-gather, 7 x 5 µs + 1.94 µs."""
    ring = ["calc", "collective", "--bytes", "1e6", "--participants", "8", "--link-bandwidth", "450 GB/s"]
    reduce = _results(run_cli, *ring, "--op", "all-reduce", "--latency", "5 us")
    assert reduce["time_with_latency"] == pytest.approx(70e-6 + 2 * 7 / 8 * 1e6 / 450e9)
    gather = _results(run_cli, *ring, "--op", "all-gather", "--latency", "5 us")
    assert gather["time_with_latency"] == pytest.approx(35e-6 + 7 / 8 * 1e6 / 450e9)


def test_the_largest_model_pure_data_parallelism_trains(run_cli) -> None:
    """jax-ml/scaling-book training.md: with bf16 parameters and fp32 Adam state (10 bytes per
    parameter) "the largest model we can fit has TPU memory / 10 parameters", so on a TPU v5p with
    96 GB of HBM "about 10B": 96e9 / 10 = 9.6e9."""
    result = _results(run_cli, "calc", "train", "--memory", "96 GB", "--bytes-per-param", "10")
    assert result == {"max_trainable_params": 9.6e9}
