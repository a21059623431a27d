"""Turn a chip, a model and explicit overrides into the input values the formulas take."""

from __future__ import annotations

import math
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
    """What the roofline needs from a chip, after overrides; None where neither gave a value."""

    peak_flops: float | None
    memory_bandwidth: float | None
    memory_capacity: float | None
    link_bandwidth: float | None
    chips: int = 1
    mfu: float = 1.0
    mbu: float = 1.0
    host_link_bandwidth: float | None = None
    fp32_peak_flops: float | None = None
    link_peer_bandwidth: float | None = None
    network_bandwidth: float | None = None
    sm_count: float | None = None
    l2_cache_bytes: float | None = None
    chip_hourly_price: float | None = None

    def inputs(self) -> dict[str, float]:
        """The known values as formula inputs (an unknown one is simply absent)."""
        values = {"chips": float(self.chips), "mfu": self.mfu, "mbu": self.mbu}
        for name in (
            "peak_flops",
            "memory_bandwidth",
            "memory_capacity",
            "link_bandwidth",
            "host_link_bandwidth",
            "fp32_peak_flops",
            "link_peer_bandwidth",
            "network_bandwidth",
            "sm_count",
            "l2_cache_bytes",
            "chip_hourly_price",
        ):
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
    mbu: float = 1.0,
) -> Hardware:
    """Chip facts for `dtype`, with explicit values taking precedence over the chip's.

    Without a chip, a value not given explicitly stays None: the formulas that need it are then
    left out by `evaluate_available`, and `evaluate` names it as missing.
    """
    if dtype not in COMPUTE_DTYPES:
        raise UsageError(f"unknown compute dtype {dtype!r}; allowed: {', '.join(COMPUTE_DTYPES)}")
    if chips < 1:
        raise UsageError(f"--chips must be at least 1, not {chips}")
    for name, fraction in (("--mfu", mfu), ("--mbu", mbu)):
        if not 0 < fraction <= 1:
            raise UsageError(f"{name} must be in (0, 1], not {fraction}")
    if chip is not None:
        flops = chip.flops(dtype) if flops is None else flops
        bandwidth = chip.memory_bandwidth.value if bandwidth is None else bandwidth
        memory = chip.memory.value if memory is None else memory
        if link_bandwidth is None and chip.link_bandwidth is not None:
            link_bandwidth = chip.link_bandwidth.value
    for name, value in (("--flops", flops), ("--bandwidth", bandwidth), ("--memory", memory)):
        if value is not None and value <= 0:
            raise UsageError(f"{name} must be positive")
    host_link = chip.host_link_bandwidth if chip is not None else None
    fp32 = chip.peak_flops.get("fp32") if chip is not None else None
    peer = chip.link_peer_bandwidth if chip is not None else None
    price = chip.price_per_hour if chip is not None else None
    return Hardware(
        peak_flops=flops,
        memory_bandwidth=bandwidth,
        memory_capacity=memory,
        link_bandwidth=link_bandwidth,
        chips=chips,
        mfu=mfu,
        mbu=mbu,
        host_link_bandwidth=host_link.value if host_link is not None else None,
        fp32_peak_flops=fp32.value if fp32 is not None else None,
        link_peer_bandwidth=peer.value if peer is not None else None,
        **_kernel_and_network_facts(chip),
        chip_hourly_price=price.value if price is not None else None,
    )


def _kernel_and_network_facts(chip: Chip | None) -> dict[str, float | None]:
    """SM count, L2 size and scale-out NIC bandwidth, where the spec records them."""
    fields = {"network_bandwidth": "network_bandwidth", "sm_count": "sm_count", "l2_cache_bytes": "l2_cache"}
    return {
        name: getattr(chip, field).value if chip is not None and getattr(chip, field) is not None else None
        for name, field in fields.items()
    }


def dtype_bytes(dtype: str, option: str) -> float:
    if dtype not in DTYPE_BYTES:
        raise UsageError(f"{option}: unknown dtype {dtype!r}; allowed: {', '.join(DTYPE_BYTES)}")
    return DTYPE_BYTES[dtype]


# What an architecture given by flags alone has unless a flag says otherwise: a gated MLP, untied
# embeddings, one expert, no learned position table.
FLAG_DEFAULTS: dict[str, float] = {
    "mlp_matrices": 3.0,
    "tied_embeddings": 0.0,
    "experts": 1.0,
    "experts_per_token": 1.0,
    "shared_experts": 0.0,
    "position_embeddings": 0.0,
}
# The spec fields that fix a model's attention outright (MLA): these flags would change nothing in them.
_ATTENTION_SHAPE = {
    "attention_params_per_layer": ("d_model", "heads", "kv_heads", "head_dim"),
    "kv_elements_per_token_per_layer": ("kv_heads", "head_dim"),
}


