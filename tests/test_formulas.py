"""The engine against the seeds' own numbers, published worked answers and hand derivations."""

import pytest

from perfdrill.engine.model import load_specs
from perfdrill.engine.model.evaluation import evaluate
from perfdrill.engine.model.formula_inputs import hardware, model_inputs


def _decode(chip: str, model: str, batch: int, context: int, dtype: str = "bf16", **extra: float) -> dict:
    book = load_specs()
    inputs = {
        **hardware(book.chip(chip), dtype).inputs(),
        **model_inputs(book.model(model), weight_dtype=dtype, kv_dtype=dtype),
        "batch": batch,
        "context": context,
        **extra,
    }
    return evaluate(
        "decode",
        inputs,
        [
            "runtime",
            "bound",
            "critical_batch",
            "max_batch",
            "optimal_batch",
            "knee_batch",
            "fits",
            "memory_required",
            "optimal_is_knee",
        ],
    )


def test_l4_ridge_point_from_the_workshop_faq() -> None:
    # Seed 000: "Green vertical line (403.33 FLOPs/Byte)" at 121 TFLOP/s and 300 GB/s.
    values = evaluate("roofline", hardware(load_specs().chip("l4"), "bf16").inputs(), ["ridge_point"])
    assert values["ridge_point"] == pytest.approx(403.33, abs=0.01)


def test_h100_sxm_bf16_ridge_point_is_about_295() -> None:
    values = evaluate("roofline", hardware(load_specs().chip("h100-sxm"), "bf16").inputs(), ["ridge_point"])
    assert values["ridge_point"] == pytest.approx(295, rel=0.005)  # 989e12 / 3.35e12 = 295.2


def test_a100_brrr_example_about_fifty_operations_per_number() -> None:
    # Seed 003: 1.5 TB/s moves ~400 billion fp32 numbers a second against 19.5 TFLOP/s, so roughly
    # 50 operations per loaded number are needed before compute dominates (19.5e12 / (1.5e12 / 4) = 52).
    values = evaluate(
        "elementwise",
        {
            "peak_flops": 19.5e12,
            "memory_bandwidth": 1.5e12,
            "chips": 1,
            "mfu": 1,
            "mbu": 1,
            "inputs": 1,
            "outputs": 0,
            "activation_bytes": 4,
        },
        ["break_even_ops"],
    )
    assert values["break_even_ops"] == pytest.approx(52)


def test_cos_cos_unfused_moves_twice_the_bytes() -> None:
    # Seed 003: x1 = x.cos(); x2 = x1.cos() does 4 global reads/writes; x.cos().cos() fused does 2.
    base = {
        "peak_flops": 19.5e12,
        "memory_bandwidth": 1.5e12,
        "chips": 1,
        "mfu": 1,
        "mbu": 1,
        "elements": 1e6,
        "ops_per_element": 2,
        "inputs": 1,
        "outputs": 1,
        "activation_bytes": 4,
        "kernels": 2,
    }
    values = evaluate("elementwise", base, ["bytes", "unfused_bytes"])
    assert values["bytes"] == 2 * 1e6 * 4
    assert values["unfused_bytes"] == 4 * 1e6 * 4


def test_study_guide_7b_kv_cache_is_half_a_megabyte_per_token() -> None:
    # Seed 002: 2 x 32 x 32 x 128 x 2 (BF16) = 0.5 MB per token for a 7B model.
    inputs = model_inputs(load_specs().model("llama-2-7b"), weight_dtype="bf16", kv_dtype="bf16")
    assert evaluate("model", inputs, ["kv_bytes_per_token"])["kv_bytes_per_token"] == 2 * 32 * 32 * 128 * 2


def test_llama_3_1_8b_kv_cache_bytes_per_token() -> None:
    inputs = model_inputs(load_specs().model("llama-3.1-8b"), weight_dtype="bf16", kv_dtype="bf16")
    assert evaluate("model", inputs, ["kv_bytes_per_token"])["kv_bytes_per_token"] == 131_072


def test_tpu_v5e_critical_batch_is_about_240() -> None:
    # Scaling book: 1.97e14 / 8.2e11 = 240 for bf16 weights on a TPU v5e.
    assert _decode("tpu-v5e", "llama-2-7b", 1, 1)["critical_batch"] == pytest.approx(240, rel=0.005)


def test_int8_weights_halve_the_critical_batch_at_the_same_ridge() -> None:
    book = load_specs()
    inputs = {
        **hardware(book.chip("h100-sxm"), "bf16").inputs(),
        **model_inputs(book.model("llama-3.1-8b"), weight_dtype="int8", kv_dtype="bf16"),
        "batch": 1,
        "context": 1,
    }
    assert evaluate("decode", inputs, ["critical_batch"])["critical_batch"] == pytest.approx(989 / 3.35 / 2)


