"""The roofline of a variant (engine) and its terminal drawing (TUI), against hand-worked values.

A chart shows the question's own operations, labelled, under the roof of the chip and dtype the
question runs in; the points issue 15 found that did not belong are checked one by one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from perfdrill.engine.model import load_specs
from perfdrill.engine.problems.bank import load_bank, load_folders
from perfdrill.engine.problems.generation import Problem, generate
from perfdrill.engine.problems.roofline_view import OperatingPoint, Roof, RooflineView
from perfdrill.tui.chart import MARKERS, roofline_text
from tests.helpers import MATMUL, write_template


def test_the_h100_matmul_sits_right_of_the_ridge_at_the_peak(tmp_path: Path) -> None:
    (template,) = load_folders([write_template(tmp_path, "matmul/h100-4096", MATMUL)], tmp_path)
    view = generate(template, 0, load_specs()).roofline
    assert view is not None
    (roof,) = view.roofs
    # 989 TFLOP/s over 3.35 TB/s; 2·4096³ FLOP over 3·4096²·2 bytes = 4096/3 FLOP/byte.
    assert (roof.peak_flops, roof.bandwidth) == (989e12, 3.35e12)
    assert roof.ridge_point == pytest.approx(295.22, rel=1e-4)
    (point,) = view.points
    assert point.intensity == pytest.approx(4096 / 3) and point.attainable == pytest.approx(989e12)
    assert point.label == "matmul m=4,096 · k=4,096 · n=4,096" and roof.label == "NVIDIA H100 SXM5 80GB, bf16"


L4 = RooflineView(
    roofs=(Roof("roof", 121e12, 300e9, 121e12 / 300e9),),
    points=(OperatingPoint("decode", 10.0, 3e12), OperatingPoint("prefill", 5000.0, 121e12)),
)


def _cells(text: str, glyph: str) -> tuple[int, int]:
    for row, line in enumerate(text.splitlines()):
        if glyph in line:
            return row, line.index(glyph)
    raise AssertionError(f"{glyph} not drawn")


@pytest.mark.parametrize("width", [60, 76, 116])
def test_points_fall_on_the_right_side_of_the_ridge_at_any_width(width: int) -> None:
    text = roofline_text(L4, width, 10).plain
    assert all(len(line) <= width for line in text.splitlines())
    decode_row, decode_column = _cells(text, MARKERS[0])
    prefill_row, prefill_column = _cells(text, MARKERS[1])
    _, ridge_column = _cells(text, "┊")
    assert decode_column < ridge_column < prefill_column  # memory-bound left, compute-bound right
    assert decode_row > prefill_row  # 3 TFLOP/s is lower on the chart than 121 TFLOP/s
    legend = text.replace("\u00a0", " ")  # figures are tied to their units by no-break spaces
    assert "ridge 403 FLOP/B" in legend and "121 TFLOP/s peak, 300 GB/s" in legend
    assert "decode: 10 FLOP/B, attainable 3 TFLOP/s" in legend


def test_points_that_share_a_cell_are_drawn_side_by_side() -> None:
    """On mha-vs-gqa one glyph hid the other; two points in one place must both show."""
    twins = RooflineView(
        roofs=L4.roofs,
        points=(OperatingPoint("GQA", 10.0, 3e12), OperatingPoint("MHA", 10.01, 3.003e12)),
    )
    text = roofline_text(twins, 76, 10).plain
    plot = "\n".join(text.splitlines()[:10])
    assert plot.count(MARKERS[0]) == 1 and plot.count(MARKERS[1]) == 1


def _problem(template_id: str, seed: int = 3) -> Problem:
    return generate(load_bank().get(template_id), seed, load_specs())


@pytest.mark.parametrize(
    "template_id",
    [
        "performance_model/optimal-batch",  # the knee batch and the ridge: no operation is asked
        "performance_model/fits-sweep",  # capacity only
        "kv_cache/max-batch",
        "kv_cache/mha-vs-gqa",
    ],
)
def test_a_question_that_asks_no_operation_gets_no_made_up_point(template_id: str) -> None:
    """These drew a batch-1 decode step (or an fp32 kernel under the bf16 roof) labelled "operation"."""
    for seed in range(5):
        assert _problem(template_id, seed).roofline is None


def test_time_to_first_token_plots_the_prefill_alone() -> None:
    problem = _problem("prefill_decode/time-to-first-token")
    view = problem.roofline
    assert view is not None
    (point,) = view.points
    prompt = int(problem.variant.params["prompt"])
    assert point.label == f"prefill, one prompt of {prompt:,} tokens"
    (roof,) = view.roofs
    # The template only draws prefills that are compute-bound, so the point sits on the flat roof.
    assert point.intensity > roof.ridge_point and point.attainable == pytest.approx(roof.peak_flops)


# The compute-bound-rows question on an H100 with k = n = 4096 in bf16: a matmul of m rows moves
# 2·(4096·m + 4096·m + 4096²) bytes for 2·m·4096² FLOP, an intensity of 4096·m / (2·m + 4096).
# The ridge is 989 TFLOP/s / 3.35 TB/s = 295.2: m = 256 gives 222.6 (memory-bound), m = 512
# gives 409.6 (compute-bound).
ROWS = """
id: matmul/rows-h100
title: Rows on an H100
family: matmul
difficulty: hard
workload: matmul
parameters:
  chip: {chip: {ids: [h100-sxm]}}
