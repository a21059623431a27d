"""Engine inputs no real system has, named before anything is computed from them.

A negative buffer or context, a model of no layers, or a contiguous cache reserved shorter than the
context it already holds all evaluate without error, to numbers that read as answers (a waste
fraction of −2,047). `perfdrill calc` refuses such inputs, and `perfdrill check` reports a template
whose drawn variants reach them; both read this one list.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NamedTuple

from perfdrill.engine.model.evaluation import INPUTS

# Inputs (and the parameter counts a template may pin) that are zero in no real chip or model.
POSITIVE = (
    "peak_flops",
    "memory_bandwidth",
    "memory_capacity",
    "chips",
    "layers",
    "d_model",
    "heads",
    "kv_heads",
    "head_dim",
    "vocab",
    "params",
    "active_params",
)


# The longest any run, training or otherwise, is given or asked for: a century, in seconds.
LONGEST_RUN = 100 * 365.25 * 86400


class Implausible(NamedTuple):
    """One impossible input, or pair of inputs: `names` in the order `text` mentions them."""

    names: tuple[str, ...]
    text: str  # with a {} for each name, filled in by said()

    def said(self, shown: Callable[[str], str]) -> str:
        """The message, each name shown as the caller names it (`--context 2048`, `context = 2,048`)."""
        return self.text.format(*(shown(name) for name in self.names))


def implausible(values: Mapping[str, float]) -> list[Implausible]:
    """Every input of `values` that no real system has, in INPUTS order."""
    found = []
    for name in (*INPUTS, "params", "active_params"):
        value = values.get(name)
        if value is None:
            continue
        if value < 0:
            found.append(Implausible((name,), "{} is negative: no size, count or time is"))
        elif value == 0 and name in POSITIVE:
            found.append(Implausible((name,), "{} is zero: no real chip or model has none"))
        elif name in INPUTS and INPUTS[name][0] == "s" and value > LONGEST_RUN:
            found.append(Implausible((name,), "{} is over a century: no run lasts that long"))
    reserved, context = values.get("reserved_tokens"), values.get("context")
    if reserved is not None and context is not None and reserved < context:
        found.append(
            Implausible(
                ("reserved_tokens", "context"),
                "{} is below {}: a cache reserved up front holds at least the tokens already in it",
            )
        )
    return found
