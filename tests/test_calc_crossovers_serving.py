"""Issue 22 §3: attention crossovers and intensities, the batch where a matmul turns compute-bound,
serving capacity (requests a second, the prefill:decode ratio, eviction, the fewest chips for a
TPOT target) and memory (logits, what the weights leave, each chip's share). Every expected value
is a published figure or worked by hand here."""

import json

import pytest


def _results(run_cli, *args: str) -> dict:
    code, out, err = run_cli(*args, "--json")
    assert code == 0, err
    return {name: r["value"] for name, r in json.loads(out)["results"].items()}


CROSSOVER = ["calc", "attention-crossover"]


def test_a_plain_mlp_crosses_over_at_6d(run_cli) -> None:
    """GPT-2 small (d 768, 12 heads, plain 3072-wide MLP): 12·d² weights a layer, 24·d² FLOP a token
    (kipply, "Transformer Inference Arithmetic"), against 4·n·d FLOP of QKᵀ and A·V: n = 6·d = 4,608."""
    result = _results(
        run_cli, *CROSSOVER, "--d-model", "768", "--heads", "12", "--ffn", "3072", "--mlp", "plain"
    )
    assert result == {"crossover_context": 4608, "crossover_in_model_widths": 6}


def test_a_gated_mlp_crosses_over_at_8d(run_cli) -> None:
    """jax-ml/scaling-book transformers.md: with a gated F = 4D MLP and multi-head attention the
    matmuls are 16·D² a layer, so attention dominates "when T > 8D": 8 x 4096 = 32,768."""
    gated = _results(run_cli, *CROSSOVER, "--d-model", "4096", "--heads", "32", "--ffn", "16384")
    assert gated == {"crossover_context": 32_768, "crossover_in_model_widths": 8}


def test_llama_2_7b_crossover_and_attention_intensities(run_cli) -> None:
    """By hand: (4 x 4096² + 3 x 4096 x 11,008) / (2 x 4096) = 8192 + 16,512 = 24,704 keys, 6.03 d.
    bf16 multi-head attention, Q, K, V and O moved once: prefill 2·S·H / (2H + 2H) = S/2 = 2,048 at
    S = 4096; decode 2·S·H / (2H + 2·S·H) = 262,144 / 262,208 ≈ 1 (the scaling book's inference.md:
    prefill attention T/2, generation about 1 FLOP a byte, always memory-bound)."""
    args = [*CROSSOVER, "--model", "llama-2-7b", "--sequence", "4096", "--context", "4096"]
    result = _results(run_cli, *args)
    assert result["crossover_context"] == 24_704
    assert result["crossover_in_model_widths"] == pytest.approx(24_704 / 4096)
    assert result["prefill_intensity"] == 2048
    assert result["decode_intensity"] == pytest.approx(262_144 / 262_208)


def test_gqa_raises_decode_intensity_by_the_group(run_cli) -> None:
    """Llama 3.1 8B, 32 query heads over 8 KV heads, 8,192 cached tokens in bf16:
    2 x 8192 x 32 / (32 x 2 + 8192 x 8 x 2) = 524,288 / 131,136 = 3.998, about H / K = 4. An fp8
    cache halves the K and V bytes: 524,288 / (64 + 65,536) = 7.99."""
    args = [*CROSSOVER, "--model", "llama-3.1-8b", "--context", "8192"]
    assert _results(run_cli, *args)["decode_intensity"] == pytest.approx(524_288 / 131_136)
    assert _results(run_cli, *args, "--kv-dtype", "fp8")["decode_intensity"] == pytest.approx(
        524_288 / 65_600
    )


V5E = ["calc", "matmul", "--flops", "1.97e14", "--bandwidth", "8.2e11", "--m", "1"]


