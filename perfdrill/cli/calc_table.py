"""`perfdrill calc`'s subcommands as data: workload, results (a stable contract) and options.

Adding a subcommand is adding an entry to SUBCOMMANDS; calc.py builds its parser, gathers its
formula inputs, and prints what the inputs determine.
"""

from __future__ import annotations

from perfdrill.cli.calc_spec import Group, Neglect, Option, Result, Subcommand, When
from perfdrill.cli.numbers import batches, fraction, not_negative, quantity, whole
from perfdrill.engine import UsageError
from perfdrill.engine.model import COMPUTE_DTYPES, DTYPE_BYTES, INPUTS, training_bytes_per_param

DTYPES = tuple(DTYPE_BYTES)
ARCH_FLAGS = ("layers", "d_model", "heads", "kv_heads", "head_dim", "ffn", "vocab")

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

MODEL = Group(
    "model (architecture flags override --model)",
    (
        Option("--model", "model id (see `perfdrill specs models`)"),
        *(
            Option(
                f"--{name.replace('_', '-')}",
                INPUTS[name][1],
                whole(),
                (name, "dense_" + name) if name in ("layers", "ffn") else (name,),
                "N",
            )
            for name in ARCH_FLAGS
        ),
        Option("--experts", "routed experts per MoE layer", whole(), ("experts",), "E"),
        Option("--experts-per-token", "routed experts each token uses", whole(), ("experts_per_token",), "K"),
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
            "KV cache bytes per token, e.g. '128 KiB'",
            quantity("byte/token"),
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


def _acceptance_rate(text: str, flag: str) -> float:
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


def _roofline_results() -> tuple[Result, ...]:
    return (
        *(Result(n, n) for n in ROOFLINE),
        Result("runtime", "runtime", RUNTIME),
        Result("bound", "bound"),
    )


SUBCOMMANDS: dict[str, Subcommand] = {
    s.name: s
    for s in (
        Subcommand(
            "roofline",
            "ridge point of a chip",
            "roofline",
            (Result("ridge_point", "ridge_point"),),
            groups=(HARDWARE,),
        ),
        Subcommand(
            "matmul",
            "an (m x k) @ (k x n) matmul; the k x n operand is the weight",
            "matmul",
            _roofline_results(),
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
            _roofline_results(),
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
            tuple(Result(n, n) for n in ("params", "active_params", "weight_bytes", "kv_bytes_per_token")),
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
            "training time and memory",
            "train",
            tuple(Result(n, n) for n in ("flops", "time", "memory_required", "min_chips")),
            (
                Option(
                    "--tokens",
                    "training tokens, e.g. 15e12",
                    quantity("token"),
                    ("tokens",),
                    "D",
                    required=True,
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
            exclude=("--bandwidth", "--mbu", "--active-params", "--kv-bytes-per-token", "--kv-dtype"),
        ),
        Subcommand(
            "collective",
            "ring collective time",
            "collective",
            (Result("time", "ring_pass_time", (When("op", "all-reduce", "all_reduce_time"),)),),
            (
                COLLECTIVE_OP,
                COLLECTIVE_BYTES,
                Option("--participants", "chips in the ring", whole(), ("participants",), "N", required=True),
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
        # Issue 13: sharded training state, the pipeline bubble, nccl-tests bandwidths, GEMM waves.
        Subcommand(
            "zero",
            "training state per GPU under plain data parallelism and ZeRO stages 1-3",
            "train_sharded",
            tuple(
                Result(n, n)
                for n in (
                    "replicated_state_bytes",
                    "zero1_state_bytes",
                    "zero2_state_bytes",
                    "zero3_state_bytes",
                    "smallest_zero_stage",
                )
            ),
            (
                Option(
                    "--dp-ranks",
                    "GPUs the state is sharded over (N_d)",
                    whole(),
                    ("dp_ranks",),
                    "N",
                    required=True,
                ),
                Option(
                    "--optimizer-bytes",
                    "optimizer bytes per parameter, K (default 12: fp32 master, m and v)",
                    not_negative,
                    ("optimizer_bytes_per_param",),
                    "K",
                    12.0,
                ),
            ),
            (HARDWARE, MODEL),
            exclude=("--bandwidth", "--mbu", "--active-params", "--kv-bytes-per-token", "--kv-dtype"),
        ),
        Subcommand(
            "pipeline",
            "the pipeline bubble of m micro-batches over p stages",
            "pipeline",
            (
                Result("bubble_fraction", "pipeline_bubble_fraction"),
                Result("step_time", "pipeline_step_time"),
                Result("interleaved_bubble_fraction", "interleaved_bubble_fraction"),
            ),
            (
                Option("--stages", "pipeline stages p", whole(), ("pipeline_stages",), "P", required=True),
                Option(
                    "--microbatches",
                    "micro-batches per step m",
                    whole(),
                    ("microbatches",),
                    "M",
                    required=True,
                ),
                Option(
                    "--stage-time",
                    "forward + backward of one micro-batch on one stage, e.g. '20 ms'",
                    quantity("s"),
                    ("stage_microbatch_time",),
                    "T",
                ),
                Option(
                    "--virtual-stages",
                    "model chunks per GPU, v (default 1)",
                    whole(),
                    ("virtual_stages",),
                    "V",
                    1,
                ),
            ),
        ),
        Subcommand(
            "busbw",
            "nccl-tests algorithm and bus bandwidth from a measured collective",
            "collective_latency",
            (
                Result("algbw", "algorithm_bandwidth"),
                Result(
                    "busbw",
                    "all_gather_bus_bandwidth",
                    (When("op", "all-reduce", "all_reduce_bus_bandwidth"),),
                ),
            ),
            (
                COLLECTIVE_OP,
                COLLECTIVE_BYTES,
                Option(
                    "--time",
                    "measured time, e.g. '4.2 ms'",
                    quantity("s"),
                    ("measured_runtime",),
                    "T",
                    required=True,
                ),
                Option("--participants", "GPUs taking part", whole(), ("participants",), "N", required=True),
            ),
        ),
        Subcommand(
            "waves",
            "tiles and waves of a compute-bound matmul on the SMs",
            "kernels",
            tuple(Result(n, n) for n in ("output_tiles", "waves", "wave_efficiency", "wave_quantized_time")),
            (
                *(Option(f"--{d}", f"{d} dimension", whole(), (d,), required=True) for d in ("m", "k", "n")),
                Option("--tile-m", "output rows per tile (default 128)", whole(), ("tile_m",), "R", 128),
                Option("--tile-n", "output columns per tile (default 128)", whole(), ("tile_n",), "C", 128),
                Option("--sms", "streaming multiprocessors (overrides --chip)", whole(), ("sm_count",), "S"),
            ),
            (HARDWARE,),
            exclude=("--bandwidth", "--mbu"),
        ),
        # Issue 13, topics 5-7: attention in decode, quantization beyond weights, MoE serving.
        Subcommand(
            "attention",
            "attention in one decode step, beside the weight matmuls (each at its own roofline)",
            "attention_decode",
            (
                Result("arithmetic_intensity", "attention_arithmetic_intensity"),
                Result("flops", "attention_flops"),
                Result("bytes", "attention_bytes"),
                Result("time", "attention_runtime"),
                Result("step_time", "runtime"),
                Result("time_share", "attention_time_share"),
                Result("flop_share", "attention_flop_share"),
                Result("crossover_context", "attention_crossover_context"),
                Result("compute_bound", "decode_ops_bound"),
            ),
            (
                Option("--context", "tokens in each KV cache", whole(), ("context",), "S", required=True),
                BATCH,
            ),
            (HARDWARE, MODEL),
        ),
        Subcommand(
            "flash-attention",
            "HBM traffic of one attention layer: standard (materialised S and P) vs FlashAttention",
            "flash_attention",
            (
                Result("standard_bytes", "standard_attention_hbm_bytes"),
                Result("flash_bytes", "flash_attention_hbm_bytes"),
                Result("block_rows", "flash_block_rows"),
                Result("passes", "flash_outer_passes"),
                Result("ratio", "flash_io_ratio"),
                Result("score_matrix_bytes", "score_matrix_bytes"),
            ),
            (
                BATCH,
                Option("--sequence", "tokens per sequence", whole(), ("sequence",), "N", required=True),
                Option(
                    "--sram",
                    "SRAM one block of work may fill, e.g. '100 KB'",
                    quantity("byte"),
                    ("sram_bytes",),
                    "Q",
                    required=True,
                ),
                Option("--dtype", "activation dtype (default bf16)", default="bf16", choices=COMPUTE_DTYPES),
            ),
            (MODEL,),
        ),
        Subcommand(
            "quantize",
            "group-quantized weights: bits per weight with the scales, and their bytes",
            "quantization",
            (
                Result("bits_per_weight", "quantized_bits_per_value"),
                Result("bytes_per_weight", "quantized_bytes_per_param"),
                Result("weight_bytes", "quantized_weight_bytes"),
                Result("scale_bytes", "scale_bytes"),
            ),
            (
                Option(
                    "--bits", "bits of each quantized weight", whole(), ("quant_bits",), "b", required=True
                ),
                Option(
                    "--group-size",
                    "weights that share one scale",
                    whole(),
                    ("group_size",),
                    "G",
                    required=True,
                ),
                Option(
                    "--scale-bits",
                    "bits stored per group: scale plus any zero point (default 16)",
                    whole(0),
                    ("scale_bits",),
                    "s",
                    16,
                ),
                Option(
                    "--dtype",
                    "dtype of the unquantized weights (default bf16)",
                    default="bf16",
                    choices=DTYPES,
                ),
            ),
            (MODEL,),
            exclude=("--kv-dtype", "--kv-bytes-per-token"),
        ),
        Subcommand(
            "moe",
            "one MoE layer under expert parallelism: all-to-all, expert math and load imbalance",
            "expert_parallel",
            (
                Result("all_to_all_bytes", "all_to_all_bytes"),
                Result("all_to_all_time", "all_to_all_time"),
                Result("forward_all_to_all_time", "moe_all_to_all_time"),
                Result("expert_compute_time", "expert_compute_time"),
                Result("expert_read_time", "local_expert_read_time"),
                Result("layer_time", "moe_layer_time"),
                Result("imbalance_slowdown", "imbalance_slowdown"),
            ),
            (
                Option(
                    "--tokens",
                    "tokens each chip brings to the layer",
                    whole(),
                    ("batch",),
                    "T",
                    required=True,
                ),
                Option(
                    "--ep",
                    "chips the experts are spread over",
                    whole(),
                    ("participants",),
                    "N",
                    required=True,
                ),
                Option(
                    "--busiest-share",
                    "share of the routed assignments the busiest chip gets (1/N when even)",
                    fraction,
                    ("busiest_share",),
                    "u",
                ),
                Option(
                    "--link-bandwidth",
                    "one-way link bandwidth to every peer, e.g. '450 GB/s'",
                    quantity("byte/s"),
                    ("link_bandwidth", "link_peer_bandwidth"),
                    "Q",
                ),
            ),
            (HARDWARE, MODEL),
            constants={"sequence": 1.0},
        ),
        # Issue 13, serving and training economics (engine/model/serving.py)
        Subcommand(
            "serve",
            "serving latency, the largest batch under a TPOT target, throughput per chip and cost",
            "serving_latency",
            (
                Result("ttft", "ttft"),
                Result("tpot", "tpot"),
                Result("request_latency", "request_latency"),
                Result("tokens_per_second", "tokens_per_second"),
                Result("tokens_per_second_per_chip", "tokens_per_second_per_chip"),
                Result("cost_per_million_tokens", "cost_per_million_tokens"),
                Result("max_batch", "max_batch"),
                Result("slo_batch", "slo_batch"),
                Result("slo_limit", "slo_limit"),
            ),
            (
                CONTEXT,
                BATCH,
                Option("--prompt", "prompt tokens per request, for the TTFT", whole(), ("prompt",), "T"),
                Option("--output-tokens", "tokens each request generates", whole(), ("output_tokens",), "O"),
                Option(
                    "--tpot-slo",
                    "time-per-output-token target, e.g. '50 ms'",
                    quantity("s"),
                    ("tpot_slo",),
                    "Q",
                ),
                Option(
                    "--price",
                    "one chip's hourly price, e.g. '2.50 USD/h' (default: the chip's list price)",
                    quantity("USD/h"),
                    ("chip_hourly_price",),
                    "Q",
                ),
            ),
            (HARDWARE, MODEL),
        ),
        Subcommand(
            "kv-paging",
            "KV caches reserved at the maximum length, in pages, and with a shared prefix cached once",
            "kv_paging",
            tuple(
                Result(n, n)
                for n in (
                    "max_batch",
                    "reserved_max_batch",
                    "reserved_waste_fraction",
                    "paged_max_batch",
                    "paged_waste_fraction",
                    "prefix_kv_bytes_saved",
                    "prefix_max_batch",
                )
            ),
            (
                Option(
                    "--context",
                    "tokens each sequence holds, on average",
                    whole(),
                    ("context",),
                    "S",
                    required=True,
                ),
                Option("--batch", "sequences sharing the prefix (default 1)", whole(), ("batch",), "B", 1),
                Option(
                    "--reserved-tokens",
                    "the longest a sequence may grow, reserved up front",
                    whole(),
                    ("reserved_tokens",),
                    "T",
                ),
                Option("--page-size", "tokens per KV page (default 16)", whole(), ("page_size",), "P", 16),
                Option(
                    "--shared-prefix",
                    "prompt tokens every sequence shares",
                    whole(0),
                    ("shared_prefix",),
                    "T",
                ),
            ),
            (HARDWARE, MODEL),
            exclude=("--bandwidth", "--mbu"),
        ),
        Subcommand(
            "chunked-prefill",
            "a decode step carrying a chunk of a new prompt",
            "chunked_prefill",
            (
                Result("step_time", "runtime"),
                Result("mixed_step_time", "mixed_runtime"),
                Result("mixed_bound", "mixed_bound"),
                Result("chunk_slowdown", "chunk_slowdown"),
                Result("free_chunk", "free_chunk"),
                Result("prefill_chunks", "prefill_chunks"),
                Result("chunked_ttft", "chunked_ttft"),
            ),
            (
                CONTEXT,
                BATCH,
                Option("--chunk", "prompt tokens per step", whole(), ("chunk",), "C", required=True),
                Option("--prompt", "the new prompt's tokens, for its TTFT", whole(), ("prompt",), "T"),
            ),
            (HARDWARE, MODEL),
        ),
        Subcommand(
            "kv-transfer",
            "sending a prefilled KV cache to the decode chips, against the prefill",
            "disaggregation",
            (
                Result("kv_transfer_bytes", "kv_transfer_bytes"),
                Result("kv_transfer_time", "kv_transfer_time"),
                Result("prefill_time", "prefill_runtime"),
                Result("kv_transfer_share", "kv_transfer_share"),
                Result("serial_handoff", "serial_handoff"),
                Result("streamed_handoff", "streamed_handoff"),
                Result("transfer_hidden", "transfer_hidden"),
            ),
            (
                Option("--prompt", "prompt tokens per request", whole(), ("prompt",), "T", required=True),
                Option("--batch", "prompts prefilled together (default 1)", whole(), ("batch",), "B", 1),
                Option(
                    "--transfer-bandwidth",
                    "one-way bandwidth of each prefill chip's path, e.g. '450 GB/s' or '400 Gb/s'",
                    quantity("byte/s"),
                    ("transfer_bandwidth",),
                    "Q",
                    required=True,
                ),
            ),
            (HARDWARE, MODEL),
        ),
        Subcommand(
            "mfu",
            "model FLOPs utilisation of a measured training run (6 FLOP per parameter per token)",
            "train_economics",
            tuple(
                Result(n, n) for n in ("training_throughput", "achieved_flops", "achieved_mfu", "mfu_verdict")
            ),
            (
                Option(
                    "--tokens",
                    "tokens trained in the measured time, e.g. '4M'",
                    quantity("token"),
                    ("tokens",),
                    "D",
                    required=True,
                ),
                Option(
                    "--time",
                    "the measured time, e.g. '1.8 s'",
                    quantity("s"),
                    ("measured_runtime",),
                    "Q",
                    required=True,
                ),
            ),
            (HARDWARE, MODEL),
            exclude=("--bandwidth", "--mbu", "--active-params", "--kv-bytes-per-token", "--kv-dtype"),
        ),
        Subcommand(
            "chinchilla",
            "the compute-optimal model size and tokens for a budget (C = 6·N·D, D = 20·N)",
            "train_economics",
            tuple(Result(n, n) for n in ("compute_budget", "chinchilla_params", "chinchilla_tokens")),
            (
                Option(
                    "--budget",
                    "training FLOPs, e.g. '5.88e23 FLOP' (or give --chip, --chips, --mfu and --run-time)",
                    quantity("FLOP"),
                    ("compute_budget",),
                    "C",
                ),
                Option("--run-time", "length of the run, e.g. '30 days'", quantity("s"), ("run_time",), "Q"),
                Option(
                    "--tokens-per-param",
                    "compute-optimal tokens per parameter (default 20, Hoffmann et al. 2022)",
                    quantity("1"),
                    ("tokens_per_param",),
                    "r",
                    20.0,
                ),
            ),
            (HARDWARE,),
            exclude=("--bandwidth", "--mbu"),
        ),
        # Issue 13, speculative decoding (engine/model/speculative.py; Leviathan et al. 2023)
        Subcommand(
            "speculative",
            "speculative decoding: tokens per round, the speed-up and the best draft length",
            "speculative",
            (
                Result("tokens_per_round", "expected_tokens_per_round"),
                Result("all_drafts_accepted", "all_drafts_accepted"),
                Result("speedup", "speculative_speedup"),
                Result("pays", "speculative_pays"),
                Result("best_draft_tokens", "best_draft_tokens"),
            ),
            (
                Option(
                    "--acceptance-rate",
                    "chance the target accepts each drafted token, 0 to below 1 (alpha)",
                    _acceptance_rate,
                    ("acceptance_rate",),
                    "a",
                    required=True,
                ),
                Option(
                    "--draft-tokens",
                    "tokens drafted per round (k, gamma)",
                    whole(),
                    ("draft_tokens",),
                    "K",
                    required=True,
                ),
                Option(
                    "--cost-ratio",
                    "one draft step over one target step (c)",
                    not_negative,
                    ("draft_cost_ratio",),
                    "c",
                    required=True,
                ),
                Option(
                    "--verify-cost",
                    "one verification over one target step (default 1: the target is memory-bound)",
                    not_negative,
                    ("verify_slowdown",),
                    "s",
                    1.0,
                ),
            ),
        ),
    )
}