def stated_defaults(values: dict[str, float]) -> None:
    """Fill in place what every reference assumes when it is not stated: all layers dense in a dense
    model and none in a mixture of experts, dense MLPs as wide as `ffn`, `kv_heads = heads`
    (multi-head attention) and `head_dim = d_model / heads` (when it divides)."""
    moe = values.get("experts", 1.0) > 1
    if "layers" in values or moe:
        values.setdefault("dense_layers", 0.0 if moe else values.get("layers", 0.0))
    if "ffn" in values:
        values.setdefault("dense_ffn", values["ffn"])
    if "heads" in values:
        values.setdefault("kv_heads", values["heads"])
        if "d_model" in values and values["d_model"] % values["heads"] == 0:
            values.setdefault("head_dim", values["d_model"] // values["heads"])


def _refuse_what_the_spec_fixes(model: Model, arch: dict[str, float]) -> None:
    """An architecture flag the model's spec overrules is refused: its value would be echoed and unused."""
    if not model.is_moe:
        routing = [
            f"--{n.replace('_', '-')}" for n in ("experts", "experts_per_token") if arch.get(n, 1) != 1
        ]
        if routing:
            raise UsageError(
                f"{' and '.join(routing)} cannot apply to {model.id}, a dense model: describe a mixture "
                "of experts with the architecture flags instead of --model"
            )
    stated = model.formula_inputs()
    for fixed, shaped_by in _ATTENTION_SHAPE.items():
        flags = [f"--{n.replace('_', '-')}" for n in shaped_by if n in arch and fixed in stated]
        if flags:
            raise UsageError(
                f"{' and '.join(flags)} cannot apply to {model.id}: its spec gives "
                f"{fixed.replace('_', ' ')} directly ({stated[fixed]:,.0f}), which the flag would not "
                "change; describe the model with flags instead of --model"
            )


def model_inputs(
    model: Model | None,
    *,
    weight_dtype: str,
    kv_dtype: str,
    arch: dict[str, float] | None = None,
    params: float | None = None,
    active_params: float | None = None,
    kv_bytes_per_token: float | None = None,
) -> dict[str, float]:
    """Architecture values (model's, then explicit flags), dtype sizes and direct overrides.

    An override changes every result that rests on it, or is refused with a reason, never echoed
    and ignored: what the spec leaves to the defaults is derived after the flags (`--layers` on a
    dense model makes every layer dense), and a flag the spec overrules (`--heads` on a model whose
    attention is given outright) is refused. A total `params` sets a dense model's active count
    too; a mixture of experts keeps its architecture's active count unless `active_params` is given.
    """
    arch = dict(arch or {})
    if model is not None:
        _refuse_what_the_spec_fixes(model, arch)
    values = model.formula_inputs() if model is not None else dict(FLAG_DEFAULTS)
    values.update({name: float(value) for name, value in arch.items()})
    stated_defaults(values)
    experts, per_token = values["experts"], values["experts_per_token"]
    if per_token > experts:
        raise SpecError(f"experts per token ({per_token:g}) must not exceed experts ({experts:g})")
    if values.get("dense_layers", 0.0) > values.get("layers", float("inf")):
        raise UsageError(
            f"{values['dense_layers']:g} dense layers exceed the {values['layers']:g} layers "
            "(--dense-layers, --layers)"
        )
    if {"heads", "kv_heads"} & set(arch) and {"heads", "kv_heads"} <= set(values):
        heads, kv_heads = values["heads"], values["kv_heads"]
        if kv_heads > heads or heads % kv_heads:
            raise UsageError(f"{kv_heads:g} KV heads must divide {heads:g} query heads (--kv-heads, --heads)")
    values["weight_bytes_per_param"] = dtype_bytes(weight_dtype, "--weight-dtype")
    values["kv_bytes_per_element"] = dtype_bytes(kv_dtype, "--kv-dtype")
    moe = values["experts"] > 1
    if params is not None:
        values["params"] = params
        if not moe:
            values["active_params"] = params
    if active_params is not None:
        if not moe:
            raise UsageError(
                "--active-params is for a mixture of experts: give --experts and --experts-per-token "
                "too, or only --params for a dense model"
            )
        if params is not None and active_params > params:
            raise UsageError(f"--active-params ({active_params:g}) exceeds --params ({params:g})")
        values["active_params"] = active_params
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
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        names = ", ".join(f"{k} ({v:g})" for k, v in TRAINING_CONVENTIONS.items())
        raise UsageError(f"--bytes-per-param {text!r}: give a positive number or one of {names}")
    return value
