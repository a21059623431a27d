"""Attention in decode, quantization beyond weights and MoE serving (issue 13, topics 5-7), against
published figures and hand derivations written out here. The engine only ever computes the value
under test; every expected number is a source's or worked by hand from the spec figures:
H100 SXM 989 TFLOP/s bf16, 1,979 TOPS int8, 3.35 TB/s, 80 GB, NVLink 450 GB/s one way; B200
9,000 TFLOP/s FP4 (18,000 with 2:4 sparsity), 4,500 fp8, 8 TB/s; TPU v4 275 TFLOP/s bf16 and
275 TOPS int8 at 1,200 GB/s; MI300X peers joined by one 64 GB/s link each.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from perfdrill.engine.model import load_specs
from perfdrill.engine.model.evaluation import evaluate
from perfdrill.engine.model.formula_inputs import hardware, model_inputs
from perfdrill.engine.problems.bank import load_bank, load_folders
from perfdrill.engine.problems.generation import generate
from tests.helpers import write_template

SPECS = load_specs()
BANK = load_bank()


def _chip(chip: str, dtype: str = "bf16", chips: int = 1) -> dict[str, float]:
    return hardware(SPECS.chip(chip), dtype, chips=chips).inputs()


def _model(model: str, weights: str = "bf16", kv: str = "bf16") -> dict[str, float]:
    return model_inputs(SPECS.model(model), weight_dtype=weights, kv_dtype=kv)


def _eval(workload: str, inputs: dict[str, Any], *wanted: str) -> dict[str, Any]:
    return evaluate(workload, inputs, list(wanted))


# -- attention in decode -----------------------------------------------------------------------------


@pytest.mark.parametrize("batch", [1, 512])
def test_mha_decode_attention_is_one_flop_per_byte_at_any_batch(batch: int) -> None:
    # jax-ml/scaling-book inference.md: in generation "S ≫ T = 1 ⟹ ST/(S+T) ≈ 1" for multi-head
    # attention in bf16, "so we're basically always memory bandwidth-bound during attention".
    # Llama 2 7B is MHA (32 query and 32 KV heads): 4·32·32·128·S FLOPs over 2·32·32·128·2·S bytes.
    values = _eval(
        "attention_decode",
        {**_chip("h100-sxm"), **_model("llama-2-7b"), "batch": batch, "context": 4096},
        "attention_arithmetic_intensity",
        "attention_bound",
    )
    assert values["attention_arithmetic_intensity"] == pytest.approx(1.0, rel=1e-12)
    assert values["attention_bound"] == 0


@pytest.mark.parametrize(("kv", "intensity"), [("bf16", 4.0), ("fp8", 8.0)])
def test_gqa_raises_decode_attention_intensity_by_the_group(kv: str, intensity: float) -> None:
    # jax-ml/scaling-book transformers.md, Question 4: in generation the intensity is
    # SG/(G + S) → G for bf16. Llama 3.1 8B groups 32 query heads over 8 KV heads: G = 4, and a
    # 1-byte fp8 cache doubles it to 8.
    values = _eval(
        "attention_decode",
        {**_chip("h100-sxm"), **_model("llama-3.1-8b", kv=kv), "batch": 64, "context": 8192},
        "attention_arithmetic_intensity",
        "kv_group_size",
    )
    assert values["kv_group_size"] == 4
    assert values["attention_arithmetic_intensity"] == pytest.approx(intensity, rel=1e-12)


def test_attention_flops_equal_the_weight_flops_at_eight_times_d_model() -> None:
    # jax-ml/scaling-book transformers.md: "dot-product attention FLOPs only become dominant ...
    # once T>8D. For D ~ 8k, this would be ~64K tokens." Their layer has F = 4D with a gated MLP
    # (3·D·F = 12·D² weights) and N·H = D (4·D² attention weights): 16·D² parameters, so a token
    # costs 2·16·D² FLOPs per layer in weights against 4·D·T in attention: equal at T = 8·D.
    d_model, layers = 8192, 80
    inputs = {
        "active_params": layers * 16 * d_model**2,
        "layers": layers,
        "heads": 64,
        "head_dim": 128,  # 64 · 128 = D
        "context": 8 * d_model,
    }
    values = _eval("attention_decode", inputs, "attention_crossover_context", "attention_flop_share")
    assert values["attention_crossover_context"] == pytest.approx(65_536, rel=1e-12)
    assert values["attention_flop_share"] == pytest.approx(0.5, rel=1e-12)


def test_attention_share_of_a_memory_bound_decode_step_by_hand() -> None:
    # Llama 2 7B (6.74B given) on one H100 SXM, batch 8, 2,048 cached bf16 tokens each.
    # KV per token 2·32·32·128·2 = 524,288 B; the batch's caches 8·2,048·524,288 = 8.59 GB take
    # 2.564 ms at 3.35 TB/s (their 8·4·32·32·128·2,048 = 8.6 GFLOP take 8.7 µs). The weights,
    # 2·6.74e9 = 13.48 GB, take 4.024 ms (8·2·6.74e9 FLOP take 0.109 ms). One after another the
    # step is 6.588 ms and attention 38.9% of it.
    cache_time = 8 * 2048 * (2 * 32 * 32 * 128 * 2) / 3.35e12
    weights_time = 2 * 6.74e9 / 3.35e12
    values = _eval(
        "attention_decode",
        {**_chip("h100-sxm"), **_model("llama-2-7b"), "params": 6.74e9, "active_params": 6.74e9}
        | {"batch": 8, "context": 2048},
        "attention_runtime",
        "runtime",
        "attention_time_share",
        "decode_ops_bound",
    )
    assert values["attention_runtime"] == pytest.approx(cache_time, rel=1e-9)
    assert values["runtime"] == pytest.approx(cache_time + weights_time, rel=1e-9)
    assert values["attention_time_share"] == pytest.approx(0.3892, abs=5e-4)
    assert values["decode_ops_bound"] == 0  # neither: both memory-bound


def test_a_large_batch_makes_the_weight_matmuls_compute_bound_but_never_attention() -> None:
    # Batch 1,024 of 128 tokens on 8 H100s: the weights' intensity is 2·1,024/2 = 1,024 FLOP/B,
    # past the 295 FLOP/B ridge; attention's stays at 4 (GQA group 4, bf16).
    values = _eval(
        "attention_decode",
        {**_chip("h100-sxm", chips=8), **_model("llama-3.1-8b"), "batch": 1024, "context": 128},
        "decode_ops_bound",
    )
    assert values["decode_ops_bound"] == 1  # only the weight matmuls


# -- FlashAttention's HBM traffic (Dao et al. 2022) --------------------------------------------------


def _flash(batch: int, heads: int, sequence: int, head_dim: int, sram_bytes: float) -> dict[str, Any]:
    inputs = {
        "batch": batch,
        "heads": heads,
        "kv_heads": heads,
        "sequence": sequence,
        "head_dim": head_dim,
        "activation_bytes": 2,
        "sram_bytes": sram_bytes,
    }
    wanted = (
        "standard_attention_hbm_bytes",
        "flash_block_rows",
        "flash_outer_passes",
        "flash_attention_hbm_bytes",
        "flash_io_ratio",
        "fewer_hbm_bytes",
    )
    return _eval("flash_attention", inputs, *wanted)


def test_gpt2_medium_attention_traffic_by_algorithm_0_and_1() -> None:
    # Dao et al. 2022, Figure 2's set-up (GPT-2 medium: N = 1,024, d = 64, 16 heads, batch 64),
    # forward only, fp16, with the paper's M ≈ 100 KB of SRAM (50,000 elements).
    # Algorithm 0 per head: 4·N·d + 4·N² = 262,144 + 4,194,304 = 4,456,448 elements;
    #   × 2 bytes × 64·16 heads = 9,126,805,504 bytes.
    # Algorithm 1: B_c = ⌈50,000 / 256⌉ = 196 rows, T_c = ⌈1,024 / 196⌉ = 6 passes;
    #   per head N·d·(2 + 3·6) = 1,310,720 elements; × 2 × 1,024 = 2,684,354,560 bytes.
    values = _flash(64, 16, 1024, 64, 100_000)
    assert values["standard_attention_hbm_bytes"] == 9_126_805_504
    assert values["flash_block_rows"] == 196
    assert values["flash_outer_passes"] == 6
    assert values["flash_attention_hbm_bytes"] == 2_684_354_560
    assert values["flash_io_ratio"] == pytest.approx(3.4, rel=1e-12)
    assert values["fewer_hbm_bytes"] == 1  # FlashAttention


def test_flash_traffic_grows_as_n_squared_d_squared_over_m() -> None:
    # Dao et al. 2022, Theorem 2: Θ(N²·d²/M). With d = 128 and M = 128 KiB = 65,536 elements,
    # B_c = 65,536 / 512 = 128 rows exactly. N = 4,096: T_c = 32, N·d·(2 + 96) per head;
    # N = 8,192: T_c = 64, 2·N·d·(2 + 192): the ratio is 2·194/98 = 3.959, about 4 (N²).
    # Half the SRAM: B_c = 64, T_c = 64 at N = 4,096: (2 + 192)/(2 + 96) = 1.980, about 2 (1/M).
    base = _flash(1, 1, 4096, 128, 131_072)["flash_attention_hbm_bytes"]
    longer = _flash(1, 1, 8192, 128, 131_072)["flash_attention_hbm_bytes"]
    smaller_sram = _flash(1, 1, 4096, 128, 65_536)["flash_attention_hbm_bytes"]
    assert longer / base == pytest.approx(2 * 194 / 98, rel=1e-12)
    assert smaller_sram / base == pytest.approx(194 / 98, rel=1e-12)


def test_standard_attention_moves_less_when_d_squared_is_not_small_against_m() -> None:
    # d = 256 with 64 KiB (32,768 elements): B_c = 32 rows, T_c = 4,096/32 = 128 passes, so
    # FlashAttention moves 4,096·256·(2 + 384) = 404,750,336 elements per head while standard
    # attention moves 4·4,096·256 + 4·4,096² = 71,303,168: the theorem's d² ≪ M does not hold.
    values = _flash(1, 1, 4096, 256, 65_536)
    assert values["flash_attention_hbm_bytes"] == 404_750_336 * 2
    assert values["standard_attention_hbm_bytes"] == 71_303_168 * 2
    assert values["fewer_hbm_bytes"] == 0  # standard attention


# -- quantization beyond weights --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bits", "scale_bits", "group", "per_value"),
    [
        (4, 16, 128, 4.125),  # issue 13: 4-bit weights, one fp16 scale per 128 → 4 + 16/128
        # docs.rs float4 MXFP4Block (OCP MX): "17 bytes for 32 values" → 17·8/32 = 4.25 bits
        (4, 8, 32, 17 * 8 / 32),
        # zeroentropy.dev/concepts/nvfp4: "72 bits per block ... 72 / 16 = 4.50" (E4M3 scale per 16)
        (4, 8, 16, 72 / 16),
        (3, 32, 64, 3.5),  # 3-bit with an fp16 scale and an fp16 zero point per 64: 3 + 32/64
    ],
)
def test_bits_per_value_with_group_scales(bits: int, scale_bits: int, group: int, per_value: float) -> None:
    values = _eval(
        "quantization",
        {"quant_bits": bits, "scale_bits": scale_bits, "group_size": group},
        "quantized_bits_per_value",
        "quantized_bytes_per_param",
    )
    assert values["quantized_bits_per_value"] == pytest.approx(per_value, rel=1e-12)
    assert values["quantized_bytes_per_param"] == pytest.approx(per_value / 8, rel=1e-12)


def test_scale_bytes_of_a_7b_model_at_group_128() -> None:
    # 7e9 weights / 128 per group = 54,687,500 fp16 scales = 109,375,000 bytes.
    values = _eval("quantization", {"params": 7e9, "scale_bits": 16, "group_size": 128}, "scale_bytes")
    assert values["scale_bytes"] == pytest.approx(109_375_000, rel=1e-12)


def _critical(chip: str, dtype: str, weight_bytes: float) -> float:
    inputs = {**_chip(chip, dtype), "weight_bytes_per_param": weight_bytes, "experts": 1}
    return float(_eval("quantization", inputs | {"experts_per_token": 1}, "critical_batch")["critical_batch"])


def test_w8a8_keeps_the_critical_batch_that_weight_only_int8_halves() -> None:
    # H100 SXM: bf16 ridge 989/3.35 = 295.2 FLOP/B → critical batch 295.2·2/2 = 295.2.
    # Weight-only int8 (bf16 math): 295.2·1/2 = 147.6. W8A8 (int8 math, 1,979 TOPS):
    # ridge 590.7 → 590.7·1/2 = 295.4: the peak moves with the bytes.
    assert _critical("h100-sxm", "bf16", 2) == pytest.approx(989 / 3.35, rel=1e-9)
    assert _critical("h100-sxm", "bf16", 1) == pytest.approx(989 / 3.35 / 2, rel=1e-9)
    assert _critical("h100-sxm", "int8", 1) == pytest.approx(1979 / 3.35 / 2, rel=1e-9)
    # TPU v4 runs int8 at its bf16 rate (275 TOPS): W8A8 halves the critical batch like weight-only.
    assert _critical("tpu-v4", "int8", 1) == pytest.approx(275 / 1.2 / 2, rel=1e-9)
    assert _critical("tpu-v4", "int8", 1) == _critical("tpu-v4", "bf16", 1)


def test_b200_fp4_peak_and_its_critical_batch() -> None:
    # jax-ml/scaling-book gpus.md: B200 FP4 9.0e15 FLOP/s dense (18 PFLOPS with sparsity on
    # NVIDIA's HGX table). NVFP4 weights take 4.5 bits = 0.5625 B: ridge 9,000/8 = 1,125 FLOP/B,
    # critical batch 1,125·0.5625/2 = 316.4; fp8 (4,500 TFLOP/s, 1 B): 562.5/2 = 281.25.
    b200 = SPECS.chip("b200")
    assert b200.flops("fp4") == 9.0e15
    assert b200.sparse_peak_flops["fp4"] == 1.8e16
    assert _critical("b200", "fp4", 0.5625) == pytest.approx(316.40625, rel=1e-12)
    assert _critical("b200", "fp8", 1) == pytest.approx(281.25, rel=1e-12)


def test_a_group_quantized_kv_cache_makes_room_for_a_larger_batch() -> None:
    # Llama 3.1 8B (8.03e9 given) in bf16 on one H100 SXM (80 GB), 8,192 tokens per sequence.
    # Free: 80e9 − 16.06e9 = 63.94e9 B. bf16 KV per token 2·32·8·128·2 = 131,072 B, per sequence
    # 1,073,741,824 B: ⌊59.55⌋ = 59. int4 with an fp16 scale per 64: 4.25 bits = 0.53125 B per
    # element, 34,816 B per token, 285,212,672 B per sequence: ⌊224.18⌋ = 224.
    base = {**_chip("h100-sxm"), **_model("llama-3.1-8b"), "params": 8.03e9, "context": 8192}
    quantized = _eval(
        "quantization",
        base | {"quant_bits": 4, "scale_bits": 16, "group_size": 64},
        "quantized_kv_bytes_per_element",
    )["quantized_kv_bytes_per_element"]
    assert quantized == 0.53125
    assert _eval("quantization", base, "max_batch")["max_batch"] == 59
    assert _eval("quantization", base | {"kv_bytes_per_element": quantized}, "max_batch")["max_batch"] == 224


# -- MoE serving -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("experts", "top_k", "batch", "touched"),
    [
        (8, 2, 1, 2.0),  # one token: exactly its k experts
        (8, 2, 2, 3.5),  # 8·(1 − 0.75²): the second token repeats one of the first's with odds 1/4 each
        (8, 2, 4, 5.46875),  # 8·(1 − 0.75⁴) = 8·0.68359375
        (256, 8, 32, 256 * (1 - (31 / 32) ** 32)),  # DeepSeek-V3 routing: 163.3 of 256, not 32·8
    ],
)
def test_experts_touched_per_layer(experts: int, top_k: int, batch: int, touched: float) -> None:
    inputs = {"experts": experts, "experts_per_token": top_k, "batch": batch}
    assert _eval("decode_moe", inputs, "experts_touched")["experts_touched"] == pytest.approx(touched)


def test_deepseek_v3_at_batch_one_reads_its_active_weights_not_all_671b() -> None:
    # deepseek-ai/DeepSeek-V3 README: 671B parameters, 37B activated per token. At batch 1 an
    # fp8 decode step reads about 37 GB of weights; reading every expert (the old model) reads
    # 671 GB, about 18 times too much.
    inputs = {**_chip("h200", chips=8), **_model("deepseek-v3", weights="fp8"), "batch": 1, "context": 1024}
    moe = _eval("decode_moe", inputs, "weights_read_bytes", "runtime", "weight_bytes")
    everything = _eval("decode", dict(inputs), "runtime")
    assert moe["weights_read_bytes"] == pytest.approx(37e9, rel=0.02)
    assert moe["weight_bytes"] == pytest.approx(671e9, rel=0.01)
    assert everything["runtime"] / moe["runtime"] == pytest.approx(671 / 37, rel=0.03)


@pytest.mark.parametrize("batch", [1, 7, 64])
def test_a_dense_model_reads_exactly_as_before(batch: int) -> None:
    inputs = {**_chip("h100-sxm"), **_model("llama-3.1-8b"), "batch": batch, "context": 2048}
    for name in ("bytes", "runtime"):
        assert _eval("decode_moe", dict(inputs), name)[name] == _eval("decode", dict(inputs), name)[name]


def test_expert_parallel_all_to_all_by_hand() -> None:
    # DeepSeek-V3's width (d_model 7,168, top-8, 58 MoE layers) with 4,096 tokens per H100 and
    # EP = 8 over NVSwitch (450 GB/s one way): 4,096·8·7,168·2 B·7/8 = 411,041,792 B leave each GPU
    # per direction per layer: 913.4 µs; dispatch and combine over 58 layers: 105.96 ms.
    inputs = {**_chip("h100-sxm"), **_model("deepseek-v3"), "participants": 8, "activation_bytes": 2}
    inputs |= {"batch": 4096, "sequence": 1}
    values = _eval("expert_parallel", inputs, "all_to_all_bytes", "all_to_all_time", "moe_all_to_all_time")
    assert values["all_to_all_bytes"] == 411_041_792
    assert values["all_to_all_time"] == pytest.approx(411_041_792 / 450e9, rel=1e-12)
    assert values["moe_all_to_all_time"] == pytest.approx(2 * 58 * 411_041_792 / 450e9, rel=1e-12)


def test_an_mi300x_all_to_all_drives_only_the_links_to_its_group() -> None:
    # EP = 4 on MI300X: each GPU reaches the other 3 over one 64 GB/s link each, 192 GB/s in all
    # (not the node's 448 GB/s).
    inputs = {**_chip("mi300x"), **_model("mixtral-8x7b"), "participants": 4, "activation_bytes": 2}
    inputs |= {"batch": 1024, "sequence": 1}
    values = _eval("expert_parallel", inputs, "group_link_bandwidth", "all_to_all_time", "all_to_all_bytes")
    assert values["group_link_bandwidth"] == 192e9
    # 1,024 tokens · 2 experts · 4,096 · 2 B · 3/4 = 12,582,912 B
    assert values["all_to_all_bytes"] == 12_582_912
    assert values["all_to_all_time"] == pytest.approx(12_582_912 / 192e9, rel=1e-12)


@pytest.mark.parametrize(
    ("tokens", "slowdown", "advice"),
    [
        # 4,096 tokens · top-2 = 8,192 assignments per GPU; one expert (3·4,096·14,336 =
        # 176,160,768 weights) per GPU: 2·8,192·176,160,768 / 989e12 = 2.918 ms of math, against
        # 352 MB / 3.35 TB/s = 105.2 µs of reads. The busiest GPU gets 25% = 2× the even 12.5%.
        (4096, 2.0, 1),
        # 16 tokens: 32 assignments, 11.4 µs even, 22.8 µs busiest: both under the 105.2 µs of reads.
        (16, 1.0, 0),
    ],
)
def test_load_imbalance_costs_only_a_compute_bound_layer(tokens: int, slowdown: float, advice: int) -> None:
    inputs = {**_chip("h100-sxm"), **_model("mixtral-8x7b"), "participants": 8, "busiest_share": 0.25}
    inputs |= {"batch": tokens, "sequence": 1}
    values = _eval(
        "expert_parallel",
        inputs,
        "local_expert_read_time",
        "expert_compute_time",
        "imbalance_slowdown",
        "imbalance_next_step",
    )
    assert values["local_expert_read_time"] == pytest.approx(2 * 176_160_768 / 3.35e12, rel=1e-12)
    assert values["expert_compute_time"] == pytest.approx(2 * tokens * 2 * 176_160_768 / 989e12, rel=1e-12)
    assert values["imbalance_slowdown"] == pytest.approx(slowdown, rel=1e-12)
    assert values["imbalance_next_step"] == advice


# -- the named slips are offered only where they can happen ------------------------------------------

EXPERTS = """
id: moe/touched
title: Touched
family: moe
difficulty: easy
workload: decode_moe
parameters:
  chip: {chip: {ids: [h200]}}
  model: {model: {ids: [mixtral-8x7b]}}
  batch: {choice: [BATCH]}
