"""What `perfdrill calc`'s subcommands share: option groups (hardware, link, model) and results.

table.py, scale.py and the topics_*.py modules declare the subcommands from these; the command
line (perfdrill/cli/calc.py) builds the parsers.
"""

from __future__ import annotations

from perfdrill.engine import UsageError
from perfdrill.engine.calc.readers import fraction, not_negative, quantity, whole
from perfdrill.engine.calc.spec import Group, Option, Result, When
from perfdrill.engine.model import COMPUTE_DTYPES, DTYPE_BYTES, INPUTS, parse_quantity

DTYPES = tuple(DTYPE_BYTES)
ARCH_FLAGS = ("layers", "d_model", "heads", "kv_heads", "head_dim", "ffn", "vocab")
# Whole-number architecture flags beyond ARCH_FLAGS (0 is a value: no shared experts, no dense layer)
MORE_ARCH_FLAGS = (
    "experts",
    "experts_per_token",
    "shared_experts",
    "dense_layers",
    "dense_ffn",
    "position_embeddings",
)
MLP_MATRICES = {"gated": 3, "plain": 2}
STATED_DEFAULTS = {"kv_heads": " (default --heads)", "head_dim": " (default --d-model / --heads)"}

HARDWARE = Group(
    "hardware (explicit values override --chip)",
    (
        Option("--chip", "chip id (see `perfdrill specs chips`)"),
        Option("--dtype", "compute dtype (default bf16)", default="bf16", choices=COMPUTE_DTYPES),
        Option(
            "--flops",
            "peak FLOP/s of one chip, e.g. '989 TFLOP/s'",
            quantity("FLOP/s"),
            ("peak_flops",),
            "Q",
            echo="peak_flops",
        ),
        Option(
            "--bandwidth",
            "memory bandwidth of one chip, e.g. '3.35 TB/s'",
            quantity("byte/s"),
            ("memory_bandwidth",),
            "Q",
            echo="memory_bandwidth",
        ),
        Option(
            "--memory",
            "memory of one chip, e.g. '80 GB'",
            quantity("byte"),
            ("memory_capacity",),
            "Q",
            echo="memory_capacity",
        ),
        Option("--chips", "chips sharing the work evenly (default 1)", whole(), ("chips",), "N", 1),
        Option("--mfu", "achieved fraction of peak FLOP/s (default 1)", fraction, ("mfu",), "u", 1.0),
        Option("--mbu", "achieved fraction of memory bandwidth (default 1)", fraction, ("mbu",), "u", 1.0),
    ),
    source="--chip",
    source_supplies=("peak_flops", "memory_bandwidth", "memory_capacity"),
)

LINK = Group(
    "link (an explicit value overrides --chip)",
    (
        Option("--chip", "chip id whose one-way link bandwidth to use"),
        Option(
            "--link-bandwidth",
            "one-way link bandwidth, e.g. '450 GB/s'",
            quantity("byte/s"),
            ("link_bandwidth",),
            "Q",
        ),
    ),
    source="--chip",
    source_supplies=("link_bandwidth",),
)

WEIGHT_DTYPE = Option(
    "--weight-dtype",
    "weight storage dtype (default --dtype)",
    supplies=("weight_bytes_per_param",),
    choices=DTYPES,
)


def kv_bytes_per_token(text: str, flag: str) -> float:
    """A KV size per token, or 0 for a model run without a KV cache (a prefill that keeps none)."""
    if parse_quantity(text, "byte/token", what=flag) == 0:
        return 0.0
    return quantity("byte/token")(text, flag)


MODEL = Group(
    "model (architecture flags override --model)",
    (
        Option("--model", "model id (see `perfdrill specs models`)"),
        *(
            Option(
                f"--{name.replace('_', '-')}",
                INPUTS[name][1] + STATED_DEFAULTS.get(name, ""),
                whole(),
                (name, "dense_" + name) if name in ("layers", "ffn") else (name,),
                "N",
            )
            for name in ARCH_FLAGS
        ),
        Option(
            "--mlp",
            "gated (3 matrices: SwiGLU, GeGLU; the default) or plain (2: GPT-2, OPT, BLOOM)",
            supplies=("mlp_matrices",),
            choices=tuple(MLP_MATRICES),
        ),
        Option("--experts", "routed experts per MoE layer", whole(), ("experts",), "E"),
        Option("--experts-per-token", "routed experts each token uses", whole(), ("experts_per_token",), "K"),
        Option(
            "--shared-experts", "experts every token uses (default 0)", whole(0), ("shared_experts",), "N"
        ),
        Option(
            "--dense-layers",
            "layers with a dense MLP (default: all of a dense model, none of a mixture of experts)",
            whole(0),
            ("dense_layers",),
            "N",
        ),
        Option("--dense-ffn", "MLP width of the dense layers (default --ffn)", whole(), ("dense_ffn",), "N"),
        Option(
            "--position-embeddings",
            "rows of a learned position table (GPT-2, GPT-3; default 0)",
            whole(0),
            ("position_embeddings",),
            "N",
        ),
        Option(
            "--tied-embeddings",
            "the LM head reuses the embedding",
            supplies=("tied_embeddings",),
            switch=True,
        ),
        Option(
            "--params",
            "parameter count, overriding the architecture's",
            quantity("parameter"),
            ("params", "active_params"),
            "P",
        ),
        Option(
            "--active-params",
            "parameters one token uses (a mixture of experts)",
            quantity("parameter"),
            ("active_params",),
            "P",
        ),
        Option(
            "--kv-bytes-per-token",
            "KV cache bytes per token, e.g. '128 KiB' (0: no KV cache)",
            kv_bytes_per_token,
            ("kv_bytes_per_token",),
            "Q",
        ),
        WEIGHT_DTYPE,
        Option(
            "--kv-dtype",
            "KV cache dtype (default --dtype)",
            supplies=("kv_bytes_per_element",),
            choices=DTYPES,
        ),
    ),
    source="--model",
    source_supplies=tuple(
        name
        for flag in ARCH_FLAGS
        for name in ((flag, "dense_" + flag) if flag in ("layers", "ffn") else (flag,))
    ),
)

NO_OVERLAP = Option("--no-overlap", "runtime = compute + memory, not the max", switch=True)
ATTENTION = Option("--attention-flops", "count attention FLOPs too", switch=True)
CONTEXT = Option("--context", "tokens in each KV cache (0: none)", whole(0), ("context",), "S", required=True)
BATCH = Option("--batch", "sequences processed together", whole(), ("batch",), "B", required=True)


def acceptance_rate(text: str, flag: str) -> float:
    """A probability of acceptance: 0 or more and below 1 (at 1 every round would be endless)."""
    rate = not_negative(text, flag)
    if rate >= 1:
        raise UsageError(f"{flag} must be below 1, not {text.strip()!r}")
    return rate


ROOFLINE = ("flops", "bytes", "arithmetic_intensity", "compute_time", "memory_time")
RUNTIME = (When("no_overlap", True, "runtime_no_overlap"),)


COLLECTIVE_OP = Option(
    "--op", "the collective", choices=("all-gather", "reduce-scatter", "all-reduce"), required=True
)
COLLECTIVE_BYTES = Option(
    "--bytes",
    "buffer size, e.g. '1 GB'",
    quantity("byte"),
    ("collective_bytes",),
    "Q",
    required=True,
    echo="bytes",
)


def roofline_results() -> tuple[Result, ...]:
    return (
        *(Result(n, n) for n in ROOFLINE),
        Result("runtime", "runtime", RUNTIME),
        Result("bound", "bound"),
    )
