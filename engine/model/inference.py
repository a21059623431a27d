"""Inference steps: one decode step (every sequence adds a token, reading the weights once and its
KV cache) and one prefill pass (every prompt token at once, writing its KV cache).

Serving, speculative, MoE and attention workloads build on these (engine/model/workloads.py).
"""

from __future__ import annotations

from sympy import Max, Piecewise, ceiling, floor

from perfdrill.engine.model.evaluation import CountRule
from perfdrill.engine.model.formulas import SYM, Formula, define, q
from perfdrill.engine.model.roofline import roofline


def fewest_chips(name: str, doc: str, short: str, label: str) -> Formula:
    """The fewest chips whose memory holds `memory_required`, graded exactly; `short` says what a
    count too small lacks ("the training state needs {need}")."""
    return define(
        name,
        ceiling(q("memory_required") / SYM["memory_capacity"]),
        "1",
        doc,
        exact=CountRule(
            "chips",
            False,
            "memory_required",
            "system_memory",
            fails="with chips = {value} there is {have} of memory but " + short,
            holds="with chips = {value} there is {have} of memory for the {need} needed,"
            " so fewer chips suffice",
        ),
        label=label,
        whole=True,
    )


def decode(attention: bool = False, per_op: bool = False, expert_reads: bool = False) -> list[Formula]:
    """One decode step: every sequence adds one token, reading all weights once plus its KV cache.

    With `expert_reads`, a mixture of experts reads only the routed experts its batch is expected
    to touch (engine/model/moe_serving.py), not every expert; a dense model reads the same either way.
    """
    weights_read = q("weights_read_bytes") if expert_reads else q("weight_bytes")
    weights_doc = (
        "the weights the batch's tokens route to are read once per step"
        if expert_reads
        else "weights are read once per step, shared by the batch"
    )
    attention_per_sequence = 4 * SYM["layers"] * SYM["heads"] * SYM["head_dim"] * SYM["context"]
    formulas = [
        define(
            "attention_flops_per_sequence",
            attention_per_sequence,
            "FLOP",
            "QKᵀ and attention times V over the context, 2 FLOP per multiply-add each",
            label="attention FLOPs per sequence",
        ),
        define(
            "flops_per_sequence",
            2 * q("active_params") + (q("attention_flops_per_sequence") if attention or per_op else 0),
            "FLOP",
            "2 FLOP per active parameter for the new token"
            + (" plus attention" if attention or per_op else ""),
            label="FLOPs per sequence",
        ),
        define(
            "kv_cache_bytes",
            SYM["batch"] * SYM["context"] * q("kv_bytes_per_token"),
            "byte",
            "each sequence's KV cache",
            label="KV cache",
        ),
        define(
            "flops",
            SYM["batch"] * q("flops_per_sequence"),
            "FLOP",
            "one token for each sequence",
            label="FLOPs",
        ),
        define(
            "bytes",
            weights_read + q("kv_cache_bytes"),
            "byte",
            weights_doc + "; each KV cache is read once",
            label="bytes moved",
        ),
    ]
    if per_op:
        formulas += [
            define(
                "weights_flops",
                2 * q("active_params") * SYM["batch"],
                "FLOP",
                "the weight matmuls",
                label="weight-matmul FLOPs",
            ),
            define(
                "weights_bytes",
                weights_read,
                "byte",
                weights_doc if expert_reads else "the weights, read once",
                label="weight-matmul bytes",
            ),
            define(
                "attention_flops",
                SYM["batch"] * q("attention_flops_per_sequence"),
                "FLOP",
                "attention over the cache",
                label="attention FLOPs",
            ),
            define(
                "attention_bytes",
                q("kv_cache_bytes"),
                "byte",
                "the KV caches, read once",
                label="attention bytes",
            ),
            *roofline("weights_"),
            *roofline("attention_"),
            define(
                "compute_time",
                q("weights_compute_time") + q("attention_compute_time"),
                "s",
                "sum over operations",
                label="compute time",
            ),
            define(
                "memory_time",
                q("weights_memory_time") + q("attention_memory_time"),
                "s",
                "sum over operations",
                label="memory time",
            ),
            define(
                "runtime",
                q("weights_runtime") + q("attention_runtime"),
                "s",
                "operations run one after another, each at its own roofline",
                label="runtime",
            ),
            *[f for f in roofline() if f.name in ("bound", "arithmetic_intensity")],
        ]
    else:
        formulas += roofline()
    return [
        *formulas,
        define(
            "memory_required",
            q("weight_bytes") + q("kv_cache_bytes"),
            "byte",
            "weights plus every KV cache",
            label="memory needed",
        ),
        define(
            "fits",
            Piecewise((1, q("memory_required") <= q("system_memory")), (0, True)),
            "1",
            "does it fit in memory",
            labels=("no", "yes"),
            phrases=("it does not fit", "it fits"),
            shown="yes if memory_required ≤ system_memory else no",
            label="memory check",  # the comparison, not a verdict: "fits: …, so it does not fit" read as both
        ),
        define(
            "tokens_per_second",
            SYM["batch"] / q("runtime"),
            "token/s",
            "one token per sequence per step",
            label="throughput",
        ),
        define(
            "larger_read",
            Piecewise((1, q("kv_cache_bytes") > q("weight_bytes")), (0, True)),
            "1",
            "which a decode step reads more of: the weights or the KV caches",
            labels=("the weights", "the KV cache"),
            phrases=("the weights are the larger read", "the KV cache is the larger read"),
            shown="the KV cache if kv_cache_bytes > weight_bytes else the weights",
            label="larger read",
        ),
        define(
            "critical_batch",
            q("ridge_point") * SYM["weight_bytes_per_param"] / 2 * SYM["experts"] / SYM["experts_per_token"],
            "1",
            "batch where weight-matmul intensity (2 × batch ÷ bytes per weight, × k/E for an MoE) meets "
            "the ridge",
            label="critical batch",
            whole=True,
        ),
        define(
            "max_batch",
            Max(
                0,
                floor((q("system_memory") - q("weight_bytes")) / (SYM["context"] * q("kv_bytes_per_token"))),
            ),
            "1",
            "largest batch whose KV caches fit beside the weights",
            exact=CountRule(
                "batch",
                True,
                "memory_required",
                "system_memory",
                fails="batch {value} needs {need} but {have} is available",
                holds="batch {value} needs {need} of the {have} available, so a larger batch fits too",
            ),
            label="largest batch",
            whole=True,
        ),
        fewest_chips(
            "inference_min_chips",
            "fewest chips whose memory holds the weights and these KV caches",
            "the weights and caches need {need}",
            "fewest chips to serve",
        ),
        define(
            "sequence_time_margin",
            q("flops_per_sequence") / q("system_flops")
            - SYM["context"] * q("kv_bytes_per_token") / q("system_bandwidth"),
            "s",
            "compute time an added sequence brings minus the KV read time it brings",
            label="time margin per sequence",
        ),
        define(
            "knee_batch",
            ceiling(q("weight_bytes") / q("system_bandwidth") / q("sequence_time_margin")),
            "1",
            "smallest batch whose compute time reaches its memory time (valid when the margin is positive)",
            exact=CountRule(
                "batch",
                False,
                "memory_time",
                "compute_time",
                fails="at batch {value} the memory time {need} still exceeds the compute time {have}",
                holds="at batch {value} the compute time {have} already covers the memory time {need},"
                " so a smaller batch is compute-bound too",
            ),
            label="knee batch",
            whole=True,
        ),
        define(
            "optimal_batch",
            Piecewise(
                (q("knee_batch"), (q("sequence_time_margin") > 0) & (q("knee_batch") <= q("max_batch"))),
                (q("max_batch"), True),
            ),
            "1",
            "the smallest compute-bound batch that fits, else the largest batch that fits",
            shown="knee_batch if sequence_time_margin > 0 and knee_batch ≤ max_batch else max_batch",
            exact=True,
            label="optimal batch",
            whole=True,
        ),
        define(
            "weights_knee_batch",
            ceiling(q("weight_bytes") / q("system_bandwidth") / (2 * q("active_params") / q("system_flops"))),
            "1",
            "smallest batch whose weight matmuls are compute-bound: where throughput stops growing "
            "when each operation runs at its own roofline, one after another",
            exact=True,
            label="weight-matmul knee batch",
            whole=True,
        ),
        define(
            "context_capacity",
            floor((q("system_memory") - q("weight_bytes")) / (SYM["batch"] * q("kv_bytes_per_token"))),
            "token",
            "longest context every sequence of the batch can cache beside the weights",
            label="context capacity",
            whole=True,
        ),
        define(
            "context_limit",
            Piecewise((1, q("context_capacity") >= SYM["context_window"]), (0, True)),
            "1",
            "which runs out first: memory for the cache or the model's context window",
            labels=("memory", "the model's context window"),
            phrases=("memory runs out first", "the context window runs out first"),
            shown="context window if context_capacity ≥ context_window else memory",
            label="context limit",
        ),
        define(
            "optimal_is_knee",
            Piecewise((1, (q("sequence_time_margin") > 0) & (q("knee_batch") <= q("max_batch"))), (0, True)),
            "1",
            "whether a compute-bound batch fits",
            labels=("largest batch that fits", "compute-bound knee"),
            phrases=("the largest batch that fits is best", "the compute-bound knee is best"),
            shown="knee if sequence_time_margin > 0 and knee_batch ≤ max_batch else largest fit",
            label="best batch",
        ),
    ]


