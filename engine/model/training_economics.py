"""Training economics: MFU from a measured run, and compute-optimal (Chinchilla) training, over the
6·N·D `train` workload of workloads.py.

Sources behind the conventions (the tests reproduce the published figures):

- MFU (Chowdhery et al. 2022, PaLM, Appendix B): model FLOPs (6 per parameter per token) per
  second over the chips' peak. Large published runs mostly reach 30-60%: Megatron-Turing NLG
  30.2%, Gopher 32.5%, PaLM 46.2% (PaLM Table 3, which gives GPT-3 21.3%); Llama 3 405B 38-43%
  (Llama 3 paper, Table 4).
- Chinchilla (Hoffmann et al. 2022): compute-optimal training uses about 20 tokens per
  parameter; with C = 6·N·D that gives N = sqrt(C / (6·20)) (Chinchilla: 70B on 1.4T tokens).
"""

from __future__ import annotations

from sympy import Piecewise, sqrt

from perfdrill.engine.model.formulas import SYM, define, q

# The band of MFU that large published training runs reach (sources in the module docstring).
TYPICAL_MFU = (0.3, 0.6)

# -- MFU from a measured run, and compute-optimal training (over the 6·N·D `train` workload) ------
TRAINING_ECONOMICS = [
    define(
        "training_throughput",
        SYM["tokens"] / SYM["measured_runtime"],
        "token/s",
        "tokens trained per second in the measured time",
    ),
    define(
        "achieved_flops",
        q("flops") / SYM["measured_runtime"],
        "FLOP/s",
        "model FLOPs (6 per parameter per token) per second the run achieves",
        label="achieved FLOP/s",  # a rate, never "achieved FLOPs"
    ),
    define(
        "achieved_mfu",
        q("achieved_flops") / (SYM["chips"] * SYM["peak_flops"]),
        "1",
        "model FLOPs utilisation: achieved model FLOP/s over the chips' dense peak",
    ),
    define(
        "mfu_verdict",
        Piecewise(
            (0, q("achieved_mfu") < TYPICAL_MFU[0]), (1, q("achieved_mfu") <= TYPICAL_MFU[1]), (2, True)
        ),
        "1",
        f"against the {TYPICAL_MFU[0]:.0%}-{TYPICAL_MFU[1]:.0%} MFU that large published runs reach",
        labels=(
            "low: profile the run for the bottleneck",
            "typical of large published runs",
            "implausibly high: recheck the claim or its FLOP count",
        ),
        shown=f"low if achieved_mfu < {TYPICAL_MFU[0]}, typical up to {TYPICAL_MFU[1]}, else too high",
    ),
    define(
        "compute_optimal_tokens",
        SYM["tokens_per_param"] * q("params"),
        "token",
        "Chinchilla: compute-optimal training sees about 20 tokens per parameter",
    ),
    define(
        "tokens_per_param_trained",
        SYM["tokens"] / q("params"),
        "1",
        "training tokens per parameter of this run",
    ),
    define(
        "training_regime",
        Piecewise((1, q("tokens_per_param_trained") > SYM["tokens_per_param"]), (0, True)),
        "1",
        "the run against the compute-optimal tokens per parameter",
        labels=(
            "fewer tokens than compute-optimal: the model is large for its data",
            "more tokens than compute-optimal: a smaller model trained longer",
        ),
        shown="more tokens if tokens_per_param_trained > tokens_per_param else fewer",
    ),
    define(
        "compute_budget",
        q("system_flops") * SYM["run_time"],
        "FLOP",
        "the FLOPs a run of this length delivers at the achieved FLOP/s",
    ),
    define(
        "chinchilla_params",
        sqrt(q("compute_budget") / (6 * SYM["tokens_per_param"])),
        "parameter",
        "compute-optimal model size: C = 6·N·D with D = tokens_per_param·N, so "
        "N = √(C / (6·tokens_per_param))",
    ),
    define(
        "chinchilla_tokens",
        SYM["tokens_per_param"] * q("chinchilla_params"),
        "token",
        "compute-optimal training tokens for the budget",
    ),
]
