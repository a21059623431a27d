"""How engine names, and the cases an input's coded values stand for, read in words.

Kept free of sympy (the formula modules import it): calc, the worked steps and the practice app
read these at start-up, and generated_display.py imports VALUE_WORDS from here.
"""

from __future__ import annotations

# How the words of a name are written in a label: acronyms and names as people write them, so a
# worked solution never reads "tpot slo", "zero3 state bytes" or "l2 cache bytes" (issue 21).
_WORDS = {
    "slo": "SLO", "tpot": "TPOT", "ttft": "TTFT", "l2": "L2", "sm": "SM", "hbm": "HBM", "kv": "KV",
    "moe": "MoE", "mfu": "MFU", "dp": "DP", "tp": "TP", "fsdp": "FSDP", "mlp": "MLP", "gemv": "GEMV",
    "sram": "SRAM", "flops": "FLOPs", "io": "I/O", "zero": "ZeRO", "zero1": "ZeRO-1", "zero2": "ZeRO-2",
    "zero3": "ZeRO-3", "comm": "communication", "chinchilla": "Chinchilla", "qkvo": "Q, K, V and O",
    "min": "fewest", "fp4": "fp4", "nic": "NIC", "pd": "prefill-to-decode", "mamf": "MAMF",
    "busbw": "bus bandwidth", "algbw": "algorithm bandwidth",
}  # fmt: skip
_PHRASES = (
    ("all reduce", "all-reduce"),
    ("all gather", "all-gather"),
    ("all to all", "all-to-all"),
    ("reduce scatter", "reduce-scatter"),
    ("alpha beta", "α-β"),
    ("inter node", "inter-node"),
    ("intra node", "in-node"),
    ("recursive doubling", "recursive-doubling"),
    ("ZeRO point", "zero-point"),  # a quantized group's zero point is no ZeRO stage
)


def spoken(name: str) -> str:
    """A name as a person says it: "tpot_slo" is "TPOT SLO", "zero3_state_bytes" "ZeRO-3 state bytes"."""
    said = " ".join(_WORDS.get(word, word) for word in name.split("_"))
    for written, meant in _PHRASES:
        said = said.replace(written, meant)
    return said


def counted(count: int, noun: str, plural: str = "") -> str:
    """A count and its noun as a line of output says it, singular only for one: "1 problem",
    "31 files", "2,000 problems", "3 families" (with `plural`; else the noun and an s)."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"


# How a worked explanation says which case applies: input -> value -> a clause.
VALUE_WORDS = {
    "flaw": {  # inefficiencies.FLAWS numbers them
        1: "the timed code has no flaw",
        2: "the timed code does its math in fp32",
        3: "the timed code copies its data through the host",
        4: "the timed code launches kernels from a Python loop",
        5: "the timed code runs an unfused eager chain",
        6: "the timed code recomputes the prefix without a KV cache",
    },
    "transfer_link": {  # the path a KV cache crosses (serving.transfer_bandwidth)
        1: "the cache crosses the chip-to-chip link",
        2: "the cache crosses PCIe",
        3: "the cache crosses the network",
    },
}


# How a what-if names a case it switches to, after "With": input -> value -> a phrase.
SETTING_WORDS = {
    # a batch of one is a request prefilled or decoded alone, not "batch at 1 instead of 16";
    # {was} names the baseline, left out where a formula names the what-if briefly
    "batch": {1: "one request on its own instead of a batch of {was}"},
    "transfer_link": {
        1: "the cache sent over the chip-to-chip link",
        2: "the cache sent over PCIe",
        3: "the cache sent over the network",
    },
}
