"""Printed sets at scale, timed as a user runs them: a new process per run, its peak memory read
from the kernel's accounting of that process (os.wait4), reported against a 100-problem run.

python benchmarks/bench_print.py [--runs 1] [--sizes 100 1000 2000] [--markdown 100 10000 100000]

Memory is flat when doubling the set (1,000 -> 2,000 problems) leaves the peak where it was: the
last column gives each size's peak over the previous size's, and the PDF table ends with the
2,000 ÷ 1,000 ratio against its target. CPU seconds (user + system) and the load average are
printed beside wall time: on a shared machine wall time says as much about the neighbours.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PDF_TARGET = (15.0, 500)  # seconds and MB for 1,000 problems with their key
FLAT = 1.1  # the most a PDF's peak memory may grow from 1,000 to 2,000 problems


def run(count: int, fmt: str, target: Path) -> tuple[float, float, float]:
    """(seconds, peak resident MB, CPU seconds) of one `perfdrill generate` process."""
    command = [sys.executable, "-m", "perfdrill", "generate", "--count", str(count), "--seed", "1",
               "--format", fmt, "--answers", "key", "--date", "2026-11-22", "-o", str(target)]  # fmt: skip
    start = time.perf_counter()
    process = subprocess.Popen(command)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"{' '.join(command)} failed with status {status}")
    return elapsed, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime  # Linux: kilobytes


def pages(target: Path) -> str:
    """The PDF's page count, read in a process of its own: a child forked from this one would
    count this process's memory (pypdf reading 3,000 pages) in its own peak."""
    count = "import sys, pypdf; print(len(pypdf.PdfReader(sys.argv[1]).pages))"
    return subprocess.run(
        [sys.executable, "-c", count, str(target)], capture_output=True, text=True
    ).stdout.strip()


def table(fmt: str, sizes: list[int], runs: int, folder: Path) -> None:
    base: tuple[float, float] | None = None
    peaks: dict[int, float] = {}
    previous = 0.0
    print(
        f"\n{fmt}: problems | seconds (best of {runs}) | CPU seconds | peak MB | time, memory ÷ the first"
        " size's | memory ÷ the previous size's | load average (1 min) after"
    )
    for count in sizes:
        target = folder / f"set.{fmt}"
        results = [run(count, fmt, target) for _ in range(runs)]
        seconds, peak, cpu = (
            min(r[0] for r in results),
            max(r[1] for r in results),
            min(r[2] for r in results),
        )
        base = base or (seconds, peak)
        peaks[count] = peak
        extra = f", {pages(target)} pages" if fmt == "pdf" else ""
        ratios = f"×{seconds / base[0]:5.1f} | ×{peak / base[1]:4.2f} | ×{peak / (previous or peak):4.2f}"
        previous = peak
        load = os.getloadavg()[0]
        print(
            f"  {count:>7,} | {seconds:7.2f} s | {cpu:7.2f} s | {peak:6.0f} MB | {ratios} | {load:.1f}{extra}"
        )
        if fmt == "pdf" and count == 1000:
            verdict = "met" if seconds < PDF_TARGET[0] and peak < PDF_TARGET[1] else "MISSED"
            print(f"  target for 1,000: < {PDF_TARGET[0]:.0f} s, < {PDF_TARGET[1]} MB: {verdict}")
    if fmt == "pdf" and {1000, 2000} <= peaks.keys():
        growth = peaks[2000] / peaks[1000]
        verdict = "met" if growth <= FLAT else "MISSED"
        print(f"  peak memory, 2,000 ÷ 1,000 problems: ×{growth:.2f} (target ≤ ×{FLAT}): {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--sizes", type=int, nargs="*", default=[100, 1000, 2000])
    parser.add_argument("--markdown", type=int, nargs="*", default=[100, 10_000, 100_000])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        table("pdf", args.sizes, args.runs, Path(folder))
        table("html", args.sizes, args.runs, Path(folder))
        if args.markdown:
            table("md", args.markdown, args.runs, Path(folder))


if __name__ == "__main__":
    main()
