"""`perfdrill [practice]` and `perfdrill review` open the app; `perfdrill stats` reports the saved
history: mastery per family and difficulty, what is due, streaks and first-try accuracy."""

from __future__ import annotations

import argparse
import json
import secrets
import signal
import sys
import time
from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from typing import Any

from perfdrill.cli.options import (
    add_questions_option,
    add_restriction_options,
    add_set_options,
    add_specs_option,
)
from perfdrill.engine import UsageError
from perfdrill.engine.model.spoken import counted
from perfdrill.engine.practice import (
    FamilyStats,
    Plan,
    ProgressReport,
    ProgressStore,
    progress_report,
    question_items,
    review_queue,
)
from perfdrill.engine.practice.interview import scorecard
from perfdrill.engine.problems import DIFFICULTIES, FAMILIES, load_bank

WEEKS = 4


def register(commands: Any) -> None:
    practice = commands.add_parser("practice", help="practise in the terminal (what bare `perfdrill` does)")
    add_set_options(practice, "questions in the session", fresh_seed=True)
    practice.set_defaults(count=None)  # 10, or with --question one round of the named questions
    practice.add_argument("--endless", action="store_true", help="keep asking until you stop")
    add_restriction_options(practice)
    practice.add_argument(
        "--question", action="append", default=[], metavar="ID", help="ask this question (--count times)"
    )
    practice.add_argument("--start", action="store_true", help="skip the start screen")
    practice.add_argument("--resume", action="store_true", help="continue the interrupted session")
    add_questions_option(practice)
    add_specs_option(practice)
    practice.set_defaults(handler=run_practice)

    review = commands.add_parser("review", help="today's spaced-repetition queue: what is due, then new")
    review.add_argument("--new-per-day", type=int, metavar="N", help="new templates a day (saved)")
    review.add_argument(
        "--mastery", type=int, metavar="N", help="mastered after N clean first tries on N days (saved)"
    )
    add_questions_option(review)
    add_specs_option(review)
    review.set_defaults(handler=run_review)

    interview = commands.add_parser(
        "interview", help="a timed mock interview: one scenario, 5-8 chained questions, a scorecard"
    )
    interview.add_argument("--seed", type=int, help="the interview's seed (default: a fresh one, printed)")
    add_questions_option(interview)
    add_specs_option(interview)
    interview.set_defaults(handler=run_interview)

    stats = commands.add_parser("stats", help="mastery, what is due, streaks and accuracy by family")
    stats.add_argument("--json", action="store_true", help="machine-readable output")
    add_questions_option(stats)
    stats.set_defaults(handler=run_stats)


def _needs_terminal() -> None:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError("practice needs an interactive terminal; for files use `perfdrill generate`")


def _run_app(store: ProgressStore, args: argparse.Namespace, **options: Any) -> int:
    from perfdrill.tui.app import PerfdrillApp  # Textual loads only for the app

    app = PerfdrillApp(store, questions=args.questions, spec_dirs=args.specs, **options)
    ending = [signal.SIGINT, signal.SIGTERM, *([signal.SIGHUP] if hasattr(signal, "SIGHUP") else [])]
    previous = {signum: signal.signal(signum, app.end_on_signal) for signum in ending}
    try:
        app.run()
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    store.close()
    return app.return_code or 0


def run_practice(args: argparse.Namespace) -> int:
    _needs_terminal()
    count = args.count if args.count is not None else len(args.question) or 10
    if not args.endless and not 1 <= count <= 1000:
        raise UsageError("--count must be between 1 and 1000")
    if args.endless and args.question:
        raise UsageError("--question asks a fixed number of variants: give --count, not --endless")
    if args.seed is None:  # a new set each time; printed, so the same set can be asked for again
        args.seed = secrets.randbelow(1_000_000)
        print(f"perfdrill: seed {args.seed} (--seed {args.seed} asks the same questions again)")
    plan = Plan(
        families=tuple(args.family),
        difficulty=args.difficulty,
        count=None if args.endless else count,
        chips=tuple(args.chip),
        models=tuple(args.model),
        seed=args.seed,
        items=question_items(args.question, count, args.seed) if args.question else (),
    )
    return _run_app(ProgressStore(), args, plan=plan, start=args.start, resume=args.resume)