def test_the_batch_where_a_matmul_turns_compute_bound(run_cli) -> None:
    """jax-ml/scaling-book inference.md: a bf16 weight matmul on a TPU v5e (1.97e14 FLOP/s over
    8.2e11 B/s, ridge 240) turns compute-bound at a batch of about 240; int8 weights halve it to 120.
    By hand, exactly: m = R·k·n·w / (2·k·n − R·a·(k + n)); k = n = 8192 in bf16:
    240.24 x 8192² x 2 / (2 x 8192² − 240.24 x 2 x 16,384) = 255.2."""
    ridge = 1.97e14 / 8.2e11
    square = _results(run_cli, *V5E, "--k", "8192", "--n", "8192")["compute_bound_batch"]
    assert square == pytest.approx(ridge * 8192**2 * 2 / (2 * 8192**2 - ridge * 2 * 16_384))
    assert round(square, 1) == 255.2
    wide = _results(run_cli, *V5E, "--k", "1000000", "--n", "1000000")["compute_bound_batch"]
    assert wide == pytest.approx(240, rel=0.002)
    int8 = _results(run_cli, *V5E, "--k", "1000000", "--n", "1000000", "--weight-dtype", "int8")
    assert int8["compute_bound_batch"] == pytest.approx(120, rel=0.002)


def test_a_matmul_that_never_turns_compute_bound_has_no_batch(run_cli) -> None:
    """k = n = 256 in bf16 on an H100 (ridge 989e12 / 3.35e12 = 295 FLOP/B): however many rows, the
    intensity stays under 2·256·256 / (2·(256 + 256)) = 128 FLOP/B, so no batch turns it compute-
    bound. The formula's denominator 2·256² − 295·2·512 = −171,000 once printed a batch of −226."""
    code, out, err = run_cli(
        "calc", "matmul", "--chip", "h100-sxm", "--m", "512", "--k", "256", "--n", "256", "--json"
    )
    assert code == 0, err
    document = json.loads(out)
    assert "compute_bound_batch" not in document["results"]
    assert "compute_bound_batch" in document["omitted"]
    code, out, err = run_cli("calc", "matmul", "--chip", "h100-sxm", "--m", "512", "--k", "256", "--n", "256")
    assert "compute_bound_batch: never compute-bound: however large the batch" in out, out
    assert "division by zero" not in out


def test_the_table_prints_measured_results_beside_the_model(run_cli) -> None:
    """Without --json the table lists the engine's results, then XLA's measurement of this shape
    (12.3 TFLOP/s for 512 x 256 x 256 on an H100); a measurement has no formula to look up."""
    code, out, err = run_cli("calc", "matmul", "--chip", "h100-sxm", "--m", "512", "--k", "256", "--n", "256")
    assert code == 0, err
    assert "measured_flops: 12.3\u00a0TFLOP/s" in out and "measured_time: 5.44\u00a0µs" in out


# A dense 1B-parameter model in bf16 with 100 kB of KV cache a token, on a chip of 1e15 FLOP/s,
# 1e12 B/s and 80 GB: numbers that work out by hand.
TOY = ["--params", "1e9", "--kv-bytes-per-token", "1e5", "--flops", "1e15", "--bandwidth", "1e12"]


def test_requests_a_second_and_the_prefill_decode_ratio(run_cli) -> None:
    """By hand, 10 sequences at 1,000 tokens of context: a decode step reads 2e9 B of weights and
    10 x 1000 x 1e5 = 1e9 B of caches, 3e9 / 1e12 = 3 ms (its 2e10 FLOP take 20 µs). Prefilling the
    10 prompts of 1,000 tokens is 2 x 1e9 x 1e4 = 2e13 FLOP, 20 ms (compute-bound). 101 output
    tokens: 20 ms + 100 x 3 ms = 320 ms a request, so 10 / 0.32 = 31.25 requests a second
    (Little's law). Decode makes 10 / 3 ms = 3,333 tokens/s, 33 requests a second; a prefill
    instance starts 10 / 20 ms = 500: 3,333.3 x 0.020 / (101 x 10) = 0.066 prefill instances each."""
    serve = ["calc", "serve", *TOY, "--memory", "80 GB", "--batch", "10", "--context", "1000"]
    result = _results(run_cli, *serve, "--prompt", "1000", "--output-tokens", "101")
    assert result["tpot"] == pytest.approx(3e-3)
    assert result["ttft"] == pytest.approx(20e-3)
    assert result["queries_per_second"] == pytest.approx(31.25)
    assert result["prefill_decode_ratio"] == pytest.approx((10 / 3e-3) * 0.020 / (101 * 10))


