"""Question-bank speed: generation, grading, a cold CLI run, and the ratio against deriving each
variant's answers with sympy from scratch.

Run: python benchmarks/bench_questions.py   (prints figures and ratios; no assertions)
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time

import sympy

from perfdrill.engine.model import load_specs
from perfdrill.engine.model.workloads import WORKLOADS
from perfdrill.engine.output.markdown import explanation_markdown
from perfdrill.engine.practice.plan import pick_set
from perfdrill.engine.problems.bank import load_bank
from perfdrill.engine.problems.generation import draw_variant, generate, show_number
from perfdrill.engine.problems.grading import grade_part

PROBLEMS = 1000
ANSWERS = 10_000
SYMPY_SAMPLE = 30


def generate_set() -> tuple[list, float]:
    bank, specs = load_bank(), load_specs()
    picks = pick_set(list(bank.templates.values()), PROBLEMS, seed=1)
    start = time.perf_counter()
    problems = [generate(template, seed, specs) for template, seed in picks]
    for problem in problems:
        explanation_markdown(problem)
    return problems, time.perf_counter() - start


def grading_latencies(problems: list) -> list[float]:
    answers = []
    for problem in problems:
        for part in problem.parts:
            if part.kind == "numeric":
                answers += [
                    (part, show_number(part.value, part.unit)),
                    (part, f"{part.value * 2!r} {part.unit}"),
                ]
                answers += [(part, f"{value!r} {part.unit}") for _, value in part.mistakes]
            else:
                answers += [(part, "a"), (part, "b")]
    answers = (answers * (ANSWERS // len(answers) + 1))[:ANSWERS]
    latencies = []
    for part, text in answers:
        start = time.perf_counter()
        grade_part(part, text)
        latencies.append(time.perf_counter() - start)
    return latencies


def sympy_derivation_time(problems: list) -> float:
    """Seconds per variant to derive every numeric answer by sympy substitution from the formulas."""
    sample = [p for p in problems if p.template.workload in WORKLOADS][:SYMPY_SAMPLE]
    specs = load_specs()
    start = time.perf_counter()
    for problem in sample:
        formulas = {f.name: f.expr for f in WORKLOADS[problem.template.workload]()}
        inputs = draw_variant(problem.template, problem.seed, specs).inputs
        values = {sympy.Symbol(k, positive=True): v for k, v in inputs.items()}
        for part in problem.template.parts:
            if part.kind == "numeric" and part.answer is not None:
                for _, name in part.answer.names:
                    if name in formulas:
                        _expand(name, formulas, inputs).subs(values).evalf()
    return (time.perf_counter() - start) / len(sample)


def _expand(name: str, formulas: dict[str, sympy.Expr], inputs: dict[str, float]) -> sympy.Expr:
    expr = formulas[name]
    inner = {
        s: _expand(s.name, formulas, inputs)
        for s in expr.free_symbols
        if s.name in formulas and s.name not in inputs
    }
    return expr.xreplace(inner)


def regrade_latencies(problems: list) -> list[float]:
    """What `perfdrill grade` does per call: rebuild the variant from (id, seed), then grade."""
    specs = load_specs()
    latencies = []
    for problem in problems:
        part = problem.parts[0]
        start = time.perf_counter()
        rebuilt = generate(problem.template, problem.seed, specs)
        grade_part(rebuilt.parts[0], part.shown_answer if part.kind == "numeric" else "a")
        latencies.append(time.perf_counter() - start)
    return latencies


def cold_cli(fresh_cache: bool) -> float:
    env = dict(os.environ)
    if fresh_cache:
        env["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="perfdrill-bench-")
    start = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "perfdrill",
            "generate",
            "--count",
            "1000",
            "--format",
            "md",
            "-o",
            os.devnull,
        ],
        check=True,
        env=env,
    )
    return time.perf_counter() - start


def main() -> None:
    problems, elapsed = generate_set()
    rate = PROBLEMS / elapsed
    print(
        f"generate {PROBLEMS} problems with answers and explanations: {elapsed:.2f} s = {rate:,.0f}/s "
        "(target 500)"
    )
    for label, latencies in (
        (f"grade {ANSWERS:,} answers to generated problems", grading_latencies(problems)),
        (f"rebuild from (id, seed) and grade, {PROBLEMS} times", regrade_latencies(problems)),
    ):
        ordered = sorted(latencies)
        p50, p99 = statistics.median(ordered) * 1e3, ordered[int(0.99 * len(ordered))] * 1e3
        print(f"{label}: p50 {p50:.3f} ms, p99 {p99:.3f} ms (target p99 < 5 ms)")
    per_variant = elapsed / PROBLEMS
    sympy_time = sympy_derivation_time(problems)
    print(
        f"per variant: compiled {per_variant * 1e3:.2f} ms (whole problem) "
        f"vs sympy {sympy_time * 1e3:.1f} ms "
        f"(numeric answers only) = {sympy_time / per_variant:,.0f}x faster"
    )
    cold_cli(fresh_cache=False)  # make sure the usual caches exist
    print(f"cold `perfdrill generate --count 1000 --format md`: {cold_cli(False):.2f} s (target 3 s)")
    print(f"same, first run after install (empty cache): {cold_cli(True):.2f} s")


if __name__ == "__main__":
    main()
