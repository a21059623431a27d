"""`perfdrill [practice]` opens the TUI; `perfdrill stats` summarises the saved history."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from typing import Any

from perfdrill.cli.options import add_questions_option, add_set_options, add_specs_option
from perfdrill.engine import UsageError
from perfdrill.engine.practice import Plan, ProgressStore
from perfdrill.engine.problems import FAMILIES, variant_seed


def register(commands: Any) -> None:
    practice = commands.add_parser("practice", help="practise in the terminal (what bare `perfdrill` does)")
    add_set_options(practice, "questions in the session")
    practice.add_argument("--endless", action="store_true", help="keep asking until you stop")
    practice.add_argument("--chip", action="append", default=[], metavar="ID", help="only this chip")
    practice.add_argument("--model", action="append", default=[], metavar="ID", help="only this model")
    practice.add_argument("--question", action="append", default=[], metavar="ID", help="ask this question")
    practice.add_argument("--start", action="store_true", help="skip the start screen")
    practice.add_argument("--resume", action="store_true", help="continue the interrupted session")
    add_questions_option(practice)
    add_specs_option(practice)
    practice.set_defaults(handler=run_practice)

    stats = commands.add_parser("stats", help="your practice history by family")
    stats.add_argument("--json", action="store_true", help="machine-readable output")
    stats.set_defaults(handler=run_stats)


def run_practice(args: argparse.Namespace) -> int:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError("practice needs an interactive terminal; for files use `perfdrill generate`")
    if not args.endless and not 1 <= args.count <= 1000:
        raise UsageError("--count must be between 1 and 1000")
    plan = Plan(
        families=tuple(args.family),
        difficulty=args.difficulty,
        count=None if args.endless else args.count,
        chips=tuple(args.chip),
        models=tuple(args.model),
        seed=args.seed,
        items=tuple((question, variant_seed(args.seed, i)) for i, question in enumerate(args.question)),
    )
    store = ProgressStore()
    from perfdrill.tui.app import PerfdrillApp  # Textual loads only for the TUI

    app = PerfdrillApp(
        store, plan=plan, start=args.start, resume=args.resume, questions=args.questions, spec_dirs=args.specs
    )
    app.run()
    store.close()
    return app.return_code or 0


def run_stats(args: argparse.Namespace) -> int:
    store = ProgressStore()
    rows = store.family_stats()
    store.close()
    if args.json:
        print(json.dumps([asdict(row) for row in rows], indent=2))
        return 0
    if not rows:
        print(f"No practice history yet ({store.path}). Run `perfdrill` to start.")
        return 0
    print(f"{'family':<34} {'attempts':>8} {'right':>6} {'score':>6} {'time':>8}  most common mistake")
    for row in rows:
        print(
            f"{FAMILIES.get(row.family, row.family):<34} {row.attempts:>8} {row.correct:>6}"
            f" {row.mean_score:>6.0%} {row.seconds / 60:>7.1f}m  {row.top_mistake or '-'}"
        )
    total = sum(r.attempts for r in rows)
    print(f"\n{total} attempts · history in {store.path}")
    return 0