def test_fewest_chips_for_a_tpot_target(run_cli) -> None:
    """The same 3 ms step on one chip: a 1 ms target needs ⌈3 / 1⌉ = 3 chips, 0.4 ms needs
    ⌈7.5⌉ = 8, whatever --chips says; memory (3e9 B of 80 GB) never binds here. With 2.5 GB
    chips the 3e9 B need 2 chips even for a 10 ms target."""
    serve = ["calc", "serve", *TOY, "--batch", "10", "--context", "1000", "--tpot-slo"]
    assert _results(run_cli, *serve, "1 ms", "--memory", "80 GB")["slo_min_chips"] == 3
    assert _results(run_cli, *serve, "0.4 ms", "--memory", "80 GB", "--chips", "4")["slo_min_chips"] == 8
    assert _results(run_cli, *serve, "10 ms", "--memory", "2.5 GB")["slo_min_chips"] == 2


def test_eviction_when_the_context_grows(run_cli) -> None:
    """By hand: 2.5 GB hold 2e9 B of weights and 0.5e9 B of caches; at 1,000 tokens a sequence's
    cache is 1e8 B, so 5 of 10 sequences fit and 5 (5e8 B of cache) must be evicted or swapped.
    At 500 tokens all 10 fit (5e8 B)."""
    decode = ["calc", "decode", *TOY, "--memory", "2.5 GB", "--batch", "10"]
    grown = _results(run_cli, *decode, "--context", "1000")
    assert grown["max_batch"] == 5
    assert grown["evicted_sequences"] == 5
    assert grown["evicted_kv_bytes"] == pytest.approx(5e8)
    assert _results(run_cli, *decode, "--context", "500")["evicted_sequences"] == 0


def test_memory_after_weights_and_each_chips_share(run_cli) -> None:
    """Llama 3.1 70B on 2 H100s, 64 caches of 4,096 tokens (test_calc_scale_topics' figures):
    weights 141,107,412,992 B, one cache 1,342,177,280 B. Free after weights 160e9 − 141.1e9 =
    18,892,587,008 B; each chip holds (141,107,412,992 + 64 x 1,342,177,280) / 2 =
    113,503,379,456 B; 18.9 GB hold 14 caches, so 50 (67,108,864,000 B) are evicted."""
    decode = ["calc", "decode", "--model", "llama-3.1-70b", "--chip", "h100-sxm", "--chips", "2"]
    result = _results(run_cli, *decode, "--batch", "64", "--context", "4096")
    assert result["free_memory"] == 160e9 - 141_107_412_992
    assert result["memory_per_chip"] == (141_107_412_992 + 64 * 1_342_177_280) / 2
    assert result["evicted_sequences"] == 50
    assert result["evicted_kv_bytes"] == 50 * 1_342_177_280


def test_logits_memory_in_fp32(run_cli) -> None:
    """Korthikanti et al. 2022, §4: the cross-entropy keeps the logits in fp32, 4·s·b·v bytes.
    GPT-3 (vocabulary 50,257), one 2,048-token sequence: 4 x 2048 x 50,257 = 411,705,344 B."""
    train = [
        "calc",
        "train",
        "--model",
        "gpt3-175b",
        "--chip",
        "h100-sxm",
        "--batch",
        "1",
        "--sequence",
        "2048",
    ]
    assert _results(run_cli, *train)["logits_memory"] == 411_705_344


def test_a_switch_against_a_ring_bisection(run_cli) -> None:
    """By hand, 8 chips each holding 1 GB in an all-to-all at 450 GB/s a link: injection
    7/8 x 1e9 / 450e9 = 1.944 ms. A non-blocking switch's bisection is 8/2 x 450 = 1,800 GB/s,
    crossing it takes 8 x 1e9 / 4 / 1.8e12 = 1.111 ms, so the links bind; a ring's bisection is
    2 links, 900 GB/s: 2.222 ms, so the cut binds."""
    a2a = ["calc", "bisection", "--bytes", "1 GB", "--participants", "8", "--link-bandwidth", "450 GB/s"]
    switch = _results(run_cli, *a2a, "--bisection-bandwidth", "1800 GB/s")
    assert switch["switch_bisection_bandwidth"] == 1.8e12
    assert switch["time"] == pytest.approx(7 / 8 * 1e9 / 450e9)
    assert switch["limit"] == "each chip's link (injection)"
    ring = _results(run_cli, *a2a, "--bisection-bandwidth", "900 GB/s")
    assert ring["time"] == pytest.approx(2e9 / 900e9)
    assert ring["limit"] == "the bisection"


