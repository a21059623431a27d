"""`perfdrill calc` against published worked answers, given only the inputs each problem states.

Each test names its source and restates the published arithmetic. These are problems the
calculator used to refuse because an input unrelated to the asked result was missing.

Sources:
- [Databricks] "LLM Inference Performance Engineering: Best Practices", Databricks blog (2023),
  https://www.databricks.com/blog/llm-inference-performance-engineering-best-practices
- [Scaling book] Austin et al., "How to Scale Your Model", https://jax-ml.github.io/scaling-book/
  (inference.md "All About Transformer Inference"; applied-inference.md "Serving LLaMA 3-70B";
  training.md "How to Parallelize a Transformer for Training").
"""

import json

import pytest

# TPU v5e as the scaling book uses it: 1.97e14 bf16 FLOP/s, 8.1e11 (or 8.2e11) bytes/s of HBM per chip.
V5E = ["--flops", "1.97e14", "--bandwidth", "8.1e11"]


def _json(run_cli, *args: str) -> dict:
    code, out, err = run_cli(*args, "--json")
    assert code == 0, err
    return json.loads(out)


def test_weight_load_time_at_batch_one_with_mbu(run_cli) -> None:
    # [Databricks], "Model Bandwidth Utilization": "if a 7B parameter running with 16-bit precision
    # has TPOT equal to 14ms, then it's moving 14GB of parameters in 14ms ... If the peak bandwidth
    # of the machine is 2TB/sec, we are running at an MBU of 50%" (KV cache ignored).
    data = _json(
        run_cli,
        *["calc", "decode", "--params", "7e9", "--batch", "1", "--context", "0"],
        *["--bandwidth", "2 TB/s", "--mbu", "0.5"],
    )
    assert data["results"]["memory_time"]["value"] == pytest.approx(14e-3)
    assert data["results"]["weight_bytes"]["value"] == 14e9
    assert data["results"]["kv_cache_bytes"]["value"] == 0  # --context 0: no KV cache
    # Without a FLOP/s the step time is not known; the calculator says how to get it.
    assert "step_time" not in data["results"]
    assert data["omitted"]["step_time"] == ["--flops", "--chip"]


def test_weight_load_time_of_a_70b_model_from_the_issue(run_cli) -> None:
    # Hand: 70e9 parameters · 2 bytes = 140 GB; 140e9 / 3.35e12 B/s = 41.79 ms. Compute is
    # 2 · 70e9 FLOP / 989e12 FLOP/s = 0.142 ms, so the step is the weight load.
    args = ["calc", "decode", "--params", "70e9", "--batch", "1", "--context", "0"]
    results = _json(run_cli, *args, "--flops", "989e12", "--bandwidth", "3.35e12")["results"]
    assert results["step_time"]["value"] == pytest.approx(140e9 / 3.35e12)
    assert results["bound"]["value"] == "memory"


def test_decode_step_from_a_parameter_count_and_a_kv_size(run_cli) -> None:
    # [Scaling book] inference.md, pop quiz: batch 4 from a 30B dense model on a TPU v5e 4x4 in int8,
    # 8192 context, 100 kB/token KV: "(4 * 819e6 + 30e9) / (16 * 8.1e11) = 2.5 ms".
    data = _json(
        run_cli,
        *["calc", "decode", "--params", "30e9", "--weight-dtype", "int8", "--kv-bytes-per-token", "100 kB"],
        *["--batch", "4", "--context", "8192", "--chips", "16", *V5E],
    )
    step = data["results"]["step_time"]["value"]
    assert step == pytest.approx((4 * 819.2e6 + 30e9) / (16 * 8.1e11))  # the book's sum, unrounded
    assert step == pytest.approx(2.5e-3, rel=0.05)  # the published figure, rounded
    assert data["results"]["bound"]["value"] == "memory"


