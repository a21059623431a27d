"""`perfdrill list | generate | grade | check`: the question bank from the command line."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from perfdrill.cli.specs import add_specs_option
from perfdrill.engine.errors import UsageError
from perfdrill.engine.model.specs import load_specs
from perfdrill.engine.output.markdown import answers_markdown
from perfdrill.engine.problems.bank import builtin_root, load_bank
from perfdrill.engine.problems.check import check_paths
from perfdrill.engine.problems.generate import generate
from perfdrill.engine.problems.grading import grade
from perfdrill.engine.problems.templates import DIFFICULTIES, FAMILIES
from perfdrill.engine.resources import user_data_dir


def add_set_options(parser: Any, what: str) -> None:
    """How many questions, from which families and difficulty, with which seed."""
    parser.add_argument("--count", type=int, default=10, help=f"number of {what} (default 10)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the set (default 0)")
    parser.add_argument(
        "--family", action="append", default=[], choices=list(FAMILIES), help="only this family"
    )
    parser.add_argument("--difficulty", choices=DIFFICULTIES, help="only this difficulty")


def add_questions_option(parser: Any) -> None:
    parser.add_argument(
        "--questions", type=Path, action="append", default=[], metavar="DIR", help="extra template folder"
    )


def register(commands: Any) -> None:
    listing = commands.add_parser("list", help="list the question templates")
    listing.add_argument("--json", action="store_true", help="machine-readable output")
    add_questions_option(listing)
    listing.set_defaults(handler=run_list)

    grading = commands.add_parser("grade", help="grade answers to one question variant")
    grading.add_argument(
        "--question", required=True, metavar="ID", help="template id, e.g. matmul/square-time"
    )
    grading.add_argument("--seed", type=int, required=True, help="variant seed")
    grading.add_argument("--answer", action="append", default=[], metavar="PART=TEXT", help="an answer")
    grading.add_argument("--json", action="store_true", help="machine-readable output")
    grading.add_argument("--solution", action="store_true", help="also show the answers and the derivation")
    add_questions_option(grading)
    add_specs_option(grading)
    grading.set_defaults(handler=run_grade)

    check = commands.add_parser("check", help="validate and self-test templates")
    check.add_argument("paths", nargs="*", type=Path, metavar="PATH", help="template folders (default: all)")
    check.add_argument("--seeds", type=int, default=50, help="seeds to self-test each template over")
    add_specs_option(check)
    check.set_defaults(handler=run_check)


def run_list(args: argparse.Namespace) -> int:
    bank = load_bank(args.questions)
    rows = [
        {"id": t.id, "title": t.title, "family": t.family, "difficulty": t.difficulty, "tags": list(t.tags)}
        for t in bank.templates.values()
    ]
    if args.json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    width = max(len(row["id"]) for row in rows)
    for row in rows:
        print(f"{row['id']:<{width}}  {row['difficulty']:<6}  {row['title']}")
    print(f"\n{len(rows)} templates in {len({r['family'] for r in rows})} families")
    return 0


def parse_answers(pairs: list[str]) -> dict[str, str]:
    answers = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"--answer {pair!r}: write PART=TEXT, e.g. runtime='3.2 ms'")
        answers[name.strip()] = text
    return answers


def run_grade(args: argparse.Namespace) -> int:
    problem = generate(load_bank(args.questions).get(args.question), args.seed, load_specs(args.specs))
    result = grade(problem, parse_answers(args.answer))
    if args.json:
        print(json.dumps(result.as_json(), indent=2, ensure_ascii=False))
        return 0
    marks = {"correct": "✓", "incorrect": "✗", "invalid": "?"}
    for name, part in result.parts.items():
        print(f"{marks[part.status]} {name}: {part.feedback}")
    print(f"score {result.score:.0%}")
    if args.solution:
        print("\n" + answers_markdown(problem))
    return 0


def run_check(args: argparse.Namespace) -> int:
    if args.seeds < 1:
        raise UsageError("--seeds must be at least 1")
    paths = args.paths or [builtin_root(), user_data_dir() / "questions"]
    for path in args.paths:
        if not path.exists():
            raise UsageError(f"{path}: no such file or folder")
    paths = [p.parent if p.is_file() else p for p in paths if p.exists()]
    seen, findings = check_paths(paths, load_specs(args.specs), args.seeds)
    for finding in findings:
        print(finding.one_line())
    failed = len({f.file for f in findings})
    print(f"{seen} templates checked over {args.seeds} seeds: {seen - failed} passed, {failed} failed")
    return 1 if findings else 0
