"""`perfdrill calc` as a contract: result names, JSON shape, and one-line errors with exit code 2."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

DECODE_8B = ["calc", "decode", "--chip", "h100-sxm", "--model", "llama-3.1-8b"]
DECODE = [*DECODE_8B, "--batch", "64", "--context", "4096"]


PREFILL = ["calc", "prefill", "--chip", "h100-sxm", "--model", "llama-3.1-8b", "--batch", "1"]


def _json(run_cli, *args: str) -> dict:
    code, out, err = run_cli(*args, "--json")
    assert code == 0, err
    return json.loads(out)


def test_roofline_json(run_cli) -> None:
    data = _json(run_cli, "calc", "roofline", "--chip", "l4")
    assert data["results"]["ridge_point"] == {"value": pytest.approx(403.333, abs=1e-3), "unit": "FLOP/byte"}


def test_decode_json_has_every_contract_name_in_base_units(run_cli) -> None:
    results = _json(run_cli, *DECODE)["results"]
    assert set(results) == {
        "flops",
        "bytes",
        "compute_time",
        "memory_time",
        "step_time",
        "bound",
        "tokens_per_second",
        "weight_bytes",
        "kv_cache_bytes",
        "memory_required",
        "fits",
        "critical_batch",
        "max_batch",
        "min_chips",
        *("free_memory", "memory_per_chip", "evicted_sequences", "evicted_kv_bytes"),  # issue 22
    }
    assert results["kv_cache_bytes"] == {"value": 64 * 4096 * 131072, "unit": "byte"}
    assert results["weight_bytes"]["value"] == 8_030_261_248 * 2
    assert results["bound"]["value"] == "memory"
    assert results["fits"]["value"] is True
    assert results["step_time"]["unit"] == "s"
    # Hand: (16,060,522,496 + 34,359,738,368) B / 3.35e12 B/s = 15.05 ms
    assert results["step_time"]["value"] == pytest.approx(50_420_260_864 / 3.35e12)


def test_explicit_values_override_the_chip(run_cli) -> None:
    results = _json(run_cli, *DECODE, "--bandwidth", "1.675 TB/s")["results"]
    assert results["memory_time"]["value"] == pytest.approx(50_420_260_864 / 1.675e12)


def test_chips_multiply_rates_and_capacity(run_cli) -> None:
    args = [
        "calc",
        "decode",
        "--chip",
        "h100-sxm",
        "--model",
        "llama-3.1-70b",
        "--batch",
        "8",
        "--context",
        "2048",
    ]
    one = _json(run_cli, *args)["results"]
    eight = _json(run_cli, *args, "--chips", "8")["results"]
    assert one["fits"]["value"] is False  # 141 GB of bf16 weights on one 80 GB H100
    assert eight["fits"]["value"] is True
    assert eight["memory_time"]["value"] == pytest.approx(one["memory_time"]["value"] / 8)


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (
            ["calc", "matmul", "--chip", "h100-sxm", "--m", "16", "--k", "8192", "--n", "8192"],
            {"flops", "bytes", "arithmetic_intensity", "compute_time", "memory_time", "runtime", "bound"}
            | {"compute_bound_batch"},
        ),
        (
            ["calc", "elementwise", "--chip", "a100-80gb", "--dtype", "fp32", "--elements", "1000000"],
            {"flops", "bytes", "arithmetic_intensity", "compute_time", "memory_time", "runtime", "bound"},
        ),
        (
            ["calc", "model", "--model", "mixtral-8x7b"],
            {"params", "active_params", "weight_bytes", "kv_bytes_per_token"}
            | {"embedding_params", "attention_params", "mlp_params", "norm_and_router_params"},
        ),
        ([*PREFILL, "--prompt", "2048"], {"flops", "compute_time", "memory_time", "time", "bound"}),
        (
            [
                "calc",
                "train",
                "--chip",
                "h100-sxm",
                "--model",
                "llama-3.1-8b",
                "--tokens",
                "15e12",
                "--mfu",
                "0.4",
                *("--batch", "8", "--sequence", "4096"),
            ],
            {"flops", "time", "memory_required", "min_chips", "max_trainable_params", "checkpointed_time"}
            | {"activation_memory", "checkpointed_activation_memory", "logits_memory"},
        ),
        (
            [
                "calc",
                "collective",
                "--op",
                "all-reduce",
                "--bytes",
                "1 GB",
                "--participants",
                "8",
                "--link-bandwidth",
                "450 GB/s",
            ],
            {"time"},
        ),
    ],
)
def test_every_subcommand_reports_its_contract_names(run_cli, args: list[str], names: set[str]) -> None:
    assert set(_json(run_cli, *args)["results"]) == names


def test_matmul_weight_dtype_changes_only_weight_bytes(run_cli) -> None:
    base = ["calc", "matmul", "--chip", "h100-sxm", "--m", "1", "--k", "4096", "--n", "4096"]
    bf16 = _json(run_cli, *base)["results"]["bytes"]["value"]
    int8 = _json(run_cli, *base, "--weight-dtype", "int8")["results"]["bytes"]["value"]
    assert bf16 - int8 == 4096 * 4096  # one byte saved per weight; activations stay bf16


def test_prefill_is_compute_bound_and_decode_memory_bound(run_cli) -> None:
    prefill = _json(run_cli, *PREFILL, "--prompt", "4096")["results"]
    decode = _json(run_cli, *DECODE_8B, "--batch", "1", "--context", "4096")["results"]
    assert prefill["bound"]["value"] == "compute" and decode["bound"]["value"] == "memory"


def test_collective_all_reduce_is_twice_all_gather(run_cli) -> None:
    args = ["--bytes", "1 GB", "--participants", "8", "--link-bandwidth", "450 GB/s"]
    gather = _json(run_cli, "calc", "collective", "--op", "all-gather", *args)["results"]["time"]["value"]
    reduce = _json(run_cli, "calc", "collective", "--op", "all-reduce", *args)["results"]["time"]["value"]
    assert gather == pytest.approx(1e9 * 7 / (8 * 450e9))
    assert reduce == pytest.approx(2 * gather)


def test_sweep_rows_and_optimal_batch(run_cli) -> None:
    data = _json(
        run_cli,
        "calc",
        "sweep",
        "--chip",
        "h100-sxm",
        "--model",
        "llama-3.1-8b",
        "--context",
        "128",
        "--batches",
        "1,64,256,512,1024",
    )
    rows = data["results"]["rows"]
    assert [row["batch"] for row in rows] == [1, 64, 256, 512, 1024]
    assert [row["bound"] for row in rows] == ["memory", "memory", "memory", "compute", "compute"]
    assert data["results"]["optimal_batch"] == 512  # smallest compute-bound row that fits
    assert data["results"]["exact_optimal_batch"] == 427


def test_explain_shows_formula_substitution_and_result(run_cli) -> None:
    code, out, _ = run_cli(*DECODE, "--explain")
    assert code == 0
    out = out.replace("\u00a0", " ")
    assert "compute time = FLOPs ÷ peak FLOP/s" in out  # one H100 at full MFU: its peak
    assert "1.03 TFLOP ÷ 989 TFLOP/s" in out
    assert "1.04 ms" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["calc", "decode", "--chip", "h900", "--model", "llama-3.1-8b", "--batch", "1", "--context", "1"],
            "unknown chip 'h900'",
        ),
        (
            ["calc", "decode", "--chip", "h100-sxm", "--model", "llama-9", "--batch", "1", "--context", "1"],
            "unknown model 'llama-9'",
        ),
        (
            [*DECODE_8B, "--batch", "-4", "--context", "1"],
            "must be a positive whole number",
        ),
        (
            [*DECODE_8B, "--batch", "0", "--context", "1"],
            "must be a positive whole number",
        ),
        (
            ["calc", "roofline", "--chip", "h100-sxm", "--bandwidth", "3.35 TB"],
            "--bandwidth '3.35 TB' is not a bandwidth",
        ),
        (["calc", "roofline", "--chip", "a100-80gb", "--dtype", "fp8"], "no fp8 peak"),
    ],
)
def test_errors_are_one_line_with_exit_code_2(run_cli, args: list[str], message: str) -> None:
    code, _, err = run_cli(*args)
    assert code == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_malformed_user_yaml_is_a_one_line_error(run_cli, tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text("chips:\n  x: [unclosed\n")
    code, _, err = run_cli("calc", "roofline", "--chip", "h100-sxm", "--specs", str(tmp_path))
    assert code == 2
    assert "bad.yaml:3" in err and "YAML syntax error" in err
    assert len(err.strip().splitlines()) == 1


def test_real_process_error_has_no_traceback() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "perfdrill", "calc", "roofline", "--chip", "nope"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "perfdrill: error: unknown chip 'nope'; known: a100-40gb, a100-80gb, a10g, b200, "
        "h100-pcie, h100-sxm, h200, l4, mi300x, rtx-4090, t4, tpu-v4, tpu-v5e, tpu-v5p, "
        "tpu-v6e, v100-sxm"
    )


def test_specs_listing(run_cli) -> None:
    data = _json(run_cli, "specs")
    assert data["chips"]["h100-sxm"]["link_bandwidth"]["direction"] == "one-way"
    assert data["models"]["mixtral-8x7b"]["experts"] == 8


# Partial inputs: each result is computed when its own inputs are known.

PARAMS_ONLY = ["calc", "decode", "--params", "7e9", "--flops", "989 TFLOP/s", "--bandwidth", "3.35 TB/s"]


def test_decode_without_a_memory_size_gives_everything_else(run_cli) -> None:
    data = _json(
        run_cli,
        "calc",
        "decode",
        *["--model", "llama-3.1-8b", "--flops", "989e12", "--bandwidth", "3.35e12"],
        *["--batch", "64", "--context", "4096"],
    )
    assert data["omitted"] == {
        name: ["--memory", "--chip"]
        for name in ("fits", "max_batch", "min_chips", "free_memory", "evicted_sequences", "evicted_kv_bytes")
    }
    # Hand (as in test_decode_json_has_every_contract_name_in_base_units): 50,420,260,864 B / 3.35 TB/s.
    assert data["results"]["step_time"]["value"] == pytest.approx(50_420_260_864 / 3.35e12)
    assert data["inputs"]["memory_capacity"] is None


def test_the_table_names_each_omitted_result_and_the_options_that_give_it(run_cli) -> None:
    code, out, _ = run_cli(*PARAMS_ONLY, "--batch", "8", "--context", "4096")
    assert code == 0
    assert "weight_bytes" in out and "critical_batch" in out
    assert "fits, max_batch, min_chips, evicted_sequences, evicted_kv_bytes: give --memory + " in out
    assert "free_memory: give --memory or --chip" in out
    assert (
        "bytes, memory_time, step_time, bound, tokens_per_second, kv_cache_bytes, memory_required, "
        "memory_per_chip: "
        "give --kv-bytes-per-token, --model or --layers + --kv-heads + --head-dim"
    ) in out


def test_omitted_ways_are_options_never_formula_names(run_cli) -> None:
    runs = [
        [*PARAMS_ONLY, "--batch", "8", "--context", "4096"],
        ["calc", "decode", "--batch", "1", "--context", "1", "--model", "llama-3.1-8b"],
        ["calc", "prefill", "--params", "7e9", "--batch", "1", "--prompt", "512", "--chip", "h100-sxm"],
        ["calc", "model", "--params", "7e9"],
        ["calc", "matmul", "--m", "1", "--k", "2", "--n", "3"],
        ["calc", "train", "--params", "7e9", "--tokens", "1e12"],
    ]
    for args in runs:
        omitted = _json(run_cli, *args)["omitted"]
        assert omitted, args
        for ways in omitted.values():
            assert ways and all(re.fullmatch(r"--[a-z0-9-]+( --[a-z0-9-]+)*", way) for way in ways), ways


def test_a_complete_calculation_omits_nothing(run_cli) -> None:
    data = _json(run_cli, *DECODE)
    assert data["omitted"] == {} and data["notes"] == []


def test_context_zero_means_no_kv_cache(run_cli) -> None:
    data = _json(run_cli, *DECODE_8B, "--batch", "1", "--context", "0")
    assert data["results"]["kv_cache_bytes"]["value"] == 0
    assert data["results"]["memory_required"]["value"] == 8_030_261_248 * 2
    # no KV cache: memory caps no batch, and no context grows to evict anything
    assert data["omitted"] == {
        name: ["--context"] for name in ("max_batch", "evicted_sequences", "evicted_kv_bytes")
    }
    _, out, _ = run_cli(*DECODE_8B, "--batch", "1", "--context", "0")
    assert "max_batch, evicted_sequences, evicted_kv_bytes: undefined when --context is 0" in out


def test_mbu_derates_the_memory_time(run_cli) -> None:
    full = _json(run_cli, *DECODE)["results"]["memory_time"]["value"]
    derated = _json(run_cli, *DECODE, "--mbu", "0.85")["results"]["memory_time"]["value"]
    assert derated == pytest.approx(full / 0.85)


@pytest.mark.parametrize(
    ("args", "results", "omitted"),
    [
        (
            ["calc", "model", "--params", "7e9"],
            {"params", "active_params", "weight_bytes"},
            {
                "kv_bytes_per_token",
                "embedding_params",
                "attention_params",
                "mlp_params",
                "norm_and_router_params",
            },
        ),
        (
            ["calc", "prefill", "--params", "7e9", "--batch", "1", "--prompt", "512", "--chip", "h100-sxm"],
            {"flops", "compute_time"},
            {"memory_time", "time", "bound"},
        ),
        (
            ["calc", "matmul", "--m", "16", "--k", "4096", "--n", "4096"],
            {"flops", "bytes", "arithmetic_intensity"},
            {"compute_time", "memory_time", "runtime", "bound", "compute_bound_batch"},
        ),
        (
            ["calc", "elementwise", "--elements", "1000000"],
            {"flops", "bytes", "arithmetic_intensity"},
            {"compute_time", "memory_time", "runtime", "bound"},
        ),
    ],
)
def test_each_subcommand_computes_what_its_inputs_determine(run_cli, args, results, omitted) -> None:
    data = _json(run_cli, *args)
    assert (set(data["results"]), set(data["omitted"])) == (results, omitted)


def test_model_weight_bytes_from_a_parameter_count(run_cli) -> None:
    results = _json(run_cli, "calc", "model", "--params", "7e9", "--dtype", "fp8")["results"]
    assert results["weight_bytes"]["value"] == 7e9  # one byte per fp8 weight


def test_collective_takes_the_chips_link_bandwidth(run_cli) -> None:
    args = ["calc", "collective", "--op", "all-reduce", "--bytes", "1 GB", "--participants", "8"]
    # h100-sxm: 450 GB/s one-way NVLink; all-reduce = 2 · 1e9 · 7 / (8 · 450e9) = 3.889 ms.
    data = _json(run_cli, *args, "--chip", "h100-sxm")
    assert data["results"]["time"]["value"] == pytest.approx(2 * 1e9 * 7 / (8 * 450e9))
    assert data["inputs"]["link_bandwidth"] == 450e9
    slower = _json(run_cli, *args, "--chip", "h100-sxm", "--link-bandwidth", "225 GB/s")
    assert slower["results"]["time"]["value"] == pytest.approx(2 * data["results"]["time"]["value"])


def test_sweep_without_a_memory_size_leaves_out_fit_and_the_optimum(run_cli) -> None:
    data = _json(
        run_cli,
        *["calc", "sweep", "--model", "llama-3.1-8b", "--flops", "989e12", "--bandwidth", "3.35e12"],
        *["--context", "128", "--batches", "1,512"],
    )
    assert [row["bound"] for row in data["results"]["rows"]] == ["memory", "compute"]
    assert "fits" not in data["results"]["rows"][0]
    assert set(data["results"]) == {"rows"}
    assert set(data["omitted"]) == {"fits", "optimal_batch", "exact_optimal_batch"}


def test_explain_works_on_partial_inputs(run_cli) -> None:
    code, out, err = run_cli(*PARAMS_ONLY, "--batch", "8", "--context", "0", "--explain")
    assert code == 0, err
    assert "memory time = bytes moved ÷ memory bandwidth" in out.replace("\u00a0", " ")
