"""Plausibility rules that `perfdrill check` enforces over every seed: set-ups a practitioner would
not object to, whatever a template's own constraints say. A rule reads a variant's values by name;
where a variant lacks one of them (no measured time, no layers), the rule does not apply.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from perfdrill.engine.errors import PerfdrillError
from perfdrill.engine.problems.variants import Variant


@dataclass(frozen=True)
class Rule:
    name: str
    reads: tuple[str, ...]
    holds: Callable[[dict[str, float]], bool]
    says: str


RULES = (
    Rule(
        "measured-not-under-roofline",
        ("measured_runtime", "runtime"),
        lambda v: v["measured_runtime"] >= v["runtime"] * (1 - 1e-9),
        "a measured time is never faster than the datasheet roofline",
    ),
    Rule(
        "measured-step-over-its-kernels",
        ("measured_runtime", "layers", "kernel_floor"),
        lambda v: v["measured_runtime"] >= v["layers"] * v["kernel_floor"],
        "a measured model step runs at least one kernel per layer, each at least the kernel floor",
    ),
)


def broken_rules(variant: Variant) -> list[str]:
    """What each rule that applies to `variant` and fails there says, with the rule's name."""
    broken = []
    for rule in RULES:
        try:
            values = {name: float(variant.lookup(name, None)) for name in rule.reads}
        except (PerfdrillError, TypeError, ValueError):
            continue  # the variant has no such value: the rule does not apply
        if not rule.holds(values):
            broken.append(f"plausibility rule {rule.name!r}: {rule.says}")
    return broken
