"""A printed step recomputes from what it prints (issue 21): a teacher works `substituted = result`
from the printed figures and must land on the printed result, to its last printed digit; a
comparison printed as a reason holds for its sides as printed.

The result is never changed (a part's result is the key, the engine's answer); where the values
as printed would land elsewhere, they are printed with the figures they need instead.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from functools import lru_cache

from perfdrill.engine.errors import PerfdrillError
from perfdrill.engine.model.formula_trees import Tree, evaluate
from perfdrill.engine.model.numbers import FIGURE, NBSP
from perfdrill.engine.model.units import parse_quantity

# A result on a rounding tie (687.5 printed 688) is reached by figures rounded to the nearest
# only in the limit (20.5333… ms approaches it from below): to within a billionth, the reader's
# float slack, at ten figures, seven more than a result's three.
MOST_EXTRA_FIGURES = 7
# How far past half a unit in its last place a result may be (relative), as a reader allows for
# float noise: a tie's figures land a ten-billionth short of 687.5 and still give 688.
TIE_SLACK = 1e-9


@lru_cache(maxsize=8192)  # the same figures recur in every step that reads them
def printed_value(text: str, unit: str) -> float:
    """The value a printed figure ("1.04 EFLOP/s", "0.0777 days", "45%") stands for, in `unit`."""
    return parse_quantity(text.replace(NBSP, " "), unit)


@lru_cache(maxsize=4096)
def half_last_place(text: str, unit: str) -> float:
    """Half a unit in the last printed place of `text`, in `unit`: 0.005 EFLOP/s for "1.04 EFLOP/s".
    A whole number's trailing zeros may be rounding (12,300), so its last place is its last digit
    that is not zero."""
    match = FIGURE.search(text)
    if match is None:
        raise PerfdrillError(f"no figure in {text!r}")
    digits = match[0].lstrip("\u2212").split(" ×")[0].rstrip("MBT").replace(",", "")
    if "." in digits:
        last = 10.0 ** -len(digits.split(".")[1])
    else:
        last = 10.0 ** (len(digits) - len(digits.rstrip("0") or "0"))
    mantissa = float(digits)
    if mantissa == 0:
        return 0.0
    return 0.5 * last * abs(printed_value(text, unit)) / mantissa


def extra_figures(
    tree: Tree,
    texts: Callable[[int], Mapping[str, str]],
    unit_of: Callable[[str], str],
    result: str,
    result_unit: str,
) -> int:
    """The fewest figures to add to every value a step prints so that the values as printed give
    its printed `result`: `texts(extra)` is how each name in `tree` prints with `extra` more."""
    try:
        target = printed_value(result, result_unit)
        half = half_last_place(result, result_unit)
    except PerfdrillError:
        return 0  # a result in words: nothing to recompute
    if isinstance(tree, tuple) and tree[0] in ("floor", "ceil"):
        half = 0.0  # a whole count is exact: ⌊687.8⌋ is not "690" rounded, its zero is no rounding
    for extra in range(MOST_EXTRA_FIGURES + 1):
        try:
            values = {name: printed_value(text, unit_of(name)) for name, text in texts(extra).items()}
            face = float(evaluate(tree, values))
        except (PerfdrillError, ArithmeticError, ValueError, TypeError):
            return 0
        if math.isfinite(face) and abs(face - target) <= half + TIE_SLACK * abs(target):
            return extra
    return 0


def shows_order(relation: str, left: str, right: str, unit: str, *, differ: bool) -> bool:
    """True when a comparison's printed sides bear it out: `left relation right` holds for the
    figures as printed (both in `unit`), and where the values differ the figures do too, since
    "180 µs < 180 µs" is false as printed and "1.23 ms ≥ 1.23 ms" hides which side is larger."""
    try:
        shown = printed_value(left, unit), printed_value(right, unit)
    except PerfdrillError:
        return True  # a side in words: nothing to compare
    return bool(evaluate((relation, *shown), {})) and (shown[0] != shown[1] or not differ)
