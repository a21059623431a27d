"""`perfdrill calc`'s attention, quantization and MoE subcommands: attention in decode,
FlashAttention's traffic, quantization beyond weights and MoE serving (issue 13). table.py gathers
them into SUBCOMMANDS.
"""

from __future__ import annotations

from perfdrill.engine.calc.options import BATCH, DTYPES, HARDWARE, MODEL
from perfdrill.engine.calc.readers import fraction, quantity, whole
from perfdrill.engine.calc.spec import Option, Result, Subcommand
from perfdrill.engine.model import COMPUTE_DTYPES

TOPICS_ATTENTION: tuple[Subcommand, ...] = (
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
            Option("--bits", "bits of each quantized weight", whole(), ("quant_bits",), "b", required=True),
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
)
