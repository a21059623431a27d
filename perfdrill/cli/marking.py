"""`perfdrill mark`: a set's JSON key and the students' answers (CSV) to a gradebook, feedback
for each student, and a per-part summary of the mistakes most often made."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from perfdrill.cli.options import add_questions_option, add_specs_option
from perfdrill.cli.questions import load_questions
from perfdrill.engine import UsageError
from perfdrill.engine.model import load_specs
from perfdrill.engine.output import atomic_output
from perfdrill.engine.output.gradebook import (
    absent_students,
    canvas_csv,
    feedback_markdown,
    gradebook_csv,
    summary_markdown,
    unread_cells,
)
from perfdrill.engine.output.marking import mark, read_key
from perfdrill.engine.output.roster import Student, file_safe


def register(commands: Any) -> None:
    marking = commands.add_parser("mark", help="grade a class's answers (CSV) against a set's JSON key")
    marking.add_argument("--key", type=Path, required=True, help="the set's key: generate --format json")
    marking.add_argument(
        "--answers", type=Path, required=True, help="CSV: a row per student, a column per part (1a, 1b, …)"
    )
    marking.add_argument("-o", "--output", type=Path, required=True, help="the gradebook CSV to write")
    marking.add_argument("--canvas", type=Path, metavar="CSV", help="also a Canvas gradebook import")
    marking.add_argument("--feedback", type=Path, metavar="DIR", help="a feedback file per student here")
    marking.add_argument("--summary", type=Path, metavar="FILE", help="the per-part summary (default stdout)")
    marking.add_argument("--title", default="perfdrill problem set", help="the set's name in files written")
    add_questions_option(marking)
    add_specs_option(marking)
    marking.set_defaults(handler=run_mark)


def _write(path: Path, text: str) -> None:
    try:
        with atomic_output(path) as out:
            out.write(text.encode())
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None


def run_mark(args: argparse.Namespace) -> int:
    copies = read_key(args.key, load_questions(args.questions), load_specs(args.specs))
    marking = mark(args.answers, copies)
    _write(args.output, gradebook_csv(marking))
    if args.canvas:
        _write(args.canvas, canvas_csv(marking, args.title))
    if args.feedback:
        try:
            args.feedback.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot make {args.feedback}: {exc.strerror or exc}") from None
        names = file_safe([Student(row.student, row.name) for row in marking.rows])
        for name, row in zip(names, marking.rows, strict=True):
            _write(args.feedback / f"{name}.md", feedback_markdown(row, args.title))
    summary = summary_markdown(marking)
    if args.summary:
        _write(args.summary, summary)
    else:
        sys.stdout.write(summary)
    for cell in unread_cells(marking):
        sys.stderr.write(f"perfdrill: {args.answers}: {cell}; left ungraded\n")
    if marking.absent:
        sys.stderr.write(
            f"perfdrill: {args.answers}: no row for {len(marking.absent)} student(s) of the key, left empty"
            f" in the gradebook: {absent_students(marking)}\n"
        )
    return 1 if unread_cells(marking) else 0
