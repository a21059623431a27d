"""Every quantity perfdrill knows, each defined once as a sympy expression.

Each formula is written in terms of its immediate dependencies (inputs or other formulas), so a
worked explanation can show one step at a time. Workloads group the formulas a calculation needs;
`engine.compiler` turns them into plain Python once and caches the result.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import sympy
from sympy import Max, Min, Piecewise, ceiling, floor


def _s(name: str) -> sympy.Symbol:
    return sympy.Symbol(name, positive=True)


# name -> (unit, meaning). Units are keys of engine.units.BASE_UNITS.
INPUTS: dict[str, tuple[str, str]] = {
    "peak_flops": ("FLOP/s", "dense peak FLOP/s of one chip in the compute dtype"),
    "memory_bandwidth": ("byte/s", "memory bandwidth of one chip"),
    "memory_capacity": ("byte", "memory capacity of one chip"),
    "chips": ("1", "chips the work is split over evenly"),
    "mfu": ("1", "fraction of peak FLOP/s actually achieved"),
    "link_bandwidth": ("byte/s", "one-way chip-to-chip link bandwidth"),
    "layers": ("1", "transformer layers"),
    "dense_layers": ("1", "layers with a dense MLP (all of them in a dense model)"),
    "d_model": ("1", "model width"),
    "heads": ("1", "attention (query) heads"),
    "kv_heads": ("1", "key/value heads"),
    "head_dim": ("1", "width of one head"),
    "ffn": ("1", "MLP width of one projection (of one expert in an MoE)"),
    "dense_ffn": ("1", "MLP width in dense layers"),
    "vocab": ("1", "vocabulary size"),
    "mlp_matrices": ("1", "matrices per MLP: 3 gated, 2 plain"),
    "tied_embeddings": ("1", "1 when the LM head reuses the embedding"),
    "experts": ("1", "routed experts per MoE layer"),
    "experts_per_token": ("1", "routed experts each token uses"),
    "shared_experts": ("1", "always-on experts per MoE layer"),
    "position_embeddings": ("1", "rows of a learned position table"),
    "weight_bytes_per_param": ("byte/parameter", "bytes per stored weight"),
    "kv_bytes_per_element": ("byte", "bytes per cached K or V element"),
    "activation_bytes": ("byte", "bytes per activation element"),
    "batch": ("1", "sequences processed together"),
    "context": ("token", "tokens already in each sequence's KV cache"),
    "prompt": ("token", "prompt tokens per sequence"),
    "tokens": ("token", "training tokens"),
    "m": ("1", "rows of the activation operand"),
    "k": ("1", "shared (reduction) dimension"),
    "n": ("1", "columns of the weight operand"),
    "elements": ("1", "tensor elements"),
    "ops_per_element": ("FLOP", "operations per element"),
    "inputs": ("1", "tensors read per element"),
    "outputs": ("1", "tensors written per element"),
    "kernels": ("1", "separate kernels in an unfused chain"),
    "participants": ("1", "chips in the collective"),
    "collective_bytes": ("byte", "size of the buffer being reduced or gathered"),
    "training_bytes_per_param": ("byte/parameter", "training-state bytes per parameter"),
}
SYM = {name: _s(name) for name in INPUTS}


@dataclass(frozen=True)
class Formula:
    name: str
    expr: sympy.Expr
    unit: str
    doc: str
    labels: tuple[str, str] | None = None  # (label for 0, label for 1) of a yes/no formula
    shown: str | None = None  # how a piecewise formula reads, since sympy's printing of one is noise


def _f(name: str, expr: sympy.Expr, unit: str, doc: str, **extra: object) -> Formula:
    return Formula(name, expr, unit, doc, **extra)  # type: ignore[arg-type]


def q(name: str) -> sympy.Symbol:
    """The symbol standing for another formula's value.

    Only real, never positive: a margin or a memory headroom can be negative, and a positive
    assumption would let sympy silently drop a comparison such as `margin > 0`.
    """
    return sympy.Symbol(name, real=True)


MODEL = [
    _f(
        "attention_params_per_layer",
        2 * SYM["d_model"] * SYM["head_dim"] * (SYM["heads"] + SYM["kv_heads"]),
        "parameter",
        "Q and O are d_model x heads·head_dim; K and V are d_model x kv_heads·head_dim",
    ),
    _f(
        "mlp_params_per_expert",
        SYM["mlp_matrices"] * SYM["d_model"] * SYM["ffn"],
        "parameter",
        "one MLP (one expert): mlp_matrices matrices of d_model x ffn",
    ),
    _f(
        "dense_mlp_params",
        SYM["mlp_matrices"] * SYM["d_model"] * SYM["dense_ffn"],
        "parameter",
        "the MLP of a dense layer",
    ),
    _f("norm_params_per_layer", 2 * SYM["d_model"], "parameter", "two norms per layer"),
    _f("router_params", SYM["d_model"] * SYM["experts"], "parameter", "the MoE router of one layer"),
    _f("moe_layers", SYM["layers"] - SYM["dense_layers"], "1", "layers whose MLP is a mixture of experts"),
    _f(
        "embedding_params",
        (2 - SYM["tied_embeddings"]) * SYM["vocab"] * SYM["d_model"]
        + SYM["position_embeddings"] * SYM["d_model"]
        + SYM["d_model"],
        "parameter",
        "token embedding, LM head unless tied, learned positions and the final norm",
    ),
    _f(
        "params",
        q("embedding_params")
        + SYM["dense_layers"]
        * (q("attention_params_per_layer") + q("dense_mlp_params") + q("norm_params_per_layer"))
        + q("moe_layers")
        * (
            q("attention_params_per_layer")
            + (SYM["experts"] + SYM["shared_experts"]) * q("mlp_params_per_expert")
            + q("router_params")
            + q("norm_params_per_layer")
        ),
        "parameter",
        "every weight of the model",
    ),
    _f(
        "active_params",
        q("embedding_params")
        + SYM["dense_layers"]
        * (q("attention_params_per_layer") + q("dense_mlp_params") + q("norm_params_per_layer"))
        + q("moe_layers")
        * (
            q("attention_params_per_layer")
            + (SYM["experts_per_token"] + SYM["shared_experts"]) * q("mlp_params_per_expert")
            + q("router_params")
            + q("norm_params_per_layer")
        ),
        "parameter",
        "the weights one token actually uses (routed experts_per_token of the experts)",
    ),
    _f(
        "weight_bytes",
        q("params") * SYM["weight_bytes_per_param"],
        "byte",
        "all weights in their storage dtype",
    ),
    _f(
        "kv_elements_per_token_per_layer",
        2 * SYM["kv_heads"] * SYM["head_dim"],
        "1",
        "K and V, one vector per KV head",
    ),
    _f(
        "kv_bytes_per_token",
        SYM["layers"] * q("kv_elements_per_token_per_layer") * SYM["kv_bytes_per_element"],
        "byte/token",
        "KV cache one token adds across all layers",
    ),
]

SYSTEM = [
    _f(
        "system_flops",
        SYM["chips"] * SYM["peak_flops"] * SYM["mfu"],
        "FLOP/s",
        "FLOP/s of all chips at the achieved fraction of peak",
    ),
    _f("system_bandwidth", SYM["chips"] * SYM["memory_bandwidth"], "byte/s", "memory bandwidth of all chips"),
    _f("system_memory", SYM["chips"] * SYM["memory_capacity"], "byte", "memory of all chips"),
    _f(
        "ridge_point",
        q("system_flops") / q("system_bandwidth"),
        "FLOP/byte",
        "the intensity where compute time equals memory time",
    ),
]

_BOUND_LABELS = ("memory", "compute")


def roofline(prefix: str = "") -> list[Formula]:
    """The roofline of one operation whose work is `{prefix}flops` and traffic `{prefix}bytes`."""

    def p(name: str) -> sympy.Symbol:
        return q(prefix + name)

    return [
        _f(prefix + "arithmetic_intensity", p("flops") / p("bytes"), "FLOP/byte", "FLOPs per byte moved"),
        _f(prefix + "compute_time", p("flops") / q("system_flops"), "s", "time if only the math mattered"),
        _f(
            prefix + "memory_time",
            p("bytes") / q("system_bandwidth"),
            "s",
            "time if only the memory traffic mattered",
        ),
        _f(
            prefix + "runtime",
            Max(p("compute_time"), p("memory_time")),
            "s",
            "roofline: the slower of compute and memory, which overlap",
        ),
        _f(
            prefix + "runtime_no_overlap",
            p("compute_time") + p("memory_time"),
            "s",
            "pessimistic: compute and memory do not overlap",
        ),
        _f(
            prefix + "bound",
            Piecewise((1, p("compute_time") >= p("memory_time")), (0, True)),
            "1",
            "which of the two takes longer",
            labels=_BOUND_LABELS,
            shown=f"compute if {prefix}compute_time ≥ {prefix}memory_time else memory",
        ),
        _f(
            prefix + "attainable_flops",
            Min(q("system_flops"), p("arithmetic_intensity") * q("system_bandwidth")),
            "FLOP/s",
            "the roof at this intensity",
        ),
    ]


MATMUL = [
    _f("flops", 2 * SYM["m"] * SYM["k"] * SYM["n"], "FLOP", "one multiply and one add per (m, k, n)"),
    _f(
        "bytes",
        (SYM["m"] * SYM["k"] + SYM["m"] * SYM["n"]) * SYM["activation_bytes"]
        + SYM["k"] * SYM["n"] * SYM["weight_bytes_per_param"],
        "byte",
        "read the m x k input and the k x n weight, write the m x n output",
    ),
]

ELEMENTWISE = [
    _f(
        "flops",
        SYM["elements"] * SYM["ops_per_element"],
        "FLOP",
        "every element gets ops_per_element operations",
    ),
    _f(
        "bytes",
        SYM["elements"] * (SYM["inputs"] + SYM["outputs"]) * SYM["activation_bytes"],
        "byte",
        "each input read once and each output written once from memory",
    ),
    _f(
        "unfused_bytes",
        SYM["kernels"] * q("bytes"),
        "byte",
        "unfused, every kernel of the chain reads and writes memory again",
    ),
    _f(
        "unfused_memory_time",
        q("unfused_bytes") / q("system_bandwidth"),
        "s",
        "memory time of the unfused chain",
    ),
    _f(
        "break_even_ops",
        q("ridge_point") * (SYM["inputs"] + SYM["outputs"]) * SYM["activation_bytes"],
        "FLOP",
        "operations per element at which the kernel stops being memory-bound",
    ),
]


def decode(attention: bool = False, per_op: bool = False) -> list[Formula]:
    """One decode step: every sequence adds one token, reading all weights once plus its KV cache."""
    attention_per_sequence = 4 * SYM["layers"] * SYM["heads"] * SYM["head_dim"] * SYM["context"]
    formulas = [
        _f(
            "attention_flops_per_sequence",
            attention_per_sequence,
            "FLOP",
            "QK^T and attention-times-V over the context, 2 FLOP per multiply-add each",
        ),
        _f(
            "flops_per_sequence",
            2 * q("active_params") + (q("attention_flops_per_sequence") if attention or per_op else 0),
            "FLOP",
            "2 FLOP per active parameter for the new token"
            + (" plus attention" if attention or per_op else ""),
        ),
        _f(
            "kv_cache_bytes",
            SYM["batch"] * SYM["context"] * q("kv_bytes_per_token"),
            "byte",
            "each sequence's KV cache",
        ),
        _f("flops", SYM["batch"] * q("flops_per_sequence"), "FLOP", "one token for each sequence"),
        _f(
            "bytes",
            q("weight_bytes") + q("kv_cache_bytes"),
            "byte",
            "weights are read once per step, shared by the batch; each KV cache is read once",
        ),
    ]
    if per_op:
        formulas += [
            _f("weights_flops", 2 * q("active_params") * SYM["batch"], "FLOP", "the weight matmuls"),
            _f("weights_bytes", q("weight_bytes"), "byte", "the weights, read once"),
            _f(
                "attention_flops",
                SYM["batch"] * q("attention_flops_per_sequence"),
                "FLOP",
                "attention over the cache",
            ),
            _f("attention_bytes", q("kv_cache_bytes"), "byte", "the KV caches, read once"),
            *roofline("weights_"),
            *roofline("attention_"),
            _f(
                "compute_time",
                q("weights_compute_time") + q("attention_compute_time"),
                "s",
                "sum over operations",
            ),
            _f(
                "memory_time",
                q("weights_memory_time") + q("attention_memory_time"),
                "s",
                "sum over operations",
            ),
            _f(
                "runtime",
                q("weights_runtime") + q("attention_runtime"),
                "s",
                "operations run one after another, each at its own roofline",
            ),
            *[f for f in roofline() if f.name in ("bound", "arithmetic_intensity")],
        ]
    else:
        formulas += roofline()
    return [
        *formulas,
        _f("memory_required", q("weight_bytes") + q("kv_cache_bytes"), "byte", "weights plus every KV cache"),
        _f(
            "fits",
            Piecewise((1, q("memory_required") <= q("system_memory")), (0, True)),
            "1",
            "does it fit in memory",
            labels=("no", "yes"),
            shown="yes if memory_required ≤ system_memory else no",
        ),
        _f("tokens_per_second", SYM["batch"] / q("runtime"), "token/s", "one token per sequence per step"),
        _f(
            "critical_batch",
            q("ridge_point") * SYM["weight_bytes_per_param"] / 2 * SYM["experts"] / SYM["experts_per_token"],
            "1",
            "batch where weight-matmul intensity (2·batch/bytes per weight, × k/E for MoE) meets the ridge",
        ),
        _f(
            "max_batch",
            Max(
                0,
                floor((q("system_memory") - q("weight_bytes")) / (SYM["context"] * q("kv_bytes_per_token"))),
            ),
            "1",
            "largest batch whose KV caches fit beside the weights",
        ),
        _f(
            "sequence_time_margin",
            q("flops_per_sequence") / q("system_flops")
            - SYM["context"] * q("kv_bytes_per_token") / q("system_bandwidth"),
            "s",
            "compute time an added sequence brings minus the KV read time it brings",
        ),
        _f(
            "knee_batch",
            ceiling(q("weight_bytes") / q("system_bandwidth") / q("sequence_time_margin")),
            "1",
            "smallest batch whose compute time reaches its memory time (valid when the margin is positive)",
        ),
        _f(
            "optimal_batch",
            Piecewise(
                (q("knee_batch"), (q("sequence_time_margin") > 0) & (q("knee_batch") <= q("max_batch"))),
                (q("max_batch"), True),
            ),
            "1",
            "the smallest compute-bound batch that fits, else the largest batch that fits",
            shown="knee_batch if sequence_time_margin > 0 and knee_batch ≤ max_batch else max_batch",
        ),
        _f(
            "optimal_is_knee",
            Piecewise((1, (q("sequence_time_margin") > 0) & (q("knee_batch") <= q("max_batch"))), (0, True)),
            "1",
            "whether a compute-bound batch fits",
            labels=("largest batch that fits", "compute-bound knee"),
            shown="knee if sequence_time_margin > 0 and knee_batch ≤ max_batch else largest fit",
        ),
    ]


def prefill(attention: bool = False) -> list[Formula]:
    """Processing each prompt in one pass and writing its KV cache."""
    return [
        _f(
            "prompt_attention_flops",
            2 * SYM["layers"] * SYM["heads"] * SYM["head_dim"] * SYM["prompt"] ** 2,
            "FLOP",
            "causal attention over the prompt: half of 4·layers·heads·head_dim·prompt²",
        ),
        _f(
            "prompt_flops",
            2 * q("active_params") * SYM["prompt"] + (q("prompt_attention_flops") if attention else 0),
            "FLOP",
            "2 FLOP per active parameter per prompt token" + (" plus attention" if attention else ""),
        ),
        _f("flops", SYM["batch"] * q("prompt_flops"), "FLOP", "every prompt token of every sequence"),
        _f(
            "bytes",
            q("weight_bytes") + SYM["batch"] * SYM["prompt"] * q("kv_bytes_per_token"),
            "byte",
            "weights read once, KV cache written once",
        ),
        *roofline(),
    ]


TRAIN = [
    _f(
        "flops", 6 * q("params") * SYM["tokens"], "FLOP", "2 FLOP per parameter per token forward, 4 backward"
    ),
    _f("time", q("flops") / q("system_flops"), "s", "training FLOPs at the achieved FLOP/s"),
    _f(
        "memory_required",
        SYM["training_bytes_per_param"] * q("params"),
        "byte",
        "weights, gradients and optimizer state",
    ),
    _f(
        "min_chips",
        ceiling(q("memory_required") / SYM["memory_capacity"]),
        "1",
        "chips whose memory holds the training state",
    ),
]

COLLECTIVE = [
    _f(
        "ring_pass_time",
        SYM["collective_bytes"] * (SYM["participants"] - 1) / (SYM["participants"] * SYM["link_bandwidth"]),
        "s",
        "each chip sends (N-1)/N of the buffer once around the ring",
    ),
    _f("all_reduce_time", 2 * q("ring_pass_time"), "s", "a reduce-scatter followed by an all-gather"),
]

WORKLOADS: dict[str, Callable[[], list[Formula]]] = {
    "model": lambda: MODEL,
    "roofline": lambda: SYSTEM,
    "matmul": lambda: [*SYSTEM, *MATMUL, *roofline()],
    "elementwise": lambda: [*SYSTEM, *ELEMENTWISE, *roofline()],
    "decode": lambda: [*MODEL, *SYSTEM, *decode()],
    "decode_attention": lambda: [*MODEL, *SYSTEM, *decode(attention=True)],
    "decode_per_op": lambda: [*MODEL, *SYSTEM, *decode(per_op=True)],
    "prefill": lambda: [*MODEL, *SYSTEM, *prefill()],
    "prefill_attention": lambda: [*MODEL, *SYSTEM, *prefill(attention=True)],
    "train": lambda: [*MODEL, *SYSTEM, *TRAIN],
    "collective": lambda: COLLECTIVE,
}
