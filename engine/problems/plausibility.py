"""Plausibility rules that `perfdrill check` enforces over every seed: set-ups a practitioner would
not object to, whatever a template's own constraints say. A rule reads a variant's values by name,
beside a few facts of the scenario's chip and model and of the variant (`CHIP_FACTS`, `MODEL_FACTS`,
`VARIANT_FACTS`); where a variant lacks one of them (no measured time, no layers, no chip, no
sliding window), or the rule is for other families, the rule does not apply.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from perfdrill.engine.errors import PerfdrillError
from perfdrill.engine.model.specs import Chip, Model
from perfdrill.engine.problems.variants import Variant

# What a rule may read about the scenario's chip, beside the engine's quantities.
CHIP_FACTS: dict[str, Callable[[Chip], float]] = {
    "chip_link": lambda chip: float(chip.link_bandwidth is not None),  # NVLink, Infinity Fabric, ICI
    "chip_hbm": lambda chip: float((chip.memory_type or "").startswith("HBM")),
    # fp8 tensor cores, or NVIDIA's weight-only fp8 kernels (Marlin), which need Ampere or later:
    # bf16 tensor cores mark those. A TPU v4 or v5e has no fp8 path at all.
    "chip_fp8_weights": lambda chip: float(
        "fp8" in chip.peak_flops or (chip.vendor == "NVIDIA" and "bf16" in chip.peak_flops)
    ),
}


def _sliding_window(model: Model) -> float:
    if model.sliding_window is None:
        raise TypeError("the model attends over its whole context")
    return model.sliding_window.value


# What a rule may read about the scenario's model.
MODEL_FACTS: dict[str, Callable[[Model], float]] = {"sliding_window": _sliding_window}
# The names under which a variant holds tokens in one sequence's KV cache: its decode context, the
# prompt it prefills. A sliding-window model (Mistral 7B v0.1) keeps at most its window of them in
# its local layers, and perfdrill sizes a full cache: longer, the set-up's numbers are wrong.
KV_TOKEN_NAMES = ("context", "prompt")


def _kv_tokens(variant: Variant) -> float:
    """The most tokens the variant keeps in one sequence's KV cache, under any of its names."""
    held = []
    for name in KV_TOKEN_NAMES:
        try:
            held.append(float(variant.lookup(name, None)))
        except (PerfdrillError, TypeError, ValueError):
            continue
    if not held:
        raise TypeError("no KV cache")
    return max(held)


def _fp8_weights(variant: Variant) -> float:
    drawn = variant.template.scenario.get("weight_dtype")
    if drawn is None:
        raise TypeError("no weight dtype")
    return float(variant.params.get(str(drawn), drawn) == "fp8")


# What a rule may read about the variant as a whole.
VARIANT_FACTS: dict[str, Callable[[Variant], float]] = {"kv_tokens": _kv_tokens, "fp8_weights": _fp8_weights}

# A model this large is trained with tensor parallelism over a chip-to-chip link (Megatron-LM's
# recipe), on HBM training parts. GDDR inference cards with no such link (L4, T4, A10G, RTX 4090)
# fine-tune small models; nobody trains a 13B, let alone a 405B, on them.
LARGE_TRAINING_PARAMS = 10e9
# A model split over several chips for serving takes at least this share of one chip's memory:
# below it a replica per chip serves better, and the split is no set-up anyone runs (GPT-2 small,
# 0.25 GB, over 4 x B200 of 180 GB each, is 0.03%). 1% still keeps a 7B in FP4 over 2 x B200 (1.9%).
SPLIT_SERVING_SHARE = 0.01
# "None of them" is a fair answer only as a near miss: the best option needs at most 1.5x what it
# has (the ZeRO-3 state 1.5x one GPU's memory). A hopeless set-up (DeepSeek-V3 on 8 x H100 PCIe,
# 10x over) asks nothing a practitioner would plan.
NONE_IS_CLOSE = 1.5
SERVING_FAMILIES = frozenset(
    {"serving", "prefill_decode", "kv_cache", "speculative", "quantization", "performance_model", "moe"}
)


@dataclass(frozen=True)
class Rule:
    name: str
    reads: tuple[str, ...]
    holds: Callable[[dict[str, float]], bool]
    says: str
    families: frozenset[str] | None = None  # the families it applies to; None: every family


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
    Rule(
        "trained-on-its-class",
        ("params", "chip_hbm", "chip_link"),
        lambda v: v["params"] <= LARGE_TRAINING_PARAMS or (v["chip_hbm"] == 1 and v["chip_link"] == 1),
        "a model over 10B parameters is trained only on HBM chips with a chip-to-chip link",
        frozenset({"training"}),
    ),
    Rule(
        "served-on-its-class",
        ("weight_bytes", "chips", "memory_capacity"),
        lambda v: v["chips"] <= 1 or v["weight_bytes"] >= SPLIT_SERVING_SHARE * v["memory_capacity"],
        "a model is split over several chips only if its weights take 1% of one chip's memory or more",
        SERVING_FAMILIES,
    ),
    Rule(
        "none-only-when-close",
        ("smallest_zero_stage", "zero3_state_bytes", "memory_capacity"),
        lambda v: (
            v["smallest_zero_stage"] < 4 or v["zero3_state_bytes"] <= NONE_IS_CLOSE * v["memory_capacity"]
        ),
        "'none of them' is the answer only when the best option needs at most 1.5x the memory it has",
    ),
    Rule(
        "kv-within-sliding-window",
        ("sliding_window", "kv_tokens"),
        lambda v: v["kv_tokens"] <= v["sliding_window"],
        "a sliding-window model's KV cache is sized over at most its window's tokens",
    ),
    Rule(
        "fp8-weights-where-held",
        ("fp8_weights", "chip_fp8_weights"),
        lambda v: v["fp8_weights"] == 0 or v["chip_fp8_weights"] == 1,
        "fp8 weights only on a chip with an fp8 path (fp8 tensor cores, or weight-only fp8 kernels)",
    ),
)


def _value(variant: Variant, name: str) -> float:
    if name in CHIP_FACTS:
        chip = variant.params.get(str(variant.template.scenario.get("chip")))
        if not isinstance(chip, Chip):
            raise TypeError("no chip drawn")
        return CHIP_FACTS[name](chip)
    if name in MODEL_FACTS:
        model = variant.params.get(str(variant.template.scenario.get("model")))
        if not isinstance(model, Model):
            raise TypeError("no model drawn")
        return MODEL_FACTS[name](model)
    if name in VARIANT_FACTS:
        return VARIANT_FACTS[name](variant)
    return float(variant.lookup(name, None))


def broken_rules(variant: Variant) -> list[str]:
    """What each rule that applies to `variant` and fails there says, with the rule's name."""
    broken = []
    for rule in RULES:
        if rule.families is not None and variant.template.family not in rule.families:
            continue
        try:
            values = {name: _value(variant, name) for name in rule.reads}
        except (PerfdrillError, TypeError, ValueError):
            continue  # the variant has no such value: the rule does not apply
        if not rule.holds(values):
            broken.append(f"plausibility rule {rule.name!r}: {rule.says}")
    return broken
