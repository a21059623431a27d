"""`perfdrill calc` subcommands of issue 22's topics: collectives over TPU ICI tori and the limits
of data, fully-sharded and tensor parallelism over them.

Declared as data like table.py's; kept apart so that module stays under 400 lines.
"""

from __future__ import annotations

from perfdrill.engine.calc.options import MODEL
from perfdrill.engine.calc.readers import quantity, whole
from perfdrill.engine.calc.spec import Neglect, Option, Result, Subcommand, When
from perfdrill.engine.model.specs import COMPUTE_DTYPES

LINK_BANDWIDTH = Option(
    "--link-bandwidth",
    "one-way bandwidth of one ICI link, e.g. '45 GB/s' (TPU v4p, v5e)",
    quantity("byte/s"),
    ("ici_link_bandwidth",),
    "Q",
    required=True,
)

ICI = Subcommand(
    "ici",
    "a collective over TPU ICI torus axes with wraparound links (the JAX scaling book's model)",
    "ici_collective",
    (
        Result(
            "time",
            "ici_all_gather_time",
            (
                When("op", "all-reduce", "ici_all_reduce_time"),
                When("op", "all-to-all", "ici_all_to_all_time"),
            ),
        ),
        Result("bandwidth_time", "ici_all_gather_bandwidth_time"),
        Result("latency_time", "ici_latency_time"),
        Result("bandwidth", "ici_bidirectional_bandwidth"),
    ),
    (
        Option(
            "--op",
            "the collective",
            choices=("all-gather", "reduce-scatter", "all-reduce", "all-to-all"),
            required=True,
        ),
        Option(
            "--bytes",
            "the whole array's bytes (as gathered, or as each chip holds it before a reduction)",
            quantity("byte"),
            ("collective_bytes",),
            "Q",
            required=True,
        ),
        LINK_BANDWIDTH,
        Option("--axes", "torus axes the collective spans (default 1)", whole(), ("ici_axes",), "n", 1),
        Option(
            "--axis-size", "chips along each axis (for the hop latency)", whole(), ("ici_axis_size",), "N"
        ),
        Option(
            "--hop-latency",
            "least time of one hop (default 1 us, the book's typical ICI hop)",
            quantity("s"),
            ("link_latency",),
            "Q",
            1e-6,
        ),
    ),
    neglect=(
        Neglect("ici_latency_time", "hop latencies are unknown and neglected: the bandwidth term alone"),
    ),
)

ICI_LIMITS = Subcommand(
    "ici-limits",
    "how far data, fully-sharded and tensor parallelism over ICI stay compute-bound (the scaling book)",
    "ici_parallelism",
    tuple(
        Result(name, name)
        for name in (
            *("ici_intensity", "dp_min_batch_per_chip", "dp_max_chips"),
            *("tp_max_degree", "mixed_min_batch_per_chip"),
        )
    ),
    (
        Option(
            "--flops",
            "peak FLOP/s of one chip, e.g. '459 TFLOP/s'",
            quantity("FLOP/s"),
            ("peak_flops",),
            "Q",
            required=True,
        ),
        LINK_BANDWIDTH,
        Option("--axes", "ICI axes the parallelism spans (default 1)", whole(), ("ici_axes",), "n", 1),
        Option("--batch-tokens", "tokens in one training batch", quantity("token"), ("batch_tokens",), "B"),
        Option("--ffn", "MLP width F of the model", whole(), ("ffn",), "F"),
        Option(
            "--fsdp-axes",
            "axes given to FSDP when mixed with TP (default 2)",
            whole(),
            ("fsdp_axes",),
            "n",
            2,
        ),
        Option(
            "--tp-axes", "axes given to TP when mixed with FSDP (default 1)", whole(), ("tp_axes",), "n", 1
        ),
    ),
)

