"""`perfdrill generate`: problem sets as Markdown, JSON, standalone HTML or PDF, in N versions."""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path
from typing import Any

from perfdrill.cli.options import add_questions_option, add_set_options, add_specs_option
from perfdrill.engine import UsageError, write_atomically
from perfdrill.engine.model import load_specs
from perfdrill.engine.output import (
    ANSWER_MODES,
    PrintOptions,
    problem_json,
    set_document,
    set_markdown,
    version_label,
)
from perfdrill.engine.practice import Plan, Practice
from perfdrill.engine.problems import Problem, load_bank, variant_seed

FORMATS = ("md", "json", "html", "pdf")


def register(commands: Any) -> None:
    gen = commands.add_parser("generate", help="generate a problem set with answers (md, json, html, pdf)")
    add_set_options(gen, "problems")
    gen.add_argument("--format", choices=FORMATS, default="md", help="output format (default md)")
    gen.add_argument("--answers", choices=ANSWER_MODES, default="key", help="where answers go (default key)")
    gen.add_argument("--title", default="perfdrill problem set", help="title in the header")
    gen.add_argument("--date", help="date in the header, YYYY-MM-DD (default today)")
    gen.add_argument(
        "--versions", type=int, default=1, metavar="N", help="N different versions, each with its key"
    )
    gen.add_argument(
        "--answer-space", type=int, default=0, metavar="LINES", help="blank lines under each part"
    )
    gen.add_argument("--one-per-page", action="store_true", help="a page break between problems (html, pdf)")
    gen.add_argument("--no-plots", action="store_true", help="leave the roofline plots out of the key")
    gen.add_argument("-o", "--output", type=Path, help="write to FILE instead of stdout")
    add_questions_option(gen)
    add_specs_option(gen)
    gen.set_defaults(handler=run_generate)


def version_seed(seed: int, version: int) -> int:
    """Version A is the set `seed` itself, so a one-version set and version A are the same."""
    return seed if version == 0 else variant_seed(seed, 100_000 + version)


def build_versions(args: argparse.Namespace) -> list[list[Problem]]:
    if args.count < 1:
        raise UsageError("--count must be at least 1")
    if not 1 <= args.versions <= 26:
        raise UsageError("--versions must be between 1 and 26")
    if not 0 <= args.answer_space <= 40:
        raise UsageError("--answer-space must be between 0 and 40 lines")
    bank, specs = load_bank(args.questions), load_specs(args.specs)
    versions = []
    for version in range(args.versions):
        plan = Plan(tuple(args.family), args.difficulty, args.count, seed=version_seed(args.seed, version))
        practice = Practice(plan, bank, specs)
        versions.append([practice.problem(index) for index in range(args.count)])
    return versions


def _date(text: str | None) -> str:
    if text is None:
        return datetime.date.today().isoformat()
    try:
        return datetime.date.fromisoformat(text).isoformat()
    except ValueError:
        raise UsageError(f"--date {text!r} is not a date like 2026-11-22") from None


def render(args: argparse.Namespace, versions: list[list[Problem]], date: str) -> bytes:
    count = len(versions)
    if args.format == "json":
        data = []
        for index, problems in enumerate(versions):
            for problem in problems:
                item = problem_json(problem)
                if count > 1:
                    item["version"] = version_label(index, count)
                if args.answers == "none":
                    item.pop("explanation")
                    for part in item["parts"]:
                        part.pop("answer")
                data.append(item)
        return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode()
    if args.format == "md":
        sets = [
            set_markdown(
                problems,
                title=" — ".join(filter(None, [args.title, version_label(index, count)])),
                date=date,
                seed=args.seed,
                answers=args.answers,
            )
            for index, problems in enumerate(versions)
        ]
        return "\n\n---\n\n".join(sets).encode()
    options = PrintOptions(
        args.title, date, args.seed, args.answers, args.answer_space, args.one_per_page, not args.no_plots
    )
    document = set_document(versions, options)
    if args.format == "html":
        from perfdrill.engine.output import render_html

        return render_html(document).encode()
    from perfdrill.engine.output import render_pdf

    return render_pdf(document)


def run_generate(args: argparse.Namespace) -> int:
    date = _date(args.date)
    if args.format == "pdf" and args.output is None and sys.stdout.isatty():
        raise UsageError("a PDF needs -o FILE (or a pipe), not the terminal")
    data = render(args, build_versions(args), date)
    if args.output:
        write_atomically(args.output, data)
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    return 0
