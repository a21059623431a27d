"""evaluate_available: each quantity computed when its own inputs are known, the rest reported.

Every expected value is worked by hand in the test from the numbers it gives.
"""

import pytest

from perfdrill.engine import SpecError, UsageError
from perfdrill.engine.model import dependencies, evaluate, evaluate_available, load_specs, model_inputs

# One H100-like chip and a 7B dense model given only by its size: no memory, no architecture.
HARDWARE = {"peak_flops": 989e12, "memory_bandwidth": 3.35e12, "chips": 1, "mfu": 1, "mbu": 1}
SIZE_ONLY = {
    **HARDWARE,
    "params": 7e9,
    "active_params": 7e9,
    "weight_bytes_per_param": 2,
    "kv_bytes_per_token": 131072,
    "experts": 1,
    "experts_per_token": 1,
    "batch": 8,
    "context": 1000,
}


def test_a_missing_memory_size_leaves_out_only_what_needs_it() -> None:
    available = evaluate_available("decode", SIZE_ONLY, ["runtime", "fits", "max_batch"])
    # bytes = 14e9 weights + 8 · 1000 · 131,072 KV = 15,048,576,000; at 3.35 TB/s that is 4.492 ms;
    # flops = 2 · 7e9 · 8 = 112 GFLOP, 0.113 ms at 989 TFLOP/s, so the memory time is the runtime.
    assert available.values["runtime"] == pytest.approx(15_048_576_000 / 3.35e12)
    assert available.lacking == {"fits": ("memory_capacity",), "max_batch": ("memory_capacity",)}
    assert available.undefined == {}


def test_lacking_names_every_missing_input_of_a_quantity() -> None:
    inputs = {k: v for k, v in SIZE_ONLY.items() if k != "kv_bytes_per_token"}
    available = evaluate_available("decode", inputs, ["kv_cache_bytes", "weight_bytes"])
    # kv_bytes_per_token = layers · 2 · kv_heads · head_dim · kv_bytes_per_element: four inputs missing.
    assert available.lacking == {"kv_cache_bytes": ("head_dim", "kv_bytes_per_element", "kv_heads", "layers")}
    assert available.values["weight_bytes"] == 14e9


def test_a_given_quantity_hides_what_it_would_be_computed_from() -> None:
    known = {"params": 7e9, "weight_bytes_per_param": 2}
    assert dependencies("decode", ["weight_bytes"], known) == {
        "weight_bytes",
        "params",
        "weight_bytes_per_param",
    }
    # Without params given, the architecture behind it is reached.
    assert {"layers", "vocab", "d_model"} <= dependencies("decode", ["weight_bytes"])


def test_division_by_zero_is_reported_not_raised() -> None:
    # max_batch = floor((memory - weights) / (context · KV bytes per token)): undefined at context 0.
    inputs = {**SIZE_ONLY, "memory_capacity": 80e9, "context": 0}
    available = evaluate_available("decode", inputs, ["max_batch", "runtime"])
    assert available.undefined == {"max_batch": "division by zero"}
    assert available.values["runtime"] == pytest.approx(14e9 / 3.35e12)  # only the weights are read


def test_an_overflow_is_reported_as_not_finite() -> None:
    inputs = {**HARDWARE, "elements": 1e300, "ops_per_element": 1e300, "inputs": 1, "outputs": 1}
    available = evaluate_available("elementwise", {**inputs, "activation_bytes": 2}, ["flops", "bytes"])
    assert available.undefined == {"flops": "not finite"}
    assert available.values["bytes"] == 4e300  # 1e300 elements · 2 tensors · 2 bytes


def test_evaluate_stays_all_or_error() -> None:
    with pytest.raises(UsageError, match="missing input 'memory_capacity'"):
        evaluate("decode", SIZE_ONLY, ["fits"])


def test_mbu_derates_memory_bandwidth_like_mfu_derates_flops() -> None:
    # 2 chips · 3.35 TB/s · 0.85 = 5.695 TB/s; ridge = 2 · 989e12 · 0.5 / 5.695e12 = 173.66 FLOP/byte.
    inputs = {**HARDWARE, "chips": 2, "mfu": 0.5, "mbu": 0.85}
    values = evaluate("roofline", inputs, ["system_bandwidth", "ridge_point"])
    assert values["system_bandwidth"] == pytest.approx(5.695e12)
    assert values["ridge_point"] == pytest.approx(989e12 / 5.695e12)


@pytest.mark.parametrize(
    ("model", "overrides", "error", "message"),
    [
        ("llama-3.1-8b", {"arch": {"experts": 8, "experts_per_token": 2}}, UsageError, "a dense model"),
        ("llama-3.1-8b", {"arch": {"kv_heads": 64}}, UsageError, "64 KV heads must divide 32"),
        ("llama-3.1-8b", {"arch": {"heads": 12}}, UsageError, "8 KV heads must divide 12"),
        ("llama-3.1-8b", {"active_params": 5e9}, UsageError, "for a mixture of experts"),
        ("mixtral-8x7b", {"params": 7e9, "active_params": 13e9}, UsageError, "exceeds --params"),
        ("mixtral-8x7b", {"arch": {"experts_per_token": 9}}, SpecError, "(9) must not exceed experts (8)"),
    ],
)
def test_overrides_that_cannot_apply_are_refused(model, overrides, error, message) -> None:
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        model_inputs(load_specs().model(model), weight_dtype="bf16", kv_dtype="bf16", **overrides)


def test_an_moe_total_keeps_the_given_active_count() -> None:
    values = model_inputs(
        load_specs().model("mixtral-8x7b"),
        weight_dtype="bf16",
        kv_dtype="bf16",
        params=46.7e9,
        active_params=12.9e9,
    )
    assert (values["params"], values["active_params"]) == (46.7e9, 12.9e9)