scenario: {chip: chip, model: model, chips: 8}
inputs: {batch: batch, context: 1024}
parts:
  - name: read
    kind: numeric
    prompt: Bytes?
    answer: weights_read_bytes
    unit: GB
    mistakes: [all-experts-read, active-weights-only, unit-slip-high]
"""


def test_reading_the_active_weights_is_a_slip_only_past_batch_one(tmp_path: Path) -> None:
    # Mixtral: 46.7B in all, 12.9B active. Batch 1 reads exactly the active weights (25.76 GB in
    # bf16); batch 2 touches 8·(1 − 0.75²) = 3.5 experts per layer, not 2.
    slips = {}
    for batch in (1, 2):
        folder = write_template(tmp_path / str(batch), "moe/touched", EXPERTS.replace("BATCH", str(batch)))
        (template,) = load_folders([folder], tmp_path / str(batch))
        problem = generate(template, 0, SPECS)
        slips[batch] = dict(problem.part("read").mistakes)
        if batch == 1:
            assert problem.part("read").value == pytest.approx(2 * 12_879_925_248 / 1e9, rel=1e-3)
    assert "active-weights-only" not in slips[1]
    assert slips[2]["active-weights-only"] == pytest.approx(2 * 12_879_925_248 / 1e9, rel=1e-3)
    assert slips[1]["all-experts-read"] == pytest.approx(2 * 46_702_792_704 / 1e9, rel=1e-3)


def test_the_16_bit_peak_slip_needs_a_faster_low_precision_path() -> None:
    # W8A8 on a TPU v4 runs at the bf16 rate, so keeping the bf16 peak changes nothing there.
    template = BANK.get("quantization/w8a8-compute")
    seen = {True: 0, False: 0}
    for seed in range(200):
        problem = generate(template, seed, SPECS)
        same_peak = problem.chips[0].id == "tpu-v4"
        offered = "low-precision-peak-ignored" in dict(problem.part("w8a8_critical").mistakes)
        assert offered != same_peak, (seed, problem.chips[0].id)
        seen[same_peak] += 1
    assert seen[True] and seen[False]


def test_mxfp4_and_nvfp4_prompts_state_their_block_scales() -> None:
    template = BANK.get("quantization/fp4-blackwell")
    formats = set()
    for seed in range(40):
        problem = generate(template, seed, SPECS)
        bits = problem.part("bits").value
        if "NVFP4" in problem.prompt:
            assert "block of 16 values shares one 8-bit FP8 (E4M3) scale" in problem.prompt and bits == 4.5
        else:
            assert "block of 32 values shares one 8-bit E8M0 scale" in problem.prompt and bits == 4.25
        formats.add(bits)
    assert formats == {4.25, 4.5}


# -- perfdrill calc ----------------------------------------------------------------------------------


def _calc(run_cli, *args: str) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    code, out, err = run_cli("calc", *args, "--json")
    assert code == 0, err
    return {name: result["value"] for name, result in json.loads(out)["results"].items()}


def test_calc_attention_in_a_decode_step(run_cli) -> None:  # type: ignore[no-untyped-def]
    # As test_attention_share_of_a_memory_bound_decode_step_by_hand: the caches take
    # 8·2,048·524,288 B / 3.35 TB/s = 2.564 ms at 1 FLOP/B, far below the 295 FLOP/B ridge.
    args = ["--chip", "h100-sxm", "--model", "llama-2-7b", "--batch", "8", "--context", "2048"]
    results = _calc(run_cli, "attention", *args)
    assert results["arithmetic_intensity"] == pytest.approx(1.0, rel=1e-12)
    assert results["time"] == pytest.approx(8 * 2048 * 524_288 / 3.35e12, rel=1e-12)
    assert results["compute_bound"] == "neither: both memory-bound"
    code, _, err = run_cli("calc", "attention", *args[:-1], "0")
    assert code == 2 and "--context" in err


def test_calc_flash_attention_for_gpt2_medium(run_cli) -> None:  # type: ignore[no-untyped-def]
    # The hand counts of test_gpt2_medium_attention_traffic_by_algorithm_0_and_1, from flags.
    args = ["--heads", "16", "--head-dim", "64", "--batch", "64", "--sequence", "1024"]
    results = _calc(run_cli, "flash-attention", *args, "--sram", "100 kB", "--dtype", "fp16")
    assert results["standard_bytes"] == 9_126_805_504
    assert results["flash_bytes"] == 2_684_354_560
    assert (results["block_rows"], results["passes"]) == (196, 6)
    # The score matrix alone: 64·16·1,024²·2 = 2,147,483,648 bytes.
    assert results["score_matrix_bytes"] == 2_147_483_648


def test_calc_quantize_and_moe(run_cli) -> None:  # type: ignore[no-untyped-def]
    quantized = _calc(run_cli, "quantize", "--params", "7e9", "--bits", "4", "--group-size", "128")
    assert quantized["bits_per_weight"] == 4.125
    assert quantized["scale_bytes"] == 109_375_000  # 7e9/128 fp16 scales
    assert quantized["weight_bytes"] == 7e9 * 4.125 / 8
    moe = _calc(
        run_cli, "moe", "--chip", "h100-sxm", "--model", "deepseek-v3", "--tokens", "4096", "--ep", "8"
    )
    assert moe["all_to_all_bytes"] == 411_041_792  # as test_expert_parallel_all_to_all_by_hand


def test_calc_decode_reads_only_the_expected_experts(run_cli) -> None:  # type: ignore[no-untyped-def]
    deepseek = ["decode", "--chip", "h200", "--chips", "8", "--model", "deepseek-v3", "--weight-dtype", "fp8"]
    deepseek += ["--batch", "1", "--context", "1024"]
    every_expert = _calc(run_cli, *deepseek)
    expected = _calc(run_cli, *deepseek, "--expected-experts")
    # DeepSeek-V3 README: 671B parameters, 37B activated per token; the cache adds 72 MB
    # (61 layers · 576 elements · 2 bytes · 1,024 tokens = 71,958,528 B).
    assert every_expert["bytes"] == pytest.approx(671e9 + 71_958_528, rel=0.01)
    assert expected["bytes"] == pytest.approx(37e9 + 71_958_528, rel=0.02)
    dense = ["decode", "--chip", "h100-sxm", "--model", "llama-3.1-8b", "--batch", "64", "--context", "512"]
    assert _calc(run_cli, *dense, "--expected-experts") == _calc(run_cli, *dense)
    code, out, err = run_cli("calc", *dense, "--expected-experts", "--per-op", "--json")
    assert code == 0, err  # issue 22: unused, and said so, rather than refused
    assert "unused: --expected-experts (no result of `calc decode` reads it)" in json.loads(out)["notes"]
