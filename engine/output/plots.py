"""Printed roofline plots: matplotlib, vector SVG, one per problem that has a roofline."""

from __future__ import annotations

import io
import math

from perfdrill.engine.model.units import format_quantity
from perfdrill.engine.problems.roofline_view import RooflineView

_MARKERS = ("o", "D", "^", "s", "*", "v")


def roofline_svg(view: RooflineView, title: str = "") -> str:
    """The roofs, the ridge and each operating point on log-log axes, as SVG text."""
    import matplotlib

    matplotlib.use("Agg")  # no display: printing runs headless
    from matplotlib import pyplot as plt
    from matplotlib import ticker

    matplotlib.rcParams["svg.hashsalt"] = "perfdrill"  # stable element ids: same set, same file
    matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text, so PDFs stay searchable
    intensities = [p.intensity for p in view.points] + [r.ridge_point for r in view.roofs]
    low = 10 ** math.floor(math.log10(min(intensities)) - 0.3)
    high = 10 ** math.ceil(math.log10(max(intensities)) + 0.3)
    steps = 200
    xs = [low * (high / low) ** (i / steps) for i in range(steps + 1)]
    figure, axes = plt.subplots(figsize=(5.2, 2.6))
    right_half = math.log(view.roofs[0].ridge_point / low) > math.log(high / low) / 2
    for index, roof in enumerate(view.roofs):
        ys = [min(roof.peak_flops, x * roof.bandwidth) for x in xs]
        axes.plot(
            xs, ys, color="black" if index == 0 else "0.45", linestyle="-" if index == 0 else "--", lw=1.4
        )
        axes.annotate(
            f"{roof.label}: {format_quantity(roof.peak_flops, 'FLOP/s', digits=3)},"
            f" ridge {format_quantity(roof.ridge_point, 'FLOP/byte', digits=3)}",
            (roof.ridge_point, roof.peak_flops),
            textcoords="offset points",
            xytext=(-4 if right_half else 4, 4 + 9 * index),
            ha="right" if right_half else "left",  # keep the label inside the axes
            fontsize=7,
        )
    ridge = view.roofs[0].ridge_point
    axes.axvline(ridge, color="0.6", lw=0.8, linestyle=":")
    for index, point in enumerate(view.points):
        axes.plot(
            [point.intensity], [point.attainable], _MARKERS[index % len(_MARKERS)], color="black", ms=5,
            label=f"{point.label}: {format_quantity(point.intensity, 'FLOP/byte', digits=3)}",
        )  # fmt: skip
    axes.set_xscale("log")
    axes.set_yscale("log")
    bottom = min(
        [p.attainable for p in view.points] + [min(r.peak_flops, low * r.bandwidth) for r in view.roofs]
    )
    axes.set_xlim(low, high)
    axes.set_ylim(bottom / 2, max(r.peak_flops for r in view.roofs) * 4)
    # Plain tick labels and no minor ticks: mathtext exponents made each plot ten times slower.
    axes.xaxis.set_minor_locator(ticker.NullLocator())
    axes.yaxis.set_minor_locator(ticker.NullLocator())
    axes.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: format_quantity(v, "1", digits=3)))
    axes.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: format_quantity(v, "FLOP/s", digits=3)))
    axes.set_xlabel("arithmetic intensity (FLOP/byte)", fontsize=8)
    axes.set_ylabel("attainable FLOP/s", fontsize=8)
    axes.tick_params(labelsize=7)
    axes.legend(fontsize=7, loc="lower right", frameon=False)
    if title:
        axes.set_title(title, fontsize=8)
    figure.subplots_adjust(left=0.17, right=0.94, bottom=0.17, top=0.92 if title else 0.96)
    out = io.StringIO()
    figure.savefig(out, format="svg", metadata={"Date": None, "Creator": None})
    plt.close(figure)
    return out.getvalue()