ATTENTION_CROSSOVER = Subcommand(
    "attention-crossover",
    "the context where attention's FLOPs equal the weight matmuls', and attention's intensity in "
    "prefill and decode (every key attended; --dtype sets Q and O's bytes, --kv-dtype K and V's)",
    "attention_crossovers",
    (
        Result("crossover_context", "attention_matmul_crossover"),
        Result("crossover_in_model_widths", "crossover_in_model_widths"),
        Result("prefill_intensity", "prefill_attention_intensity"),
        Result("decode_intensity", "decode_attention_intensity"),
    ),
    (
        Option("--dtype", "activation dtype (default bf16)", default="bf16", choices=COMPUTE_DTYPES),
        Option("--sequence", "prompt tokens, for prefill's intensity", whole(), ("sequence",), "S"),
        Option("--context", "tokens in the KV cache, for decode's intensity", whole(), ("context",), "S"),
    ),
    (MODEL,),
    exclude=("--params", "--active-params", "--kv-bytes-per-token", "--weight-dtype"),
    # MLA caches one latent per token and attends over other widths: per-head formulas do not hold
    refuse={
        "kv_elements_per_token_per_layer": "this model's attention is given outright (MLA's latent "
        "cache), and the crossover and intensities here count per-head K and V; give the per-head "
        "architecture by flags instead"
    },
)

_BYTES_HELD = Option(
    "--bytes",
    "bytes each chip holds, e.g. '1 GB'",
    quantity("byte"),
    ("collective_bytes",),
    "Q",
    required=True,
)
_PARTICIPANTS = Option("--participants", "chips taking part", whole(), ("participants",), "N", required=True)

BISECTION = Subcommand(
    "bisection",
    "an all-to-all bound by each chip's link or by the network's bisection (a switch's is N/2 links)",
    "network_all_to_all",
    (
        Result("time", "network_all_to_all_time"),
        Result("injection_time", "all_to_all_injection_time"),
        Result("bisection_time", "all_to_all_bisection_time"),
        Result("limit", "all_to_all_limit"),
        Result("switch_bisection_bandwidth", "switch_bisection_bandwidth"),
    ),
    (
        _BYTES_HELD,
        _PARTICIPANTS,
        Option(
            "--link-bandwidth",
            "one-way bandwidth of each chip's link into the network, e.g. '50 GB/s'",
            quantity("byte/s"),
            ("link_bandwidth",),
            "Q",
            required=True,
        ),
        Option(
            "--bisection-bandwidth",
            "one-way bandwidth across the network's narrowest cut into halves",
            quantity("byte/s"),
            ("bisection_bandwidth",),
            "Q",
        ),
    ),
)

TWO_LEVEL = Subcommand(
    "two-level",
    "an all-reduce over nodes of chips: one flat ring against reduce-scatter in the node, "
    "all-reduce across nodes, all-gather in the node",
    "two_level_all_reduce",
    (
        Result("time", "hierarchical_all_reduce_time"),
        Result("flat_ring_time", "flat_ring_all_reduce_time"),
        Result("intra_node_time", "intra_node_reduce_scatter_time"),
        Result("inter_node_time", "inter_node_all_reduce_time"),
        Result("speedup", "hierarchical_speedup"),
    ),
    (
        Option(
            "--bytes", "the buffer every chip all-reduces, e.g. '1 GB'", quantity("byte"),
            ("collective_bytes",), "Q", required=True,
        ),
        Option("--nodes", "nodes", whole(), ("nodes",), "n", required=True),
        Option("--node-chips", "chips in each node", whole(), ("node_chips",), "g", required=True),
        Option(
            "--node-bandwidth",
            "one-way bandwidth a chip drives to the rest of its node (NVLink), e.g. '450 GB/s'",
            quantity("byte/s"),
            ("node_link_bandwidth",),
            "Q",
            required=True,
        ),
        Option(
            "--nic-bandwidth",
            "one-way bandwidth of each NIC between nodes, e.g. '50 GB/s' (400 Gb/s)",
            quantity("byte/s"),
            ("network_bandwidth",),
            "Q",
            required=True,
        ),
        Option(
            "--node-nics",
            "scale-out NICs in each node (8 on a DGX H100: one per GPU); NCCL runs one ring per NIC",
            whole(),
            ("node_nics",),
            "n",
            required=True,
        ),
    ),
)  # fmt: skip

TOPICS_SCALE = (ICI, ICI_LIMITS, ATTENTION_CROSSOVER, BISECTION, TWO_LEVEL)
