"""Roofline plots as plain geometry: log-log axes mapped to a unit square, ticks, lines, markers.

The PDF (Typst) and the HTML (inline SVG) draw this one description, so a plot looks the same in
both and costs almost nothing to lay out: matplotlib took 30-40 ms a plot, most of a 1,000-problem
set's time. Every number shown comes from the engine's RooflineView.
"""

from __future__ import annotations

import math
from typing import Any

from perfdrill.engine.model.units import format_quantity
from perfdrill.engine.problems.roofline_view import RooflineView

MARKERS = ("circle", "square", "triangle", "diamond")
DASHES = ("solid", "dashed", "dash-dotted", "dotted")  # the variant's own roof, then each what-if
_MIN_TICKS = 4  # fewer labelled values than this and a reader cannot interpolate on a log axis
_STEPS = ((1,), (1, 3), (1, 2, 5), (1, 2, 3, 4, 5, 6, 7, 8, 9))


def log_ticks(low: float, high: float) -> list[float]:
    """Tick values between `low` and `high`: decades, or 1-3, 1-2-5 steps when decades are few."""
    ticks: list[float] = []
    for steps in _STEPS:
        ticks = [
            mantissa * 10.0**exponent
            for exponent in range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1)
            for mantissa in steps
            if low * (1 - 1e-9) <= mantissa * 10.0**exponent <= high * (1 + 1e-9)
        ]
        if len(ticks) >= _MIN_TICKS:
            break
    return ticks


def _scale(low: float, high: float) -> Any:
    span = math.log10(high) - math.log10(low)
    return lambda value: round((math.log10(value) - math.log10(low)) / span, 4)


def roofline_plot(view: RooflineView, title: str) -> dict[str, Any]:
    """The plot of `view`: title, axes, ticks, roof lines, operating points and legend entries.

    Coordinates are fractions of the plot area, 0 at the bottom left and 1 at the top right.
    Each roof is named for what it draws: its chips, dtype and MFU, and a what-if's change.
    """
    intensities = [p.intensity for p in view.points] + [r.ridge_point for r in view.roofs]
    x_low = 10 ** math.floor(math.log10(min(intensities)) - 0.3)
    x_high = 10 ** math.ceil(math.log10(max(intensities)) + 0.3)
    lowest = min(
        [p.attainable for p in view.points] + [min(r.peak_flops, x_low * r.bandwidth) for r in view.roofs]
    )
    y_low = 10 ** math.floor(math.log10(lowest / 2))
    y_high = 10 ** math.ceil(math.log10(max(r.peak_flops for r in view.roofs) * 1.5))
    x, y = _scale(x_low, x_high), _scale(y_low, y_high)
    roofs = []
    for index, roof in enumerate(view.roofs):
        corners = [
            (x_low, x_low * roof.bandwidth),
            (roof.ridge_point, roof.peak_flops),
            (x_high, roof.peak_flops),
        ]
        label = roof.label  # the roof drawn: chips, dtype and MFU ("2 × H100, bf16 at 55% MFU")
        roofs.append(
            {
                "points": [[x(a), y(b)] for a, b in corners],
                "dash": DASHES[min(index, len(DASHES) - 1)],
                "label": f"{label}: {format_quantity(roof.peak_flops, 'FLOP/s', digits=3)}, ridge at "
                f"{format_quantity(roof.ridge_point, 'FLOP/byte', digits=3)}",
            }
        )
    points = []
    for index, point in enumerate(view.points):
        intensity = format_quantity(point.intensity, "FLOP/byte", digits=3)
        attainable = format_quantity(point.attainable, "FLOP/s", digits=3)
        points.append(
            {
                "x": x(point.intensity),
                "y": y(point.attainable),
                "marker": MARKERS[index % len(MARKERS)],
                "label": f"{point.label}: {intensity}, {attainable} attainable",
            }
        )
    return {
        "title": title,
        "x_label": "arithmetic intensity (FLOP/byte)",
        "y_label": "attainable FLOP/s",
        "x_ticks": [[x(v), format_quantity(v, "1", digits=3)] for v in log_ticks(x_low, x_high)],
        "y_ticks": [[y(v), format_quantity(v, "FLOP/s", digits=3)] for v in log_ticks(y_low, y_high)],
        "ridge": x(view.roofs[0].ridge_point),
        "roofs": roofs,
        "points": points,
    }
