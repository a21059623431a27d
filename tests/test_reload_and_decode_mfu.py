"""A preempted sequence's KV cache fetched back or recomputed (workload kv_reload), and the MFU of a
measured decode server (workload decode_mfu), by hand derivations written out here.

The round machine: 1 PFLOP/s dense, 2 TB/s, 80 GB per chip, and a 7B model in bf16 with Llama 2
7B's multi-head cache: 2 · 32 layers · 32 heads · 128 · 2 bytes = 524,288 bytes per token.
Expected values are the arithmetic written out, never the engine's output.
"""

from __future__ import annotations

import pytest

from perfdrill.engine.model.evaluation import evaluate

MACHINE = {
    "peak_flops": 1e15,
    "memory_bandwidth": 2e12,
    "memory_capacity": 80e9,
    "mfu": 1,
    "mbu": 1,
    "params": 7e9,
    "active_params": 7e9,
    "weight_bytes_per_param": 2,
    "kv_bytes_per_token": 524_288,
    "layers": 32,
    "heads": 32,
    "head_dim": 128,
}
RELOAD = ["kv_transfer_time", "prefill_runtime", "reload_choice", "reload_break_even_bandwidth"]
DECODE = ["decode_mfu", "decode_mfu_ceiling", "decode_roofline_fraction", "decode_mfu_verdict"]


def test_kv_reload_fetch_or_recompute_by_hand() -> None:
    # A preempted sequence of 4096 tokens on 2 chips: its cache is 4096 · 524,288 = 2,147,483,648
    # bytes, half fetched by each chip. Over 100 Gb/s (12.5 GB/s) each: 85.90 ms.
    # Recompute: 2 · 7e9 · 4096 = 57,344,000,000,000 FLOP for the weights plus causal attention,
    # 2 · 32 layers · 32 heads · 128 · 4096² = 4,398,046,511,104 FLOP: 61,742,046,511,104 FLOP on
    # 2 PFLOP/s = 30.87 ms (compute-bound: the weights and cache, 16.1 GB at 4 TB/s, take 4.04 ms).
    base = {**MACHINE, "batch": 1, "prompt": 4096, "chips": 2}
    base |= {"link_peer_bandwidth": 450e9, "host_link_bandwidth": 64e9, "network_bandwidth": 100e9 / 8}
    network = evaluate("kv_reload", {**base, "transfer_link": 3}, RELOAD)
    recompute = 61_742_046_511_104 / 2e15
    assert network["kv_transfer_time"] == pytest.approx(2_147_483_648 / 25e9, rel=1e-12)
    assert network["prefill_runtime"] == pytest.approx(recompute, rel=1e-12)
    assert network["reload_choice"] == 0  # recomputing is faster
    # Fetching ties when each chip's link carries 1,073,741,824 bytes in 30.87 ms: 34.78 GB/s.
    assert network["reload_break_even_bandwidth"] == pytest.approx(1_073_741_824 / recompute, rel=1e-12)
    assert network["reload_break_even_bandwidth"] == pytest.approx(34.78e9, rel=1e-3)
    # From host memory over PCIe (64 GB/s each way): 2,147,483,648 / 128e9 = 16.78 ms, so fetch.
    pcie = evaluate("kv_reload", {**base, "transfer_link": 2}, RELOAD)
    assert pcie["kv_transfer_time"] == pytest.approx(16.777e-3, rel=1e-4)
    assert pcie["reload_choice"] == 1


def test_decode_mfu_of_a_measured_server_by_hand() -> None:
    # Batch 8 at 1024 tokens of context on 2 chips, measured at 400 tokens/s in all: 50 steps a
    # second of 8 · 2 · 7e9 = 1.12e11 FLOP, 5.6e12 FLOP/s, 2.8e12 per chip: 0.28% of 1 PFLOP/s.
    base = {**MACHINE, "batch": 8, "context": 1024, "chips": 2}
    slow = evaluate("decode_mfu", {**base, "measured_throughput": 400}, DECODE)
    assert slow["decode_mfu"] == pytest.approx(0.0028, rel=1e-12)
    # The roofline step: math 1.12e11 / 2e15 = 56 µs; reads 14e9 + 8 · 1024 · 524,288 =
    # 18,294,967,296 bytes at 4 TB/s = 4.574 ms. So at most 56 µs / 4.574 ms = 1.224% MFU.
    memory_time = 18_294_967_296 / 4e12
    assert slow["decode_mfu_ceiling"] == pytest.approx(56e-6 / memory_time, rel=1e-12)
    assert slow["decode_mfu_ceiling"] == pytest.approx(0.01224, rel=1e-3)
    # The roofline makes 8 / 4.574 ms = 1,749 tokens/s; 400 is 22.9% of it: profile the kernels.
    assert slow["decode_roofline_fraction"] == pytest.approx(400 * memory_time / 8, rel=1e-12)
    assert slow["decode_mfu_verdict"] == 0
    # At 1,500 tokens/s (85.8% of the roofline) the kernels are fine: only a bigger batch helps.
    fast = evaluate("decode_mfu", {**base, "measured_throughput": 1500}, DECODE)
    assert fast["decode_mfu"] == pytest.approx(1500 / 8 * 1.12e11 / 2 / 1e15, rel=1e-12)  # 1.05%
    assert fast["decode_mfu_verdict"] == 1


def test_the_decode_mfu_verdict_ends_in_what_to_do() -> None:
    """A teacher reviewer (issue 21, third round) rejected part (c): its working stopped at "so the
    step runs near its roofline" and never said what to do. It ends in the chosen action now."""
    from perfdrill.engine.model import load_specs
    from perfdrill.engine.problems import generate, load_bank
    from tests.helpers import key_lines

    template, specs = load_bank([]).get("serving/decode-mfu"), load_specs([])
    actions = {"far below": "profile the kernels first", "near": "batch more"}
    seen = set()
    for seed in range(40):
        answer = generate(template, seed, specs).part("next_step").shown_answer
        lines = [line for line in key_lines("serving/decode-mfu", seed) if "**(c)**" in line]
        verdict = "near" if "near" in answer else "far below"
        assert lines and actions[verdict] in lines[-1], (seed, answer, lines)
        seen.add(verdict)
    assert seen == {"near", "far below"}
