"""Serving latency, cost, KV-cache management, disaggregation, MFU and Chinchilla against published
figures and hand derivations (engine/model/serving.py).

The hand derivations use a round machine: 1 PFLOP/s, 2 TB/s, 80 GB, and a 7B model in bf16 with a
multi-head KV cache of 2 · 32 layers · 4096 · 2 bytes = 524,288 bytes per token (Llama 2 7B's).
Expected values are the arithmetic written out, never the engine's output.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from perfdrill.engine.model import load_specs
from perfdrill.engine.model.evaluation import evaluate
from perfdrill.engine.model.units import parse_quantity
from perfdrill.engine.problems.bank import load_bank, load_folders
from perfdrill.engine.problems.generation import generate
from tests.helpers import write_template

SPECS = load_specs()
KV = 524_288  # bytes per token
MACHINE = {
    "peak_flops": 1e15,
    "memory_bandwidth": 2e12,
    "memory_capacity": 80e9,
    "chips": 1,
    "mfu": 1,
    "mbu": 1,
    "params": 7e9,
    "active_params": 7e9,
    "weight_bytes_per_param": 2,
    "kv_bytes_per_token": KV,
}


LATENCY = ["ttft", "tpot", "request_latency", "latency_dominated_by"]
TARGET = ["max_batch", "slo_latency_batch", "slo_batch", "slo_limit", "slo_fix"]


def _serving(wanted: list[str], **inputs: float) -> dict[str, float]:
    return evaluate("serving_latency", {**MACHINE, **inputs}, wanted)


def test_ttft_tpot_and_request_latency_by_hand() -> None:
    values = _serving(LATENCY, batch=8, prompt=1024, context=1024, output_tokens=257)
    # Prefill: 8 · 2 · 7e9 · 1024 = 1.14688e14 FLOP at 1e15 FLOP/s = 114.688 ms; its traffic
    # (14e9 + 8 · 1024 · 524,288 bytes) takes 9.15 ms, so compute-bound.
    assert values["ttft"] == pytest.approx(0.114688, rel=1e-12)
    # Decode: (14e9 + 8 · 1024 · 524,288) bytes = 18,294,967,296 bytes at 2e12 B/s = 9.147 ms;
    # its math (8 · 14e9 FLOP) takes 0.112 ms.
    assert values["tpot"] == pytest.approx(18_294_967_296 / 2e12, rel=1e-12)
    # 114.688 ms + 256 decode steps.
    assert values["request_latency"] == pytest.approx(0.114688 + 256 * 18_294_967_296 / 2e12, rel=1e-12)
    assert values["latency_dominated_by"] == 1  # 2.34 s of decode against 0.11 s of prefill


def test_largest_batch_under_a_tpot_target_by_hand() -> None:
    values = _serving(TARGET, batch=1, context=1024, tpot_slo=0.020)
    # Reads: (0.020 · 2e12 − 14e9) / (1024 · 524,288) = 26e9 / 536,870,912 = 48.4 → 48.
    # Math: 0.020 · 1e15 / 14e9 = 1428.6, far above. Memory: (80e9 − 14e9) / 536,870,912 = 122.9.
    assert values["slo_latency_batch"] == 48
    assert values["max_batch"] == 122
    assert values["slo_batch"] == 48
    assert values["slo_limit"] == 1  # the target, not memory
    assert values["slo_fix"] == 1  # cap the batch
    # A 5 ms target is under the 7 ms the weights alone take to read: no batch meets it.
    assert _serving(TARGET, batch=1, context=1024, tpot_slo=0.005)["slo_fix"] == 0
    # A 50 ms target: 122 sequences read (14e9 + 122 · 536,870,912) = 79.5e9 bytes in 39.7 ms.
    loose = _serving(TARGET, batch=1, context=1024, tpot_slo=0.050)
    assert (loose["slo_batch"], loose["slo_limit"], loose["slo_fix"]) == (122, 0, 2)


def test_throughput_per_chip_and_cost_per_million_tokens_by_hand() -> None:
    values = evaluate(
        "serving_latency",
        {
            **MACHINE,
            "chips": 2,
            "memory_capacity": 40e9,
            "batch": 48,
            "context": 1024,
            "chip_hourly_price": 2.0,
        },
        ["tokens_per_second", "tokens_per_second_per_chip", "cost_per_million_tokens"],
    )
    # Two chips: 4 TB/s. Step = (14e9 + 48 · 536,870,912) / 4e12 = 9.9426 ms; 48 tokens a step.
    step = (14e9 + 48 * 536_870_912) / 4e12
    assert values["tokens_per_second"] == pytest.approx(48 / step, rel=1e-12)
    assert values["tokens_per_second_per_chip"] == pytest.approx(24 / step, rel=1e-12)
    # Each chip makes 2414 tokens/s for 2 USD an hour: 1e6 / (2414 · 3600) hours of it per million.
    assert values["cost_per_million_tokens"] == pytest.approx(1e6 * 2.0 / (3600 * 24 / step), rel=1e-12)
    assert values["cost_per_million_tokens"] == pytest.approx(0.2301, abs=1e-4)


def test_spec_prices_are_the_instance_price_over_its_gpus() -> None:
    # AWS on-demand, us-east-1: p5.48xlarge 55.04 USD/h and p4de.24xlarge 27.44705 USD/h for 8 GPUs
    # each, p5en.48xlarge 63.296 USD/h for 8 H200, g5.xlarge 1.006 USD/h for one A10G.
    chips = SPECS.chips
    assert chips["h100-sxm"].price_per_hour is not None
    assert chips["h100-sxm"].price_per_hour.value == pytest.approx(55.04 / 8)
    assert chips["a100-80gb"].price_per_hour.value == pytest.approx(27.44705 / 8, abs=5e-4)  # type: ignore[union-attr]
    assert chips["h200"].price_per_hour.value == pytest.approx(63.296 / 8)  # type: ignore[union-attr]
    assert chips["a10g"].price_per_hour.value == pytest.approx(1.006)  # type: ignore[union-attr]
    for chip in chips.values():
        if chip.price_per_hour is not None:
            assert chip.price_per_hour.shown.endswith(" USD/h")
            assert "on-demand" in chip.price_per_hour.source and "2026" in chip.price_per_hour.source


def test_prices_and_costs_read_in_dollars() -> None:
    assert parse_quantity("6.88 USD/h", "USD/h") == pytest.approx(6.88)
    assert parse_quantity("0.5 dollars", "USD") == pytest.approx(0.5)
    assert parse_quantity("2.50", "USD") == pytest.approx(2.5)


def _kv(**inputs: float) -> dict[str, float]:
    wanted = [
        "reserved_max_batch",
        "paged_max_batch",
        "reserved_waste_fraction",
        "paged_waste_fraction",
        "prefix_kv_bytes_saved",
        "prefix_max_batch",
    ]
    return evaluate("kv_paging", {**MACHINE, **inputs}, wanted)


def test_paged_against_reserved_caches_by_hand() -> None:
    values = _kv(batch=1, context=1000, reserved_tokens=4096, page_size=16, shared_prefix=0)
    # 66e9 bytes free. Reserved: 4096 · 524,288 = 2,147,483,648 bytes each → 30 sequences.
    assert values["reserved_max_batch"] == 30
    # Paged: 1000 tokens + half a 16-token page = 1008 slots · 524,288 = 528,482,304 bytes → 124.
    assert values["paged_max_batch"] == 124
    # 3096 of 4096 reserved slots empty; 8 of 1008 paged slots (vLLM: under 4% waste).
    assert values["reserved_waste_fraction"] == pytest.approx(3096 / 4096, rel=1e-12)
    assert values["paged_waste_fraction"] == pytest.approx(8 / 1008, rel=1e-12)
    assert values["paged_waste_fraction"] < 0.04


def test_prefix_caching_by_hand() -> None:
    values = _kv(batch=16, context=3000, shared_prefix=2000, reserved_tokens=4096, page_size=16)
    # 15 of the 16 copies of a 2000-token prefix: 15 · 2000 · 524,288 bytes.
    assert values["prefix_kv_bytes_saved"] == 15 * 2000 * 524_288
    # One prefix (1,048,576,000 bytes) beside the weights, then 1000 own tokens each:
    # (66e9 − 1,048,576,000) / 524,288,000 = 123.9 → 123, where unshared 3000-token caches fit 41.
    assert values["prefix_max_batch"] == 123


def test_a_prefill_chunk_in_a_memory_bound_decode_step_by_hand() -> None:
    values = evaluate(
        "chunked_prefill",
        {**MACHINE, "batch": 32, "context": 2048, "chunk": 512, "prompt": 4096},
        ["runtime", "mixed_runtime", "mixed_bound", "free_chunk", "prefill_chunks", "chunked_ttft"],
    )
    decode_bytes = 14e9 + 32 * 2048 * 524_288  # 48,359,738,368 bytes: 24.18 ms at 2 TB/s
    assert values["runtime"] == pytest.approx(decode_bytes / 2e12, rel=1e-12)
    # The chunk adds 512 · 14e9 FLOP (7.17 ms of math, under the reads) and 512 · 524,288 bytes.
    mixed = (decode_bytes + 512 * 524_288) / 2e12
    assert values["mixed_runtime"] == pytest.approx(mixed, rel=1e-12)
    assert values["mixed_bound"] == 0
    # Free while 14e9 · (32 + C) / 1e15 ≤ (decode_bytes + C · 524,288) / 2e12:
    # C ≤ (24.18 ms − 0.448 ms) / (14 µs − 0.262 µs) = 1727.5 → 1727.
    free = (decode_bytes / 2e12 - 32 * 14e9 / 1e15) / (14e9 / 1e15 - 524_288 / 2e12)
    assert values["free_chunk"] == math.floor(free) == 1727
    assert values["prefill_chunks"] == 8
    assert values["chunked_ttft"] == pytest.approx(8 * mixed, rel=1e-12)


def test_distserve_kv_cache_of_a_512_token_opt_66b_request() -> None:
    # DistServe (Zhong et al., 2024, §3.3): the KV cache of one 512-token request on OPT-66B is
    # about 1.13 GB. OPT-66B: 64 layers, d_model 9216, multi-head, fp16: 2 · 64 · 9216 · 2 bytes
    # = 2,359,296 bytes per token; · 512 = 1,207,959,552 bytes = 1.125 GiB.
    values = evaluate(
        "disaggregation",
        {"batch": 1, "prompt": 512, "kv_bytes_per_token": 2 * 64 * 9216 * 2, "chips": 1},
        ["kv_transfer_bytes"],
    )
    assert values["kv_transfer_bytes"] == 1_207_959_552
    assert values["kv_transfer_bytes"] / 2**30 == pytest.approx(1.13, abs=0.005)


def test_kv_transfer_paths_and_layer_streaming_by_hand() -> None:
    base = {
        **MACHINE,
        "batch": 1,
        "prompt": 4096,
        "chips": 2,
        "layers": 32,
        "link_peer_bandwidth": 450e9,
        "host_link_bandwidth": 64e9,
        "network_bandwidth": 400e9 / 8,
    }
    wanted = ["kv_transfer_time", "prefill_runtime", "streamed_handoff", "serial_handoff", "transfer_hidden"]
    # 4096 · 524,288 = 2,147,483,648 bytes, half from each chip over its own link.
    for link, bandwidth in ((1, 450e9), (2, 64e9), (3, 50e9)):
        values = evaluate("disaggregation", {**base, "transfer_link": link}, wanted)
        assert values["kv_transfer_time"] == pytest.approx(2_147_483_648 / (2 * bandwidth), rel=1e-12)
    values = evaluate("disaggregation", {**base, "transfer_link": 3}, wanted)
    # Prefill: 2 · 7e9 · 4096 FLOP on 2 PFLOP/s = 28.672 ms; transfer 21.47 ms: hidden, and the
    # last layer's share (21.47 / 32 = 0.671 ms) is sent after the prefill ends.
    prefill, transfer = 2 * 7e9 * 4096 / 2e15, 2_147_483_648 / 100e9
    assert values["prefill_runtime"] == pytest.approx(prefill, rel=1e-12)
    assert values["streamed_handoff"] == pytest.approx(prefill + transfer / 32, rel=1e-12)
    assert values["serial_handoff"] == pytest.approx(prefill + transfer, rel=1e-12)
    assert values["transfer_hidden"] == 1
    # A 10 Gb/s link: 2,147,483,648 / 2.5e9 = 859 ms, so the first layer's prefill (0.896 ms)
    # plus the whole transfer sets the pace.
    slow = evaluate("disaggregation", {**base, "transfer_link": 3, "network_bandwidth": 10e9 / 8}, wanted)
    assert slow["streamed_handoff"] == pytest.approx(prefill / 32 + 2_147_483_648 / 2.5e9, rel=1e-12)
    assert slow["transfer_hidden"] == 0


def test_palm_540b_model_flops_utilisation() -> None:
    # PaLM (Chowdhery et al., 2022, Table 3 and Appendix B): 540.35B parameters trained at
    # 238.3k tokens/s on 6144 TPU v4 chips (275 TFLOP/s bf16) is 46.2% MFU, counting attention as
    # 12 · layers · heads · head dim · sequence = 12 · 118 · 48 · 256 · 2048 FLOP per token on top
    # of 6N. With 6N alone: 6 · 540.35e9 · 238.3e3 / (6144 · 275e12) = 45.73%.
    values = evaluate(
        "train_economics",
        # dense: 6·N·D counts the active parameters, here all of them
        {"params": 540.35e9, "active_params": 540.35e9, "tokens": 238.3e3}
        | {"measured_runtime": 1.0, "chips": 6144, "peak_flops": 275e12},
        ["training_throughput", "achieved_mfu", "mfu_verdict"],
    )
    assert values["training_throughput"] == pytest.approx(238.3e3)
    assert values["achieved_mfu"] == pytest.approx(0.4573, abs=5e-5)
    attention_share = 12 * 118 * 48 * 256 * 2048 / (6 * 540.35e9)
    assert values["achieved_mfu"] * (1 + attention_share) == pytest.approx(0.462, abs=5e-4)
    assert values["mfu_verdict"] == 1  # typical of large published runs


def _chinchilla(budget: float) -> dict[str, float]:
    return evaluate(
        "train_economics",
        {"compute_budget": budget, "tokens_per_param": 20},
        ["chinchilla_params", "chinchilla_tokens"],
    )


def test_chinchilla_compute_optimal_size_and_tokens() -> None:
    # Hoffmann et al. (2022): Chinchilla, 70B parameters on 1.4T tokens, is compute-optimal for
    # 6 · 70e9 · 1.4e12 = 5.88e23 FLOP.
    chinchilla = _chinchilla(5.88e23)
    assert chinchilla["chinchilla_params"] == pytest.approx(70e9, rel=1e-9)
    assert chinchilla["chinchilla_tokens"] == pytest.approx(1.4e12, rel=1e-9)
    # Table 3: 1 billion parameters for 1.21e20 FLOP on 20.2 billion tokens (their fit gives 20.2
    # tokens per parameter; 20 gives √(1.21e20 / 120) = 1.004e9 and 20.1e9 tokens).
    small = _chinchilla(1.21e20)
    assert small["chinchilla_params"] == pytest.approx(1e9, rel=0.01)
    assert small["chinchilla_tokens"] == pytest.approx(20.2e9, rel=0.01)
    # Gopher's budget (280B on 300B tokens, 5.04e23 FLOP) calls for √(5.04e23 / 120) = 64.8B.
    assert _chinchilla(6 * 280e9 * 300e9)["chinchilla_params"] == pytest.approx(64.81e9, rel=1e-3)


def test_a_booking_gives_a_budget_and_a_run_its_regime() -> None:
    # 1024 chips · 1e15 FLOP/s · 40% MFU · 30 days of 86,400 s = 1.0617e24 FLOP.
    values = evaluate(
        "train_economics",
        {"chips": 1024, "peak_flops": 1e15, "mfu": 0.4, "run_time": 30 * 86400, "tokens_per_param": 20},
        ["compute_budget", "chinchilla_params"],
    )
    assert values["compute_budget"] == pytest.approx(1024 * 1e15 * 0.4 * 30 * 86400, rel=1e-12)
    # Llama 3 8B on 15T tokens is 1875 tokens per parameter: far past 20 (trained long, on purpose);
    # GPT-3 on 300B tokens is 1.7 per parameter, which the Chinchilla paper calls undertrained.
    regimes = {
        name: evaluate(
            "train_economics",
            {"params": params, "tokens": tokens, "tokens_per_param": 20},
            ["tokens_per_param_trained", "training_regime", "compute_optimal_tokens"],
        )
        for name, params, tokens in (("llama", 8e9, 15e12), ("gpt3", 175e9, 300e9))
    }
    assert regimes["llama"]["tokens_per_param_trained"] == pytest.approx(1875)
    assert regimes["llama"]["training_regime"] == 1
    assert regimes["gpt3"]["training_regime"] == 0
    assert regimes["gpt3"]["compute_optimal_tokens"] == pytest.approx(3.5e12)


def test_the_serving_slips_are_the_ones_people_make(tmp_path: Path) -> None:
    folder = write_template(
        tmp_path,
        "serving/slips",
        """
        id: serving/slips
        title: Slips
        family: serving
        difficulty: easy
        workload: disaggregation
        parameters:
          chip: {chip: {ids: [h100-sxm]}}
          model: {model: {ids: [llama-3.1-8b]}}
        scenario: {chip: chip, model: model, chips: 2}
        inputs: {batch: 1, prompt: 8192, network_bandwidth: 50000000000, transfer_link: 3}
        parts:
          - name: transfer
            kind: numeric
            prompt: Time?
            answer: kv_transfer_time
            unit: ms
            mistakes: [gbit-as-gbyte, kv-over-one-link]
        """,
    )
    (template,) = load_folders([folder], tmp_path)
    part = generate(template, 0, SPECS).part("transfer")
    # Llama 3.1 8B: 2 · 32 · 8 · 128 · 2 = 131,072 bytes per token; 8192 tokens = 1,073,741,824
    # bytes, half over each chip's 50 GB/s: 10.737 ms.
    assert part.value == pytest.approx(1_073_741_824 / 2 / 50e9 * 1e3, rel=1e-12)
    slips = dict(part.mistakes)
    assert slips["gbit-as-gbyte"] == pytest.approx(part.value / 8, rel=1e-12)  # 400 Gb/s read as 400 GB/s
    assert slips["kv-over-one-link"] == pytest.approx(part.value * 2, rel=1e-12)


def test_cost_slips_in_the_bank() -> None:
    template = load_bank().get("serving/slo-cost")
    for seed in range(30):
        problem = generate(template, seed, SPECS)
        chips = problem.variant.inputs["chips"]
        cost = problem.part("cost")
        assert cost.value is not None
        slips = dict(cost.mistakes)
        if chips > 1:
            assert slips["one-chip-price"] == pytest.approx(cost.value / chips, rel=1e-12)
        else:
            assert "one-chip-price" not in slips


def _calc(run_cli, *args: str) -> dict:  # type: ignore[no-untyped-def]
    code, out, err = run_cli("calc", *args, "--json")
    assert code == 0, err
    return {name: result["value"] for name, result in json.loads(out)["results"].items()}


def test_calc_serve_prices_with_the_chip_or_the_given_price(run_cli) -> None:  # type: ignore[no-untyped-def]
    args = ("serve", "--flops", "1 PFLOP/s", "--bandwidth", "2 TB/s", "--memory", "80 GB", "--params", "7e9")
    args += ("--kv-bytes-per-token", "512 KiB", "--batch", "48", "--context", "1024", "--tpot-slo", "20 ms")
    given = _calc(run_cli, *args, "--price", "2 USD/h")
    step = (14e9 + 48 * 536_870_912) / 2e12  # 19.885 ms, within the 20 ms target
    assert given["tpot"] == pytest.approx(step, rel=1e-12)
    assert given["cost_per_million_tokens"] == pytest.approx(1e6 * 2 / (3600 * 48 / step), rel=1e-12)
    assert given["slo_batch"] == 48
    # An H100 SXM's list price is 6.88 USD/h: Llama 3.1 8B at batch 1 reads 16.06 GB + 1024 tokens'
    # 128 KiB of cache in 4.83 ms, 207 tokens/s, so 1e6 / 207 / 3600 hours of 6.88 USD.
    listed = _calc(
        run_cli, "serve", "--chip", "h100-sxm", "--model", "llama-3.1-8b", "--batch", "1", "--context", "1024"
    )
    step = (2 * 8_030_261_248 + 1024 * 131_072) / 3.35e12
    assert listed["cost_per_million_tokens"] == pytest.approx(1e6 * 6.88 * step / 3600, rel=1e-9)


def test_calc_mfu_reproduces_palm(run_cli) -> None:  # type: ignore[no-untyped-def]
    # PaLM 540B at 238.3k tokens/s on 6144 TPU v4: 45.7% with 6N (46.2% with attention; see above).
    args = ("mfu", "--chip", "tpu-v4", "--chips", "6144", "--params", "540.35e9", "--tokens", "238.3k")
    values = _calc(run_cli, *args, "--time", "1 s")
    assert values["achieved_mfu"] == pytest.approx(0.4573, abs=5e-5)


def test_calc_chinchilla_and_kv_transfer(run_cli) -> None:  # type: ignore[no-untyped-def]
    chinchilla = _calc(run_cli, "chinchilla", "--budget", "5.88e23 FLOP")
    assert chinchilla["chinchilla_params"] == pytest.approx(70e9, rel=1e-9)
    # Llama 3.1 70B: 2 · 80 · 8 · 128 · 2 = 327,680 bytes per token; 8192 tokens = 2,684,354,560
    # bytes, a quarter from each of 4 chips at 400 Gb/s (50 GB/s): 13.42 ms.
    args = (
        "kv-transfer",
        "--chip",
        "h100-sxm",
        "--model",
        "llama-3.1-70b",
        "--chips",
        "4",
        "--prompt",
        "8192",
    )
    transfer = _calc(run_cli, *args, "--transfer-bandwidth", "400 Gb/s")
    assert transfer["kv_transfer_bytes"] == 2_684_354_560
    assert transfer["kv_transfer_time"] == pytest.approx(2_684_354_560 / 4 / 50e9, rel=1e-12)
