"""Whole numbers that float arithmetic lands beside: 0.5 × 6.048e15 × 138e9 ÷ (69e9 × 16e12)
is 378 exactly, but floats make it 378.00000000000006, whose ceiling 379 is wrong. Every floor and
ceiling the engine takes (the generated formulas, formula trees worked from printed figures) reads
such a value as the whole number it stands for.
"""

from __future__ import annotations

import math
from typing import Any

# A few ulps over a dozen operations; figures with ten digits that land this near a whole number
# without being one do not occur.
_NOISE = 1e-12


def whole_if_noise(value: float) -> float:
    """`value`, or the whole number it is within float noise of."""
    if not math.isfinite(value):
        return value
    whole = round(value)
    return float(whole) if abs(value - whole) <= _NOISE * max(abs(value), 1.0) else value


def whole_if_noise_array(values: Any) -> Any:
    """`whole_if_noise` for each element of a numpy array (or a scalar beside arrays)."""
    import numpy  # only the numpy formulas call this: scalar start-up stays without numpy

    wholes = numpy.round(values)
    with numpy.errstate(invalid="ignore"):  # inf − inf: an infinite value is kept as it is
        near = numpy.abs(values - wholes) <= _NOISE * numpy.maximum(numpy.abs(values), 1.0)
    return numpy.where(near & numpy.isfinite(values), wholes, values)
