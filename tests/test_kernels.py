"""Kernel-level effects against NVIDIA's Matrix Multiplication Background guide, the specs
reference, and hand derivations written out here."""

import pytest

from perfdrill.engine.model import load_specs
from perfdrill.engine.model.evaluation import evaluate
from perfdrill.engine.model.formula_inputs import hardware
from perfdrill.engine.problems.bank import load_bank
from perfdrill.engine.problems.counts import exact_count
from perfdrill.engine.problems.generation import generate


def _kernel(chip: str, wanted: list[str], dtype: str = "bf16", **inputs: float) -> dict:
    base = {
        **hardware(load_specs().chip(chip), dtype).inputs(),
        "activation_bytes": 2,
        "weight_bytes_per_param": 2,
    }
    return evaluate("kernels", {**base, **inputs}, wanted)


def test_sm_counts_and_l2_sizes_match_the_reference() -> None:
    # shared/reference/specs_reference.yaml (jax-ml/scaling-book gpus.md table; datasheet tables).
    book = load_specs()
    expected = {
        "a100-80gb": (108, 40e6),
        "h100-sxm": (132, 50e6),
        "h100-pcie": (114, 50e6),
        "b200": (148, 126e6),
    }
    for chip, (sms, l2) in expected.items():
        assert (book.chip(chip).sm_count.value, book.chip(chip).l2_cache.value) == (sms, l2)


def test_wave_quantization_on_an_a100_as_nvidias_guide_describes() -> None:
    # NVIDIA Matrix Multiplication Background User's Guide, wave quantization: an A100 runs one
    # 256x128 tile per SM, 108 at a time. A 1792 x 1792 output is 7 · 14 = 98 tiles, one wave.
    wanted = ["output_tiles", "waves", "wave_efficiency"]
    one = _kernel("a100-80gb", wanted, m=1792, n=1792, k=4096, tile_m=256, tile_n=128)
    assert (one["output_tiles"], one["waves"]) == (98, 1)
    # One row more needs an eighth row of tiles: 8 · 14 = 112 tiles, two waves, 112/216 of the slots.
    two = _kernel("a100-80gb", wanted, m=1793, n=1792, k=4096, tile_m=256, tile_n=128)
    assert (two["output_tiles"], two["waves"]) == (112, 2)
    assert two["wave_efficiency"] == pytest.approx(112 / 216)


def test_a_wave_takes_one_tiles_time_by_hand() -> None:
    # H100: 132 SMs share 989 TFLOP/s. A 128x128 tile with k = 4096 is 2·128·128·4096 = 134.2 MFLOP
    # at 989e12/132 FLOP/s: 17.91 µs. 133 tiles (7 · 19 of 896 x 2432) need 2 waves: 35.8 µs, while
    # the same FLOPs spread evenly take 133/132 of a tile's time, 1.985 times less.
    values = _kernel(
        "h100-sxm",
        ["output_tiles", "waves", "tile_time", "wave_quantized_time", "wave_slowdown"],
        m=896,
        n=2432,
        k=4096,
        tile_m=128,
        tile_n=128,
    )
    tile = 2 * 128 * 128 * 4096 * 132 / 989e12
    assert (values["output_tiles"], values["waves"]) == (133, 2)
    assert values["tile_time"] == pytest.approx(tile)
    assert values["wave_quantized_time"] == pytest.approx(2 * tile)
    assert values["wave_slowdown"] == pytest.approx(2 * 132 / 133)


def test_a_batch_1_gemv_leaves_most_sms_idle() -> None:
    # 4096 outputs in blocks of 128 rows: 32 blocks for 132 SMs, 24.2% busy. The 4096 x 4096 bf16
    # weights plus input and output are 2·(4096² + 2·4096) bytes, read at 32/132 of 3.35 TB/s.
    wanted = ["gemv_blocks", "busy_sm_fraction", "occupancy_memory_time", "split_k_to_fill"]
    values = _kernel("h100-sxm", wanted, m=1, k=4096, n=4096, rows_per_block=128, split_k=1, mbu=1)
    assert values["gemv_blocks"] == 32
    assert values["busy_sm_fraction"] == pytest.approx(32 / 132)
    assert values["occupancy_memory_time"] == pytest.approx(2 * (4096**2 + 2 * 4096) / (3.35e12 * 32 / 132))
    assert values["split_k_to_fill"] == 5  # 5 · 32 = 160 ≥ 132 > 4 · 32 = 128


def test_a_split_k_short_of_the_sms_is_told_why() -> None:
    template = load_bank().get("kernels/gemv-occupancy")
    for seed in range(40):
        problem = generate(template, seed, load_specs())
        part = problem.part("split")
        if part.value and part.value > 1:
            count = exact_count(template, template.parts[3], problem.variant, 1.0)
            assert count is not None
            sms = problem.variant.lookup("sm_count", None)
            reason = count.why_not(part.value - 1, part.value)
            assert f"for {sms:,.0f} SMs" in reason and "launches" in reason
            return
    raise AssertionError("no variant needed a split")


def test_weights_that_fit_in_l2_leave_only_activations_for_hbm() -> None:
    # H100's 50 MB L2 holds d x d fp16 weights up to d = sqrt(25e6) = 5000. A 4096 x 4096 layer
    # (33.6 MB) stays; each later call on 16 tokens moves only 2 · 16 · 4096 · 2 bytes of
    # activations through HBM, and its weights come from L2 at twice HBM's rate.
    wanted = ["weights_fit_l2", "repeat_hbm_bytes", "repeat_memory_time", "largest_resident_width"]
    values = _kernel("h100-sxm", wanted, "fp16", m=16, k=4096, n=4096, l2_bandwidth_ratio=2, mbu=1)
    assert values["largest_resident_width"] == 5000
    assert values["weights_fit_l2"] == 1
    assert values["repeat_hbm_bytes"] == 2 * 16 * 4096 * 2
    assert values["repeat_memory_time"] == pytest.approx(2 * 16 * 4096 * 2 / 3.35e12 + 4096**2 * 2 / 6.7e12)
    # A T4's 4 MB L2 cannot hold a 2048 x 2048 layer (8.4 MB): every call rereads the weights.
    t4 = _kernel(
        "t4", ["weights_fit_l2", "repeat_hbm_bytes"], "fp16", m=16, k=2048, n=2048, l2_bandwidth_ratio=2
    )
    assert t4["weights_fit_l2"] == 0
    assert t4["repeat_hbm_bytes"] == (2 * 16 * 2048 + 2048**2) * 2