def run_review(args: argparse.Namespace) -> int:
    # setting -> (option, value given, smallest allowed); settings given are saved, then today's
    # queue starts under them (in a terminal)
    settings = {
        "new_per_day": ("--new-per-day", args.new_per_day, 0),
        "mastery_after": ("--mastery", args.mastery, 1),
    }
    given = {key: (option, value) for key, (option, value, _) in settings.items() if value is not None}
    if given:
        for key, (option, value) in given.items():
            if not settings[key][2] <= value <= 1000:
                raise UsageError(f"{option} must be between {settings[key][2]} and 1000")
        store = ProgressStore()
        for key, (_, value) in given.items():
            store.set_setting(key, value)
        store.close()
        print("saved: " + ", ".join(f"{option} {value}" for option, value in given.values()))
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            return 0  # a script setting them: saved is all it asked for
    _needs_terminal()
    return _run_app(ProgressStore(), args, review=True)


def run_interview(args: argparse.Namespace) -> int:
    _needs_terminal()
    if args.seed is None:
        args.seed = secrets.randbelow(1_000_000)
        print(f"perfdrill: interview seed {args.seed} (--seed {args.seed} asks the same interview again)")
    return _run_app(ProgressStore(), args, interview=True, interview_seed=args.seed)


def _when(timestamp: float | None) -> str | None:
    return datetime.fromtimestamp(timestamp).astimezone().isoformat(timespec="seconds") if timestamp else None


def stats_json(
    report: ProgressReport,
    families: list[FamilyStats],
    due: list[str],
    new: list[str],
    interviews: list[dict[str, Any]],
) -> str:
    data = asdict(report)
    for template in data["templates"]:
        template["due"] = _when(template["due"])
    data["families"] = [asdict(row) for row in families]
    data["queue"] = {"due": due, "new": new}
    data["interviews"] = interviews
    return json.dumps(data, indent=2, ensure_ascii=False)


def _print_report(report: ProgressReport, families: list[FamilyStats], path: Path) -> None:
    streak = report.streak
    mastered = sum(t.mastered for t in report.templates)
    due = sum(t.due_today for t in report.templates)
    print(
        f"Practised on {counted(streak.days_practised, 'day')} · streak {counted(streak.current, 'day')}"
        f" (longest {streak.longest})"
        f" · {mastered} of {len(report.templates)} templates mastered · {due} due today"
    )
    print(
        f"\nMastered / templates (mastered: fully right at the first try, without hints,"
        f" on {report.mastery_after} different days)"
    )
    print(f"{'family':<36}" + "".join(f"{d:>8}" for d in DIFFICULTIES) + f"{'due':>6}")
    for family, label in FAMILIES.items():
        cells = report.cells_of(family)
        if cells:
            row = "".join(
                f"{f'{cells[d].mastered}/{cells[d].templates}' if d in cells else '-':>8}"
                for d in DIFFICULTIES
            )
            print(f"{label:<36}{row}{sum(c.due for c in cells.values()):>6}")
    weeks, accuracy = report.recent_accuracy(WEEKS)
    if weeks:
        print("\nFirst try fully right, by week")
        print(f"{'family':<36}" + "".join(f"{week:>12}" for week in weeks))
        for family, label in FAMILIES.items():
            if family in accuracy:
                shown = [accuracy[family].get(week) for week in weeks]
                print(
                    f"{label:<36}"
                    + "".join(f"{f'{a.right}/{a.first_tries}' if a else '-':>12}" for a in shown)
                )
    print(f"\n{'family':<36} {'answered':>8} {'right':>6} {'score':>6} {'time':>8}  most common mistake")
    for stats in families:
        print(
            f"{FAMILIES.get(stats.family, stats.family):<36} {stats.attempts:>8} {stats.correct:>6}"
            f" {stats.mean_score:>6.0%} {stats.seconds / 60:>7.1f}m  {stats.top_mistake or '-'}"
        )
    total = sum(s.attempts for s in families)
    print(f"\n{counted(total, 'question')} answered (first tries) · history in {path}")


def run_stats(args: argparse.Namespace) -> int:
    store = ProgressStore(readonly=True)  # never the writer's lock: a running session keeps saving
    try:
        history, cards, families = store.history(), store.cards(), store.family_stats()
        mastery_after, new_per_day = store.setting("mastery_after"), store.setting("new_per_day")
        interviews = [
            {"session": s.id, **scorecard(s.plan, s.attempts).as_json()}
            for s in store.sessions()
            if s.plan.interview and s.attempts
        ]
    finally:
        store.close()
    templates = list(load_bank(args.questions).templates.values())
    now = time.time()
    report = progress_report(history, cards, templates, now=now, mastery_after=mastery_after)
    queue = review_queue(cards, templates, now=now, new_per_day=new_per_day)
    if args.json:
        print(stats_json(report, families, list(queue.due), list(queue.new), interviews))
        return 0
    if not history:
        print(f"No practice history yet ({store.path}). Run `perfdrill` to start.")
        return 0
    _print_report(report, families, store.path)
    return 0
