"""`perfdrill calc`'s training and communication subcommands: sharded training state, the
pipeline bubble, nccl-tests bandwidths and GEMM waves (issue 13). table.py gathers them into SUBCOMMANDS.
"""

from __future__ import annotations

from perfdrill.engine.calc.options import COLLECTIVE_BYTES, COLLECTIVE_OP, HARDWARE, MODEL
from perfdrill.engine.calc.readers import not_negative, quantity, whole
from perfdrill.engine.calc.spec import Option, Result, Subcommand, When

TOPICS_TRAINING: tuple[Subcommand, ...] = (
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
)
