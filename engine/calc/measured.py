"""`calc matmul`'s measured results: the time XLA measured for the shape, beside the roofline."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from perfdrill.engine.model.measured import GRID_HIGH, GRID_LOW, load_measurements


def matmul_measured(echo: dict[str, Any], values: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """`measured_flops`, `measured_time` (the engine's FLOPs at the measured rate) and
    `fraction_of_roofline` (the engine's roofline time / measured time) where a measurement exists for
    the chip, dtype and shape, with a note saying whose it is."""
    chip, dtype = echo.get("chip"), echo.get("dtype", "bf16")
    if chip is None or any(echo.get(name) is None for name in ("m", "k", "n")):
        return {}, []
    m, k, n = (float(echo[name]) for name in ("m", "k", "n"))
    book = load_measurements()
    flops = book.matmul_flops(chip, dtype, m, k, n)
    if flops is None:
        have = ", ".join(f"{c} ({'/'.join(t)})" for c, t in sorted(book.matmul.items())) or "none"
        grid = f"m, k and n from {GRID_LOW[1]:,} to {GRID_HIGH[1]:,}"
        return {}, [f"measured_time: no measurement of this matmul (measured: {have}; {grid})"]
    time = values["flops"] / flops
    results: dict[str, Any] = {
        "measured_flops": {"value": flops, "unit": "FLOP/s"},
        "measured_time": {"value": time, "unit": "s"},
    }
    if "runtime" in values:
        results["fraction_of_roofline"] = {"value": values["runtime"] / time, "unit": "1"}
    how = (
        "a measured shape"
        if book.is_measured_shape(chip, dtype, m, k, n)
        else "interpolated between the measured shapes around it, as XLA's interpolator does"
    )
    source = book.matmul_source[chip]
    return results, [f"measured_time: measured by the {source.who} ({source.cite()}); {how}"]