def test_serving_llama_70b_in_int8_on_eight_chips(run_cli) -> None:
    # [Scaling book] applied-inference.md: LLaMA 3-70B, int8 params and KV (160e3 bytes/token),
    # batch 32 at 8192 tokens on a v5e 4x2: "112e9 / (8 * 8.1e11) = 17ms"; "our critical batch
    # size will be about 120 since our parameters are in int8 but our FLOPs are in bfloat16".
    results = _json(
        run_cli,
        *["calc", "decode", "--params", "70e9", "--weight-dtype", "int8", "--kv-bytes-per-token", "160e3"],
        *["--batch", "32", "--context", "8192", "--chips", "8", *V5E],
    )["results"]
    assert results["memory_required"]["value"] == pytest.approx(70e9 + 160e3 * 8192 * 32)  # 112 GB
    assert results["step_time"]["value"] == pytest.approx(17e-3, rel=0.03)
    assert results["critical_batch"]["value"] == pytest.approx(120, rel=0.02)


def test_training_time_from_flops_and_mfu_alone(run_cli) -> None:
    # [Scaling book] training.md: LLaMA-3 70B, "6.3e24 (15e12 * 70e9 * 6)" FLOPs on 18,823 chips
    # "each with 4.59e14 FLOPs running at 50% ... MFU ... train it in approximately 17 days".
    data = _json(
        run_cli,
        *["calc", "train", "--params", "70e9", "--tokens", "15e12"],
        *["--flops", "4.59e14", "--chips", "18823", "--mfu", "0.5"],
    )
    assert data["results"]["flops"]["value"] == pytest.approx(6.3e24)
    assert data["results"]["time"]["value"] / 86400 == pytest.approx(17, rel=0.02)
    assert data["omitted"] == {  # a memory size, and for activations the shape of a step (issue 22)
        "min_chips": ["--memory", "--chip"],
        "max_trainable_params": ["--memory", "--chip"],
        "activation_memory": ["--batch --sequence --model", "--layers --d-model --heads --batch --sequence"],
        "checkpointed_activation_memory": [
            "--batch --sequence --model",
            "--layers --d-model --heads --batch --sequence",
        ],
        "logits_memory": ["--vocab --batch --sequence", "--batch --sequence --model"],
    }


@pytest.mark.parametrize(("weights", "critical"), [("bf16", 240), ("int8", 120)])
def test_critical_batch_with_no_model_and_no_context(run_cli, weights: str, critical: int) -> None:
    # [Scaling book] inference.md: "1.97E+14 / 8.20E+11 ... B >= 240 = B_crit" for bf16, and "if we
    # have int8 parameters but do our computation in bf16, the critical batch size drops to 120".
    data = _json(
        run_cli,
        *["calc", "decode", "--batch", "1", "--context", "0", "--weight-dtype", weights],
        *["--flops", "1.97e14", "--bandwidth", "8.2e11"],
    )
    assert data["results"]["critical_batch"]["value"] == pytest.approx(critical, rel=0.005)
    # --context 0 means no KV cache; the rest needs a model size.
    assert set(data["results"]) == {"critical_batch", "kv_cache_bytes"}


def test_per_op_decode_with_kv_bytes_but_no_heads(run_cli) -> None:
    # [Scaling book] inference.md, same pop quiz at batch 256: "(256 * 819e6) / (16 * 8.1e11) +
    # (2 * 256 * 30e9) / (16 * 1.97e14) = 21ms": attention reads its KV caches, the MLP is compute-bound.
    data = _json(
        run_cli,
        *["calc", "decode", "--per-op", "--params", "30e9", "--weight-dtype", "int8"],
        *["--kv-bytes-per-token", "100 kB", "--batch", "256", "--context", "8192", "--chips", "16", *V5E],
    )
    expected = 256 * 819.2e6 / (16 * 8.1e11) + 2 * 256 * 30e9 / (16 * 1.97e14)
    assert data["results"]["step_time"]["value"] == pytest.approx(expected)
    assert data["results"]["step_time"]["value"] == pytest.approx(21e-3, rel=0.01)
    assert any("attention FLOPs are unknown and neglected" in note for note in data["notes"])
