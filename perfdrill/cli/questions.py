"""`perfdrill list | generate | grade | check`: the question bank from the command line."""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from perfdrill.cli.options import add_questions_option, add_restriction_options, add_specs_option
from perfdrill.engine import PerfdrillError, UsageError, user_data_dir
from perfdrill.engine.model import load_specs
from perfdrill.engine.model.spoken import counted
from perfdrill.engine.output import answers_markdown, find_problem
from perfdrill.engine.problems import (
    Bank,
    Problem,
    builtin_root,
    check_paths,
    generate,
    grade,
    letter,
    load_bank,
)


def register(commands: Any) -> None:
    listing = commands.add_parser("list", help="list the question templates")
    listing.add_argument("--json", action="store_true", help="machine-readable output")
    listing.add_argument("--no-builtin", action="store_true", help="only your own questions")
    add_questions_option(listing)
    listing.set_defaults(handler=run_list)

    grading = commands.add_parser("grade", help="grade answers to one question variant")
    grading.add_argument("--code", help="the problem code a printed sheet shows, e.g. 7KQ2-XM4P")
    grading.add_argument("--question", metavar="ID", help="template id, e.g. matmul/square-time")
    grading.add_argument("--seed", type=int, help="variant seed (with --question)")
    grading.add_argument(
        "--answer",
        action="append",
        default=[],
        metavar="PART=TEXT",
        help="an answer; PART is the part's letter (a, b, …) or its name; with --code also (a) or 1a",
    )
    grading.add_argument("--json", action="store_true", help="machine-readable output")
    grading.add_argument("--solution", action="store_true", help="also show the answers and the derivation")
    add_restriction_options(grading)
    add_questions_option(grading)
    add_specs_option(grading)
    grading.set_defaults(handler=run_grade)

    check = commands.add_parser("check", help="validate and self-test templates")
    check.add_argument("paths", nargs="*", type=Path, metavar="PATH", help="template folders (default: all)")
    check.add_argument("--seeds", type=int, default=50, help="seeds to self-test each template over")
    add_specs_option(check)
    check.set_defaults(handler=run_check)


def load_questions(extra: Iterable[Path], questions: Sequence[str] = (), *, builtin: bool = True) -> Bank:
    """The bank cut to `questions` (all when none are named), after one warning line on stderr for
    each template of yours left out of it. A named question that was left out is the one error."""
    bank = load_bank(extra)
    chosen = bank.only(questions, builtin=builtin)
    for problem in bank.skipped:
        warn_left_out(problem)
    return chosen


def warn_left_out(problem: PerfdrillError) -> None:
    """One line on stderr for a template of the user's own that is left out."""
    sys.stderr.write(f"perfdrill: warning: {problem.one_line()} (left out)\n")


def run_list(args: argparse.Namespace) -> int:
    bank = load_questions(args.questions, builtin=not args.no_builtin)
    rows = [
        {
            "id": t.id,
            "title": t.title,
            "family": t.family,
            "family_title": t.family_title,
            "difficulty": t.difficulty,
            "tags": list(t.tags),
        }
        for t in bank.templates.values()
    ]
    if args.json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    width = max(len(row["id"]) for row in rows)
    for row in rows:
        print(f"{row['id']:<{width}}  {row['difficulty']:<6}  {row['title']}")
    families = counted(len({r["family"] for r in rows}), "family", "families")
    print(f"\n{counted(len(rows), 'template')} in {families}")
    own = [f for f in bank.families.values() if not f.builtin]
    for family in own:
        print(
            f"your family {family.id}: {family.title}"
            + (f" — {family.description}" if family.description else "")
        )
    return 0


def parse_answers(pairs: list[str], problem: Problem | None = None) -> dict[str, str]:
    """PART=TEXT pairs by part name; with `problem`, a part's printed letter (a, b, …) names it too."""
    letters = {letter(i): part.name for i, part in enumerate(problem.parts)} if problem else {}
    names = {part.name for part in problem.parts} if problem else set()
    answers = {}
    for name, text in _pairs(pairs):
        answers[name if name in names else letters.get(name.lower(), name)] = text
    return answers


