"""MFU of a measured decode server: why decode's model FLOPs utilisation is low, and how far the
step sits from its own roofline.

MFU is model FLOPs per second over the chips' dense peak (Chowdhery et al. 2022, PaLM, Appendix B;
training_economics.py counts 6 FLOP per parameter per token for training). In decode a step does the
decode workload's `flops` (2 per active parameter per sequence) and makes one token per sequence, so
a measured throughput of T tokens/s is T ÷ batch steps per second. While the step is memory-bound
its time is set by the bytes it reads, so even a perfect step reaches at most compute time ÷ runtime
of the peak: a few percent at a small batch, however good the kernels.
"""

from __future__ import annotations

from sympy import Piecewise

from perfdrill.engine.model.formulas import SYM, define, q

# A measured step at half its roofline's throughput or better is near the roof: the kernels are
# fine and only a bigger batch raises the MFU; below it, the step wastes its reads.
NEAR_ROOF = 0.5

DECODE_UTILISATION = [
    define(
        "decode_achieved_flops",
        q("flops") * SYM["measured_throughput"] / (SYM["batch"] * SYM["chips"]),
        "FLOP/s",
        "model FLOP/s of each chip: a step's FLOPs times the measured steps per second "
        "(tokens per second ÷ batch), shared by the chips",
        label="achieved FLOP/s per chip",
    ),
    define(
        "decode_mfu",
        q("decode_achieved_flops") / SYM["peak_flops"],
        "1",
        "model FLOPs utilisation of the measured decode: achieved FLOP/s over the dense peak",
        label="decode MFU",
    ),
    define(
        "decode_mfu_ceiling",
        q("compute_time") / q("runtime"),
        "1",
        "the highest MFU a step at this batch can reach: its math time over its roofline time",
        label="MFU ceiling",
    ),
    define(
        "decode_roofline_fraction",
        SYM["measured_throughput"] / q("tokens_per_second"),
        "1",
        "the measured throughput over the roofline's: how much of its ceiling the server reaches",
        label="share of the roofline",
    ),
    define(
        "decode_mfu_verdict",
        Piecewise((1, q("decode_roofline_fraction") >= NEAR_ROOF), (0, True)),
        "1",
        f"near the roof at {NEAR_ROOF:.0%} of the roofline's throughput or more: then only a bigger "
        "batch raises the MFU",
        labels=(
            "far below its roofline: profile the kernels",
            "near its roofline: batch more to raise the MFU",
        ),
        # The phrase ends the part's working, so it names what to do, not only where the step runs.
        phrases=(
            "profile the kernels first (the step runs far below its roofline)",
            "batch more (the step already runs near its roofline)",
        ),
        shown=f"near the roofline if decode_roofline_fraction ≥ {NEAR_ROOF} else far below",
        label="what raises the MFU",
    ),
]
