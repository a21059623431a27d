"""Engine speed: compiled vs sympy evaluation of random decode scenarios, and a cold `calc` run.

Run: python benchmarks/bench_engine.py   (prints figures and ratios; no assertions)
"""

from __future__ import annotations

import random
import statistics
import subprocess
import sys
import time

import numpy as np

from perfdrill.engine.model import load_specs
from perfdrill.engine.model.evaluation import evaluate
from perfdrill.engine.model.formula_inputs import hardware, model_inputs
from perfdrill.engine.model.workloads import WORKLOADS

RESULTS = [
    "flops",
    "bytes",
    "compute_time",
    "memory_time",
    "runtime",
    "bound",
    "tokens_per_second",
    "memory_required",
    "fits",
    "critical_batch",
    "max_batch",
    "optimal_batch",
]
SCENARIOS = 100_000
SYMPY_SAMPLE = 40


def scenarios(count: int, seed: int = 7) -> list[dict[str, float]]:
    book = load_specs()
    rng = random.Random(seed)
    chips = [c for c in book.chips.values() if "bf16" in c.peak_flops]
    models = list(book.models.values())
    out = []
    for _ in range(count):
        inputs = {
            **hardware(rng.choice(chips), "bf16").inputs(),
            **model_inputs(rng.choice(models), weight_dtype="bf16", kv_dtype="bf16"),
            "batch": float(rng.choice([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024])),
            "context": float(rng.choice([128, 512, 2048, 8192, 32768])),
        }
        inputs.pop("link_bandwidth", None)
        out.append(inputs)
    return out


def vector_rate(rows: list[dict[str, float]]) -> float:
    names = sorted({key for row in rows for key in row})
    columns = {name: np.array([row.get(name, np.nan) for row in rows]) for name in names}
    for override in ("attention_params_per_layer", "kv_elements_per_token_per_layer"):
        columns.pop(override)  # DeepSeek's overrides; the vector path uses the formulas for every row
    evaluate("decode", {k: v[:1] for k, v in columns.items()}, RESULTS, vector=True)  # warm up numpy
    start = time.perf_counter()
    evaluate("decode", columns, RESULTS, vector=True)
    return len(rows) / (time.perf_counter() - start)


def scalar_rate(rows: list[dict[str, float]]) -> float:
    start = time.perf_counter()
    for row in rows:
        evaluate("decode", row, RESULTS)
    return len(rows) / (time.perf_counter() - start)


def sympy_rate(rows: list[dict[str, float]]) -> float:
    """Each result expanded once (outside the clock) into inputs, then subs/evalf per scenario."""
    formulas = {f.name: f.expr for f in WORKLOADS["decode"]()}
    expanded = {}
    for name in RESULTS:
        expr = formulas[name]
        while any(s.name in formulas for s in expr.free_symbols):
            expr = expr.xreplace({s: formulas[s.name] for s in expr.free_symbols if s.name in formulas})
        expanded[name] = expr
    plain = [row for row in rows if "attention_params_per_layer" not in row]  # no MLA overrides
    start = time.perf_counter()
    for row in plain:
        for expr in expanded.values():
            expr.subs({s: row[s.name] for s in expr.free_symbols}).evalf()
    return len(plain) / (time.perf_counter() - start)


def cold_calc_seconds(runs: int = 5) -> float:
    command = [
        sys.executable,
        "-m",
        "perfdrill",
        "calc",
        "decode",
        "--chip",
        "h100-sxm",
        "--model",
        "llama-3.1-8b",
        "--batch",
        "64",
        "--context",
        "4096",
        "--json",
    ]
    subprocess.run(command, check=True, capture_output=True)  # builds the caches once
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    rows = scenarios(SCENARIOS)
    vector = vector_rate(rows)
    scalar = scalar_rate(rows[:20_000])
    exact = sympy_rate(rows[:SYMPY_SAMPLE])
    print(f"decode scenarios, {len(RESULTS)} results each")
    print(f"  compiled, numpy arrays ({SCENARIOS:,} scenarios): {vector:,.0f} scenarios/s")
    print(f"  compiled, one scenario at a time (20,000):       {scalar:,.0f} scenarios/s")
    print(f"  sympy subs/evalf ({SYMPY_SAMPLE} scenarios):              {exact:,.1f} scenarios/s")
    print(
        f"  ratio compiled-arrays / sympy: {vector / exact:,.0f}x; "
        f"compiled-scalar / sympy: {scalar / exact:,.0f}x"
    )
    print(f"cold `perfdrill calc decode ... --json` (median of 5, caches built): {cold_calc_seconds():.3f} s")


if __name__ == "__main__":
    main()
