"""Turn a chip, a model and explicit overrides into the input values the formulas take."""

from __future__ import annotations

from dataclasses import dataclass

from perfdrill.engine.errors import SpecError, UsageError
from perfdrill.engine.model.specs import COMPUTE_DTYPES, DTYPE_BYTES, Chip, Model

# Training-state bytes per parameter, by named convention.
TRAINING_CONVENTIONS: dict[str, float] = {
    # bf16 weights 2 + bf16 grads 2 + fp32 master weights, Adam m and v 4+4+4 (ZeRO paper, Rajbhandari 2019)
    "mixed-adam": 16,
    # as above with fp32 gradients 4 instead of 2 (Megatron-LM's fp32 gradient accumulation)
    "mixed-adam-fp32-grads": 18,
    # bf16 weights 2 + bf16 grads 2 + fp32 master 4 + 8-bit Adam m and v 1+1 (bitsandbytes)
    "mixed-adam-8bit": 10,
}


@dataclass(frozen=True)
class Hardware:
    """What the roofline needs from a chip, after overrides."""

    peak_flops: float
    memory_bandwidth: float
    memory_capacity: float | None
    link_bandwidth: float | None
    chips: int = 1
    mfu: float = 1.0
    host_link_bandwidth: float | None = None
    fp32_peak_flops: float | None = None
    link_peer_bandwidth: float | None = None

    def inputs(self) -> dict[str, float]:
        values = {
            "peak_flops": self.peak_flops,
            "memory_bandwidth": self.memory_bandwidth,
            "chips": float(self.chips),
            "mfu": self.mfu,
        }
        if self.memory_capacity is not None:
            values["memory_capacity"] = self.memory_capacity
        for name in ("link_bandwidth", "host_link_bandwidth", "fp32_peak_flops", "link_peer_bandwidth"):
            if getattr(self, name) is not None:
                values[name] = getattr(self, name)
        return values


def hardware(
    chip: Chip | None,
    dtype: str,
    *,
    flops: float | None = None,
    bandwidth: float | None = None,
    memory: float | None = None,
    link_bandwidth: float | None = None,
    chips: int = 1,
    mfu: float = 1.0,
) -> Hardware:
    """Chip facts for `dtype`, with explicit values taking precedence over the chip's."""
    if dtype not in COMPUTE_DTYPES:
        raise UsageError(f"unknown compute dtype {dtype!r}; allowed: {', '.join(COMPUTE_DTYPES)}")
    if chips < 1:
        raise UsageError(f"--chips must be at least 1, not {chips}")
    if not 0 < mfu <= 1:
        raise UsageError(f"--mfu must be in (0, 1], not {mfu}")
    if flops is None:
        if chip is None:
            raise UsageError("give --chip or --flops")
        flops = chip.flops(dtype)
    if bandwidth is None:
        if chip is None:
            raise UsageError("give --chip or --bandwidth")
        bandwidth = chip.memory_bandwidth.value
    if memory is None and chip is not None:
        memory = chip.memory.value
    if link_bandwidth is None and chip is not None and chip.link_bandwidth is not None:
        link_bandwidth = chip.link_bandwidth.value
    for name, value in (("--flops", flops), ("--bandwidth", bandwidth), ("--memory", memory)):
        if value is not None and value <= 0:
            raise UsageError(f"{name} must be positive")
    host_link = chip.host_link_bandwidth if chip is not None else None
    fp32 = chip.peak_flops.get("fp32") if chip is not None else None
    peer = chip.link_peer_bandwidth if chip is not None else None
    return Hardware(
        flops,
        bandwidth,
        memory,
        link_bandwidth,
        chips,
        mfu,
        host_link.value if host_link is not None else None,
        fp32.value if fp32 is not None else None,
        peer.value if peer is not None else None,
    )


def dtype_bytes(dtype: str, option: str) -> float:
    if dtype not in DTYPE_BYTES:
        raise UsageError(f"{option}: unknown dtype {dtype!r}; allowed: {', '.join(DTYPE_BYTES)}")
    return DTYPE_BYTES[dtype]


def model_inputs(
    model: Model | None,
    *,
    weight_dtype: str,
    kv_dtype: str,
    arch: dict[str, float] | None = None,
    params: float | None = None,
    kv_bytes_per_token: float | None = None,
) -> dict[str, float]:
    """Architecture values (model's, then explicit flags), dtype sizes and direct overrides."""
    values: dict[str, float] = (
        model.formula_inputs()
        if model is not None
        else {
            "mlp_matrices": 3.0,
            "tied_embeddings": 0.0,
            "experts": 1.0,
            "experts_per_token": 1.0,
            "shared_experts": 0.0,
            "position_embeddings": 0.0,
        }
    )
    for name, value in (arch or {}).items():
        values[name] = float(value)
    if model is None and arch:
        values.setdefault("dense_layers", values.get("layers", 0.0) if values["experts"] <= 1 else 0.0)
        if "ffn" in values:
            values.setdefault("dense_ffn", values["ffn"])
    if values.get("experts_per_token", 1) > values.get("experts", 1):
        raise SpecError("experts per token must not exceed experts")
    values["weight_bytes_per_param"] = dtype_bytes(weight_dtype, "--weight-dtype")
    values["kv_bytes_per_element"] = dtype_bytes(kv_dtype, "--kv-dtype")
    if params is not None:
        values["params"] = params
        if values["experts"] <= 1:  # an MoE keeps its architecture's active count
            values["active_params"] = params
    if kv_bytes_per_token is not None:
        values["kv_bytes_per_token"] = kv_bytes_per_token
    return values


def training_bytes_per_param(text: str) -> float:
    """A named convention (mixed-adam = 16, ...) or a plain number of bytes per parameter."""
    if text in TRAINING_CONVENTIONS:
        return TRAINING_CONVENTIONS[text]
    try:
        value = float(text)
    except ValueError:
        names = ", ".join(f"{k} ({v:g})" for k, v in TRAINING_CONVENTIONS.items())
        raise UsageError(f"--bytes-per-param {text!r}: give a number or one of {names}") from None
    if value <= 0:
        raise UsageError("--bytes-per-param must be positive")
    return value