def _pairs(pairs: list[str]) -> list[tuple[str, str]]:
    split = []
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"--answer {pair!r}: write PART=TEXT, e.g. a='3.2 ms' or runtime='3.2 ms'")
        split.append((name.strip(), text))
    return split


# A part as a printed sheet labels it: "a", "(a)", "A", "a)", or with the problem's number, "1a" or "1(a)".
_SHEET_PART = re.compile(r"(?:(?P<number>\d+)\s*\.?\s*)?\(?\s*(?P<letter>[a-z]+)\s*\)?")


def parse_sheet_answers(pairs: list[str], problem: Problem) -> dict[str, str]:
    """PART=TEXT pairs for the problem a sheet's code names, PART as the sheet prints it. The code
    names one problem, not its number on the sheet, so "1a" is read as part a only while every
    answer gives the same number; the template and part names are never shown, only the letters."""
    by_letter = {letter(i): part.name for i, part in enumerate(problem.parts)}
    letter_of = {name: label for label, name in by_letter.items()}
    answers: dict[str, str] = {}
    numbers: dict[str, str] = {}
    for typed, text in _pairs(pairs):
        if typed in by_letter.values():  # the name `grade` prints beside the letter
            name = typed
        else:
            label = _SHEET_PART.fullmatch(typed.lower())
            if label is None or label["letter"] not in by_letter:
                parts = ", ".join(by_letter)
                raise UsageError(
                    f"--answer {typed}=…: this problem has no part {typed!r}; it has parts {parts}"
                )
            if label["number"] is not None:
                numbers[str(int(label["number"]))] = typed
            name = by_letter[label["letter"]]
        if name in answers:
            raise UsageError(f"--answer {typed}=…: part ({letter_of[name]}) is answered twice")
        answers[name] = text
    if len(numbers) > 1:
        named = " and ".join(numbers.values())
        raise UsageError(
            f"--answer {named}: the code names one problem; grade each problem with its own --code"
        )
    return answers


def _graded_problem(args: argparse.Namespace) -> Problem:
    """The variant `--code` names, or `--question` with `--seed`."""
    specs = load_specs(args.specs).only(args.chip, args.model)
    if args.code is not None:
        if args.question is not None or args.seed is not None:
            raise UsageError("give --code, or --question with --seed, not both")
        if args.solution:
            raise UsageError("--solution is not shown for a printed problem: its key is the instructor's")
        template, seed = find_problem(args.code, load_questions(args.questions).templates.values())
        return generate(template, seed, specs)
    if args.question is None or args.seed is None:
        raise UsageError("give --code (from the sheet), or --question with --seed")
    return generate(load_questions(args.questions, [args.question]).get(args.question), args.seed, specs)


def run_grade(args: argparse.Namespace) -> int:
    problem = _graded_problem(args)
    printed = args.code is not None  # the student's view: letters as the sheet prints them
    answers = parse_sheet_answers(args.answer, problem) if printed else parse_answers(args.answer, problem)
    result = grade(problem, answers)
    if args.json:
        report = result.as_json()
        if args.code is not None:  # a printed problem's expected values are the key's, not the student's
            for part in report["parts"].values():
                part.pop("expected")
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return 0
    marks = {"correct": "✓", "incorrect": "✗", "invalid": "?"}
    for index, (name, part) in enumerate(result.parts.items()):
        print(f"{marks[part.status]} ({letter(index)}) {name}: {part.feedback}")
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
    distributions: list[str] = []
    seen, findings = check_paths(paths, load_specs(args.specs), args.seeds, distributions)
    if distributions:
        print(f"choice answers over {counted(args.seeds, 'seed')}:")
        for line in distributions:
            print(f"  {line}")
    for finding in findings:
        print(finding.one_line())
    failed = len({f.file for f in findings})
    checked = f"{counted(seen, 'template')} checked over {counted(args.seeds, 'seed')}"
    print(f"{checked}: {seen - failed} passed, {failed} failed")
    return 1 if findings else 0
