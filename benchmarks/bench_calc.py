"""`perfdrill.calc` speed against issue 22's targets, beside mlsysim and llm-analysis where they install.

Run: python benchmarks/bench_calc.py [--others [VENV]]   (prints figures; no assertions)

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
import os
import resource
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
ARGV = [
    "calc",
    "decode",
    "--model",
    "llama-3.1-8b",
    "--chip",
    "h100-sxm",
    "--batch",
    "64",
    "--context",
    "4096",
]
OTHERS = Path(__file__).parent / ".others-venv"


def per_call(function, repeats: int) -> tuple[float, float]:
    """(wall, CPU) seconds per call: the median of 5 rounds of each round's mean. On a shared
    machine the CPU time is the cost of the call itself; the wall time adds the waits."""
    rounds = []
    for _ in range(5):
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(repeats):
            function()
        rounds.append(((time.perf_counter() - wall) / repeats, (time.process_time() - cpu) / repeats))
    return statistics.median(r[0] for r in rounds), statistics.median(r[1] for r in rounds)


def api() -> tuple[float, float]:
    perfdrill.calc.decode(**SCENARIO)
    return per_call(lambda: perfdrill.calc.decode(**SCENARIO), 500)


def arrays(size: int = 1_000_000) -> tuple[float, float]:
    batches = np.arange(1, size + 1)
    wall, cpu = per_call(lambda: perfdrill.calc.decode(**{**SCENARIO, "batch": batches}), 1)
    return size / wall, size / cpu


def cold() -> tuple[float, float]:
    """A fresh process's wall time, and the CPU time it used (user + system)."""
    walls, cpus = [], []
    for _ in range(5):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "perfdrill", *ARGV, "--json"], check=True, capture_output=True)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def in_process() -> tuple[float, float]:
    def once() -> None:
        with contextlib.redirect_stdout(io.StringIO()):
            main([*ARGV, "--json"])

    once()
    return per_call(once, 200)


# One serving estimate per tool, timed in the other environment; each prints seconds per call. Each
# uses its own catalogue: llm-analysis has no Llama 3.1 and refuses batch 64 at 4,096 tokens for a
# 7B model on one 80 GB GPU (its activation memory), so it times Llama 2 7B at batch 16.
OTHER_SCRIPTS = {
    "llm-analysis": """
import logging, time
logging.disable(logging.CRITICAL)
from llm_analysis.analysis import LLMAnalysis
from llm_analysis.config import get_dtype_config_by_name, get_gpu_config_by_name, get_model_config_by_name
model = get_model_config_by_name("NousResearch_Llama-2-7b-hf")
gpu = get_gpu_config_by_name("h100-sxm-80gb")
analysis = LLMAnalysis(model, gpu, get_dtype_config_by_name("w16a16e16"))
def once():
    analysis.inference(batch_size_per_gpu=16, seq_len=4096, num_tokens_to_generate=1)
once()
start, cpu = time.perf_counter(), time.process_time()
for _ in range(50):
    once()
print((time.perf_counter() - start) / 50, (time.process_time() - cpu) / 50)
""",
    "mlsysim": """
import time, mlsysim
from mlsysim.engine.solvers.serving import ServingModel
model = next(w for w in mlsysim.Models.list() if getattr(w, "name", "") == "Llama-3.1-8B")
solver, chip = ServingModel(), mlsysim.Hardware.Cloud.H100
def once():
    solver.solve(model, chip, seq_len=4096, batch_size=64)
once()
start, cpu = time.perf_counter(), time.process_time()
for _ in range(50):
    once()
print((time.perf_counter() - start) / 50, (time.process_time() - cpu) / 50)
""",
}


def others(where: Path) -> dict[str, str]:
    """Each tool's seconds per estimate, or why it was skipped."""
    python = where / "bin" / "python"
    if not python.exists():
        venv.create(where, with_pip=True)
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
            wall, cpu = (float(figure) * 1e3 for figure in lines[-1].split())
            found[package] = f"{wall:.3f} ms ({cpu:.3f} ms CPU) per estimate (its own model and GPU)"
        except (IndexError, ValueError):
            reason = (done.stderr.strip().splitlines() or lines or ["no output"])[-1]
            found[package] = f"skipped: {reason}"
    return found


def report() -> None:
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; wall time, then CPU time")
    wall, cpu = api()
    print(f"api:        {wall * 1e3:.3f} ms ({cpu * 1e3:.3f} ms CPU) per scenario (target < 0.2 ms)")
    wall, cpu = arrays()
    print(f"arrays:     {wall:,.0f} ({cpu:,.0f} CPU) scenarios/s (target >= 1,000,000/s)")
    wall, cpu = cold()
    print(f"cold:       {wall:.3f} s ({cpu:.3f} s CPU) for `perfdrill calc decode --json` (target < 0.3 s)")
    wall, cpu = in_process()
    print(f"in-process: {wall * 1e3:.3f} ms ({cpu * 1e3:.3f} ms CPU) per CLI call (target < 2 ms)")
    if "--others" in sys.argv:  # `--others PATH` reuses a virtual environment made before
        at = sys.argv.index("--others") + 1
        where = Path(sys.argv[at]) if at < len(sys.argv) else OTHERS
        for package, figure in others(where).items():
            print(f"{package}: {figure}")


if __name__ == "__main__":
    report()