def test_moe_critical_batch_scales_by_experts_over_active() -> None:
    # Mixtral routes 2 of 8 experts: B_crit = ridge x 2 bytes / 2 x 8/2.
    assert _decode("h100-sxm", "mixtral-8x7b", 1, 1)["critical_batch"] == pytest.approx(989 / 3.35 * 4)


def test_llama_2_7b_decode_batch_one_is_weight_read_time() -> None:
    # Hand derivation: 6,738,415,616 params x 2 B = 13.477 GB; A100 80GB reads 2.039 TB/s -> 6.610 ms.
    # The 0.5 MiB x 128 tokens of KV adds 67.1 MB -> 33 us.
    values = _decode("a100-80gb", "llama-2-7b", 1, 128)
    assert values["runtime"] == pytest.approx((6_738_415_616 * 2 + 128 * 524_288) / 2.039e12)
    assert values["bound"] == 0  # memory


def test_optimal_batch_is_the_compute_bound_knee_when_it_fits() -> None:
    # Llama 3.1 8B on H100, 128-token contexts. Hand derivation of compute_time >= memory_time:
    #   B x 2 x 8,030,261,248 / 989e12 >= (16,060,522,496 + B x 128 x 131,072) / 3.35e12
    #   B x (1.62392e-5 - 5.00812e-6) >= 4.79419e-3  ->  B >= 426.9  ->  427
    # (above the critical batch of 295, because each sequence also brings KV reads).
    values = _decode("h100-sxm", "llama-3.1-8b", 1, 128)
    assert values["optimal_is_knee"] == 1
    assert values["optimal_batch"] == 427
    before = _decode("h100-sxm", "llama-3.1-8b", int(values["optimal_batch"]) - 1, 128)
    at = _decode("h100-sxm", "llama-3.1-8b", int(values["optimal_batch"]), 128)
    assert before["bound"] == 0 and at["bound"] == 1


def test_optimal_batch_falls_back_to_the_largest_that_fits() -> None:
    # At 32k context the KV reads dominate and memory runs out long before the knee.
    values = _decode("h100-sxm", "llama-3.1-8b", 1, 32_768)
    assert values["optimal_is_knee"] == 0
    assert values["optimal_batch"] == values["max_batch"]
    # Hand: (80e9 - 8,030,261,248 x 2) / (32,768 x 131,072) = 14.88 -> 14
    assert values["max_batch"] == 14


def test_training_flops_and_memory() -> None:
    # 6 x N x D; mixed-precision Adam keeps 16 bytes per parameter
    # (seed 002: a 7B model needs 112 GB before activations).
    inputs = {
        "params": 7e9,
        "active_params": 7e9,  # dense: every parameter is used by every token
        "tokens": 1e12,
        "peak_flops": 989e12,
        "chips": 8,
        "mfu": 0.5,
        "mbu": 1,
        "training_bytes_per_param": 16,
        "memory_capacity": 80e9,
    }
    values = evaluate("train", inputs, ["flops", "time", "memory_required", "min_chips"])
    assert values["flops"] == 6 * 7e9 * 1e12
    assert values["time"] == pytest.approx(4.2e22 / (8 * 989e12 * 0.5))
    assert values["memory_required"] == 112e9
    assert values["min_chips"] == 2


def test_ring_collectives() -> None:
    # 1 GB over 8 GPUs at 450 GB/s one-way: all-gather 1e9 x 7 / (8 x 450e9) = 1.944 ms;
    # all-reduce is twice that.
    values = evaluate(
        "collective",
        {"collective_bytes": 1e9, "participants": 8, "link_bandwidth": 450e9},
        ["ring_pass_time", "all_reduce_time"],
    )
    assert values["ring_pass_time"] == pytest.approx(1.9444e-3, rel=1e-4)
    assert values["all_reduce_time"] == pytest.approx(3.8889e-3, rel=1e-4)


def test_matmul_counts_two_flops_per_multiply_add() -> None:
    inputs = {
        "m": 4096,
        "k": 4096,
        "n": 4096,
        "activation_bytes": 2,
        "weight_bytes_per_param": 2,
        "peak_flops": 989e12,
        "memory_bandwidth": 3.35e12,
        "chips": 1,
        "mfu": 1,
        "mbu": 1,
    }
    values = evaluate("matmul", inputs, ["flops", "bytes", "arithmetic_intensity", "bound"])
    assert values["flops"] == 2 * 4096**3
    assert values["bytes"] == 3 * 4096 * 4096 * 2
    assert values["arithmetic_intensity"] == pytest.approx(4096 / 3)  # 1365 > 295: compute-bound
    assert values["bound"] == 1
