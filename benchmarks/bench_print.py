"""A 50-problem PDF with its answer key and roofline plots, timed as a user runs it.

python benchmarks/bench_print.py [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pypdf


def one_run(target: Path, fmt: str) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "perfdrill", "generate", "--count", "50", "--seed", "1", "--format", fmt,
         "--answers", "key", "--date", "2026-11-22", "-o", str(target)],
        check=True,
    )  # fmt: skip
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "set.pdf"
        pdf_times = [one_run(target, "pdf") for _ in range(args.runs)]
        pages = len(pypdf.PdfReader(target).pages)
        html_times = [one_run(Path(folder) / "set.html", "html") for _ in range(args.runs)]
    print(f"50 problems with key and plots, {args.runs} runs each, new process per run")
    pdf_median, html_median = statistics.median(pdf_times), statistics.median(html_times)
    print(f"PDF:  median {pdf_median:.2f} s, max {max(pdf_times):.2f} s, {pages} pages (target 10 s)")
    print(f"HTML: median {html_median:.2f} s, max {max(html_times):.2f} s")


if __name__ == "__main__":
    main()
