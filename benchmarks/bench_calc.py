"""`perfdrill.calc` speed against issue 22's targets, beside mlsysim and llm-analysis where they install.

Run: python benchmarks/bench_calc.py [--others]   (prints figures; no assertions)

Measured, for one decode scenario (Llama 3.1 8B on an H100 SXM, batch 64, context 4,096):
  api         one scenario through perfdrill.calc.decode()                    target < 0.2 ms
  arrays      scenarios/s with a numpy array of 1,000,000 batch sizes         target >= 1,000,000/s
  cold        a fresh `perfdrill calc decode --json` process                  target < 0.3 s
  in-process  perfdrill.cli.main([...]) with its JSON printed                 target < 2 ms
With --others, mlsysim and llm-analysis are installed from PyPI into a separate virtual environment
(benchmarks/.others-venv, never this one) and one comparable estimate of each is timed there; a
tool that does not install or whose API differs is reported as skipped.
"""

from __future__ import annotations

import contextlib
import io
import statistics
import subprocess
import sys
import time
import venv
from pathlib import Path

import numpy as np

import perfdrill
from perfdrill.cli import main

SCENARIO = {"model": "llama-3.1-8b", "chip": "h100-sxm", "batch": 64, "context": 4096}
ARGV = ["calc", "decode", "--model", "llama-3.1-8b", "--chip", "h100-sxm", "--batch", "64", "--context", "4096"]
OTHERS = Path(__file__).parent / ".others-venv"


def per_call(function, repeats: int) -> float:
    """The median of 5 rounds of the mean seconds per call."""
    rounds = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(repeats):
            function()
        rounds.append((time.perf_counter() - start) / repeats)
    return statistics.median(rounds)


def api() -> float:
    perfdrill.calc.decode(**SCENARIO)
    return per_call(lambda: perfdrill.calc.decode(**SCENARIO), 500)


def arrays(size: int = 1_000_000) -> float:
    batches = np.arange(1, size + 1)
    seconds = per_call(lambda: perfdrill.calc.decode(**{**SCENARIO, "batch": batches}), 1)
    return size / seconds


def cold() -> float:
    times = []
    for _ in range(5):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "perfdrill", *ARGV, "--json"], check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def in_process() -> float:
    def once() -> None:
        with contextlib.redirect_stdout(io.StringIO()):
            main([*ARGV, "--json"])

    once()
    return per_call(once, 200)


# One decode estimate per tool, timed in the other environment; each prints seconds per call.
OTHER_SCRIPTS = {
    "llm-analysis": """
import time
from llm_analysis.analysis import LLMAnalysis
from llm_analysis.config import get_model_config_by_name, get_gpu_config_by_name, get_dtype_config_by_name
model = get_model_config_by_name("upstage/Llama-2-70b-instruct-v2")
analysis = LLMAnalysis(model, get_gpu_config_by_name("a100-sxm-80gb"), get_dtype_config_by_name("w16a16e16"))
def once():
    analysis.inference(batch_size_per_gpu=64, seq_len=4096, num_tokens_to_generate=1)
once()
start = time.perf_counter()
for _ in range(20):
    once()
print((time.perf_counter() - start) / 20)
""",
    "mlsysim": """
import time, mlsysim
print("API not known to this script", mlsysim.__version__)
""",
}


def others() -> dict[str, str]:
    """Each tool's seconds per estimate, or why it was skipped."""
    python = OTHERS / "bin" / "python"
    if not python.exists():
        venv.create(OTHERS, with_pip=True)
    found: dict[str, str] = {}
    for package, script in OTHER_SCRIPTS.items():
        install = subprocess.run(
            [str(python), "-m", "pip", "install", "-q", package], capture_output=True, text=True, check=False
        )
        if install.returncode:
            found[package] = "skipped: did not install (" + install.stderr.strip().splitlines()[-1] + ")"
            continue
        done = subprocess.run([str(python), "-c", script], capture_output=True, text=True, check=False)
        lines = done.stdout.strip().splitlines()
        try:
            found[package] = f"{float(lines[-1]) * 1e3:.2f} ms per estimate (its own model and GPU)"
        except (IndexError, ValueError):
            reason = (done.stderr.strip().splitlines() or lines or ["no output"])[-1]
            found[package] = f"skipped: {reason}"
    return found


def report() -> None:
    print(f"api:        {api() * 1e3:.3f} ms per scenario (target < 0.2 ms)")
    print(f"arrays:     {arrays():,.0f} scenarios/s (target >= 1,000,000/s)")
    print(f"cold:       {cold():.3f} s for `perfdrill calc decode --json` (target < 0.3 s)")
    print(f"in-process: {in_process() * 1e3:.3f} ms per CLI call (target < 2 ms)")
    if "--others" in sys.argv:
        for package, figure in others().items():
            print(f"{package}: {figure}")


if __name__ == "__main__":
    report()
