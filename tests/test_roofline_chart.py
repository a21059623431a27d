"""The roofline of a variant (engine) and its terminal drawing (TUI), against hand-worked values."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfdrill.engine.model.specs import load_specs
from perfdrill.engine.problems.bank import load_folders
from perfdrill.engine.problems.generation import generate
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
