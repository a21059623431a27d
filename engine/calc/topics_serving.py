"""`perfdrill calc`'s serving subcommands: serving and its economics, KV paging and transfer,
chunked prefill, MFU, Chinchilla budgets and speculative decoding (issue 13). table.py gathers them
into SUBCOMMANDS.
"""

from __future__ import annotations

from perfdrill.engine.calc.options import BATCH, CONTEXT, HARDWARE, MODEL, acceptance_rate
from perfdrill.engine.calc.readers import not_negative, quantity, whole
from perfdrill.engine.calc.spec import Option, Result, Subcommand

TOPICS_SERVING: tuple[Subcommand, ...] = (
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
            *(Result(n, n) for n in ("queries_per_second", "prefill_decode_ratio", "slo_min_chips")),
            *(
                Result(n, n)
                for n in ("evicted_sequences", "evicted_kv_bytes", "free_memory", "memory_per_chip")
            ),
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
        tuple(Result(n, n) for n in ("training_throughput", "achieved_flops", "achieved_mfu", "mfu_verdict")),
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
                acceptance_rate,
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