scenario: {chip: chip, dtype: bf16}
inputs: {m: 1, k: 4096, n: 4096, activation_bytes: 2, weight_bytes_per_param: 2}
parts:
  - {name: ridge, kind: numeric, prompt: Ridge?, answer: ridge_point, unit: FLOP/B}
  - name: compute_bound
    kind: multi
    prompt: Which m are compute-bound?
    sweep: {input: m, values: [64, 256, 512, 4096]}
    answer: bound == 1
"""


def test_a_sweep_plots_the_rows_asked_not_m_equals_one(tmp_path: Path) -> None:
    (template,) = load_folders([write_template(tmp_path, "matmul/rows-h100", ROWS)], tmp_path)
    view = generate(template, 0, load_specs()).roofline
    assert view is not None
    (roof,) = view.roofs
    assert [p.label for p in view.points] == [
        f"matmul m={m} · k=4,096 · n=4,096" for m in ("64", "256", "512", "4,096")
    ]
    intensities = {p.label.split(" · ")[0]: p.intensity for p in view.points}
    assert intensities["matmul m=256"] == pytest.approx(4096 * 256 / (2 * 256 + 4096))  # 222.6
    assert intensities["matmul m=512"] == pytest.approx(4096 * 512 / (2 * 512 + 4096))  # 409.6
    right_of_ridge = [p.label.split(" · ")[0] for p in view.points if p.intensity > roof.ridge_point]
    assert right_of_ridge == ["matmul m=512", "matmul m=4,096"]


def test_the_builtin_sweep_marks_the_same_rows_compute_bound_as_its_answer() -> None:
    for seed in range(5):
        problem = _problem("matmul/compute-bound-rows", seed)
        view = problem.roofline
        assert view is not None and len(view.points) == 7
        (roof,) = view.roofs
        compute = [
            p.label.split(" · ")[0].replace("matmul ", "")
            for p in view.points
            if p.intensity >= roof.ridge_point
        ]
        assert [c.replace(",", "") for c in compute] == [
            c.replace(" ", "").replace(",", "") for c in problem.parts[1].correct
        ]


def test_an_eager_chain_sits_where_its_unfused_kernels_run() -> None:
    """batch-doubling drew the chain fused, compute-bound at peak. Run eagerly, each of its kernels
    reads and writes every fp32 element for one operation: 1 FLOP per 8 bytes."""
    for seed in range(5):
        view = _problem("overhead/batch-doubling", seed).roofline
        assert view is not None
        (point,) = view.points
        (roof,) = view.roofs
        assert point.label.startswith("the chain run eagerly: ") and point.label.endswith(" kernels")
        assert point.intensity == pytest.approx(1 / 8)
        assert point.attainable == pytest.approx(roof.bandwidth / 8)  # deep in the memory-bound slope
        assert roof.label.endswith(", fp32")


def test_a_scenario_point_is_labelled_with_its_scenario() -> None:
    # Seed 6 draws int8 weights (1 B), the what-if bf16 (2 B): twice the bytes per weight.
    view = _problem("quantization/weight-only-decode", 6).roofline
    assert view is not None
    labels = [p.label for p in view.points]
    assert (
        len(labels) == 2
        and labels[1] == labels[0] + " (what-if: twice the bytes per weight)"  # bf16 weights vs int8
        and labels[0].startswith("decode step, batch ")
    )