def test_a_two_level_all_reduce(run_cli) -> None:
    """By hand, 4 nodes of 8 GPUs all-reducing 1 GB, NVLink 450 GB/s, 400 Gb/s (50 GB/s) NICs.
    In the node: a reduce-scatter 7/8 x 1e9 / 450e9 = 1.944 ms, later an all-gather as long.

    One NIC per GPU (8 a node, as on a DGX H100): NCCL's 8 flat rings each carry 1/8 of the buffer,
    2 x 31/32 x 1.25e8 / 50e9 = 4.844 ms; across the nodes each 1/8 shard rides its GPU's own NIC,
    2 x 3/4 x 1.25e8 / 50e9 = 3.75 ms, so two-level takes 7.639 ms: 0.634x, slower than the rings.

    One NIC a node: the flat ring runs at it, 2 x 31/32 x 1e9 / 50e9 = 38.75 ms; the 8 shards share
    it across the nodes, 2 x 3/4 x 1.25e8 / (50e9 / 8) = 30 ms, so two-level takes 33.89 ms: 1.14x."""
    args = ["calc", "two-level", "--bytes", "1 GB", "--nodes", "4", "--node-chips", "8"]
    links = ("--node-bandwidth", "450 GB/s", "--nic-bandwidth", "50 GB/s")
    in_node = 7 / 8 * 1e9 / 450e9
    rails = _results(run_cli, *args, *links, "--node-nics", "8")
    assert rails["intra_node_time"] == pytest.approx(in_node)
    assert rails["flat_ring_time"] == pytest.approx(4.84375e-3)
    assert rails["inter_node_time"] == pytest.approx(3.75e-3)
    assert rails["time"] == pytest.approx(2 * in_node + 3.75e-3)
    assert rails["speedup"] == pytest.approx(4.84375e-3 / (2 * in_node + 3.75e-3))
    assert rails["speedup"] < 1
    single = _results(run_cli, *args, *links, "--node-nics", "1")
    assert single["flat_ring_time"] == pytest.approx(38.75e-3)
    assert single["inter_node_time"] == pytest.approx(30e-3)
    assert single["speedup"] == pytest.approx(38.75e-3 / (2 * in_node + 30e-3))


def test_the_python_api_gives_the_new_topics() -> None:
    """perfdrill.calc builds on the same table: the GPT-2 crossover of 6·d = 4,608 keys."""
    from perfdrill import calc

    result = calc.attention_crossover(d_model=768, heads=12, ffn=3072, mlp="plain").to_dict()
    assert result["results"]["crossover_context"] == {"value": 4608, "unit": "token"}


def test_a_mixture_of_experts_counts_the_experts_a_token_uses(run_cli) -> None:
    """Mixtral 8x7B: attention 2 x 4096 x 128 x (32 + 8) = 41,943,040 and its 2 routed experts
    2 x 3 x 4096 x 14,336 = 352,321,536 weights a layer, over 2 x 32 x 128 = 8,192: 48,128 keys."""
    result = _results(run_cli, *CROSSOVER, "--model", "mixtral-8x7b")
    assert result["crossover_context"] == (41_943_040 + 352_321_536) / 8192 == 48_128


def test_a_latent_attention_model_is_refused_not_miscounted(run_cli) -> None:
    """DeepSeek-V3's MLA caches a 576-element latent a token, not per-head K and V: the per-head
    formulas would give a wrong number, so the command refuses with the reason."""
    code, out, err = run_cli(*CROSSOVER, "--model", "deepseek-v3", "--context", "4096")
    assert code == 2 and out == ""
    assert "given outright (MLA's latent cache)" in err and "Traceback" not in err
