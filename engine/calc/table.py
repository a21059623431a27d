"""`perfdrill calc`'s subcommands as data: workload, results (a stable contract) and options.

Adding a subcommand is adding an entry here or in a topics_*.py module; prepare.py gathers its
formula inputs, and the command line (perfdrill/cli/calc.py) builds its parser and prints what the
inputs determine.
"""

from __future__ import annotations

from perfdrill.engine.calc.options import (
    ATTENTION,
    BATCH,
    COLLECTIVE_BYTES,
    COLLECTIVE_OP,
    CONTEXT,
    HARDWARE,
    LINK,
    MODEL,
    NO_OVERLAP,
    RUNTIME,
    WEIGHT_DTYPE,
    roofline_results,
)
from perfdrill.engine.calc.readers import batches, not_negative, quantity, whole
from perfdrill.engine.calc.scale import TOPICS_SCALE
from perfdrill.engine.calc.spec import Neglect, Option, Result, Subcommand, When
from perfdrill.engine.calc.topics_attention import TOPICS_ATTENTION
from perfdrill.engine.calc.topics_serving import TOPICS_SERVING
from perfdrill.engine.calc.topics_training import TOPICS_TRAINING
from perfdrill.engine.model import COMPUTE_DTYPES, training_bytes_per_param

SUBCOMMANDS: dict[str, Subcommand] = {
    s.name: s
    for s in (
        Subcommand(
            "roofline",
            "ridge point of a chip",
            "roofline",
            tuple(Result(n, n) for n in ("ridge_point", "system_flops", "system_bandwidth", "system_memory")),
            groups=(HARDWARE,),
        ),
        Subcommand(
            "matmul",
            "an (m x k) @ (k x n) matmul; the k x n operand is the weight",
            "matmul",
            (*roofline_results(), Result("compute_bound_batch", "compute_bound_m")),
            (
                NO_OVERLAP,
                *(Option(f"--{d}", f"{d} dimension", whole(), (d,), required=True) for d in ("m", "k", "n")),
                WEIGHT_DTYPE,
            ),
            (HARDWARE,),
        ),
        Subcommand(
            "elementwise",
            "an elementwise kernel over N elements",
            "elementwise",
            roofline_results(),
            (
                NO_OVERLAP,
                Option("--elements", "tensor elements", whole(), ("elements",), "N", required=True),
                Option(
                    "--ops-per-element",
                    "FLOPs per element (default 1)",
                    not_negative,
                    ("ops_per_element",),
                    "k",
                    1.0,
                ),
                Option("--inputs", "tensors read (default 1)", whole(), ("inputs",), "i", 1),
                Option("--outputs", "tensors written (default 1)", whole(), ("outputs",), "o", 1),
            ),
            (HARDWARE,),
            constants={"kernels": 1.0},
        ),
        Subcommand(
            "model",
            "parameter count, weight bytes and KV bytes per token",
            "model",
            tuple(
                Result(n, n)
                for n in (
                    *("params", "active_params", "weight_bytes", "kv_bytes_per_token"),
                    *("embedding_params", "attention_params", "mlp_params", "norm_and_router_params"),
                )
            ),
            (Option("--dtype", "storage dtype (default bf16)", default="bf16", choices=COMPUTE_DTYPES),),
            (MODEL,),
            model_level=True,
        ),
        Subcommand(
            "decode",
            "one decode step of a batch",
            "decode",
            (
                Result("flops", "flops"),
                Result("bytes", "bytes"),
                Result("compute_time", "compute_time"),
                Result("memory_time", "memory_time"),
                Result("step_time", "runtime", RUNTIME),
                Result("bound", "bound"),
                Result("tokens_per_second", "tokens_per_second"),
                Result("weight_bytes", "weight_bytes"),
                Result("kv_cache_bytes", "kv_cache_bytes"),
                Result("memory_required", "memory_required"),
                Result("fits", "fits"),
                Result("critical_batch", "critical_batch"),
                Result("max_batch", "max_batch"),
                Result("min_chips", "inference_min_chips"),
                *(Result(n, n) for n in ("free_memory", "memory_per_chip", "evicted_sequences")),
                Result("evicted_kv_bytes", "evicted_kv_bytes"),
            ),
            (
                CONTEXT,
                BATCH,
                ATTENTION,
                Option("--per-op", "sum per-operation rooflines", switch=True),
                NO_OVERLAP,
                Option(
                    "--expected-experts",
                    "a mixture of experts reads only the experts its batch is expected to route to",
                    supplies=("experts_touched",),  # refused where nothing reads it (--per-op)
                    switch=True,
                ),
            ),
            (HARDWARE, MODEL),
            workloads=(
                When("per_op", True, "decode_per_op"),
                When("attention_flops", True, "decode_attention"),
                When("expected_experts", True, "decode_moe"),
            ),
            zero_means_zero={"context": ("kv_cache_bytes",)},
            neglect=(
                Neglect(
                    "attention_flops_per_sequence",
                    "attention FLOPs are unknown and neglected: attention only reads its KV cache",
                    When("per_op", True, ""),
                ),
            ),
        ),
        Subcommand(
            "prefill",
            "processing a batch of prompts",
            "prefill",
            (
                Result("flops", "flops"),
                Result("compute_time", "compute_time"),
                Result("memory_time", "memory_time"),
                Result("time", "runtime", RUNTIME),
                Result("bound", "bound"),
            ),
            (
                BATCH,
                Option("--prompt", "prompt tokens per sequence", whole(), ("prompt",), "T", required=True),
                Option("--attention-flops", "count causal attention FLOPs too", switch=True),
                NO_OVERLAP,
            ),
            (HARDWARE, MODEL),
            workloads=(When("attention_flops", True, "prefill_attention"),),
        ),
        Subcommand(
            "train",
            "training time (6·N·D: N the parameters a token uses, embeddings counted as Chinchilla counts "
            "them; a mixture of experts' active ones) and memory",
            "train",
            tuple(
                Result(n, n)
                for n in (
                    *("flops", "time", "memory_required", "min_chips", "max_trainable_params"),
                    *("activation_memory", "checkpointed_activation_memory", "checkpointed_time"),
                    "logits_memory",
                )
            ),
            (
                Option("--batch", "sequences per step (for activation memory)", whole(), ("batch",), "B"),
                Option(
                    "--sequence", "tokens per sequence (for activation memory)", whole(), ("sequence",), "S"
                ),
                Option(
                    "--tokens",
                    "training tokens, e.g. 15e12 (memory needs none)",
                    quantity("token"),
                    ("tokens",),
                    "D",
                ),
                Option(
                    "--bytes-per-param",
                    "a number, or mixed-adam (16, default), mixed-adam-fp32-grads (18), mixed-adam-8bit (10)",
                    lambda text, _flag: training_bytes_per_param(text),
                    ("training_bytes_per_param",),
                    "b",
                    16.0,
                ),
            ),
            (HARDWARE, MODEL),
            exclude=("--bandwidth", "--mbu", "--kv-bytes-per-token", "--kv-dtype"),
        ),
        Subcommand(
            "collective",
            "ring collective time",
            "collective",
            (
                Result("time", "ring_pass_time", (When("op", "all-reduce", "all_reduce_time"),)),
                Result(
                    "time_with_latency",
                    "alpha_beta_all_gather_time",
                    (When("op", "all-reduce", "alpha_beta_all_reduce_time"),),
                ),
            ),
            (
                COLLECTIVE_OP,
                COLLECTIVE_BYTES,
                Option("--participants", "chips in the ring", whole(), ("participants",), "N", required=True),
                Option(
                    "--latency",
                    "time of one ring step (alpha), e.g. '5 us'",
                    quantity("s"),
                    ("link_latency",),
                    "Q",
                ),
            ),
            (LINK,),
        ),
        Subcommand(
            "sweep",
            "decode across batch sizes, with the optimal batch",
            "decode",
            (),
            (
                CONTEXT,
                ATTENTION,
                Option(
                    "--batches",
                    "batch sizes to try (default powers of 2 to 4096)",
                    batches,
                    metavar="1,2,4,…",
                    default=[2**i for i in range(13)],
                ),
            ),
            (HARDWARE, MODEL),
            workloads=(When("attention_flops", True, "decode_attention"),),
            constants={"batch": 1.0},  # each row sets its own; the exact optimum is found at batch 1
            zero_means_zero={"context": ("kv_cache_bytes",)},
            runner="sweep",
        ),
        *TOPICS_TRAINING,
        *TOPICS_ATTENTION,
        *TOPICS_SERVING,
        *TOPICS_SCALE,
    )
}