def prefill(attention: bool = False, prefix: str = "") -> list[Formula]:
    """Processing each prompt in one pass and writing its KV cache.

    With a prefix ("prefill_") its flops, bytes and roofline can sit beside a decode step's.
    """
    return [
        define(
            "prompt_attention_flops",
            2 * SYM["layers"] * SYM["heads"] * SYM["head_dim"] * SYM["prompt"] ** 2,
            "FLOP",
            "causal attention over the prompt: half of 4 × layers × heads × head dim × prompt²",
            label="prompt attention FLOPs",
        ),
        define(
            "prompt_flops",
            2 * q("active_params") * SYM["prompt"] + (q("prompt_attention_flops") if attention else 0),
            "FLOP",
            "2 FLOP per active parameter per prompt token" + (" plus attention" if attention else ""),
            label="FLOPs per prompt",
        ),
        define(
            prefix + "flops",
            SYM["batch"] * q("prompt_flops"),
            "FLOP",
            "every prompt token of every sequence",
            label=f"{prefix.replace('_', ' ')}FLOPs",
        ),
        define(
            prefix + "bytes",
            q("weight_bytes") + SYM["batch"] * SYM["prompt"] * q("kv_bytes_per_token"),
            "byte",
            "weights read once, KV cache written once",
            label=f"{prefix.replace('_', ' ')}bytes moved",
        ),
        *roofline(prefix),
    ]
