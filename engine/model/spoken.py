"""How an engine name reads in a label, without loading sympy (calc and the worked steps use it)."""

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
