"""`perfdrill new` and `perfdrill preview`: writing a template and watching it render."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rich.console import Group, RenderableType
from rich.markdown import Markdown
from rich.panel import Panel
from rich.table import Table

from perfdrill.cli import terminal
from perfdrill.cli.options import add_questions_option, add_restriction_options, add_specs_option
from perfdrill.cli.questions import load_questions
from perfdrill.engine import PerfdrillError, UsageError, user_data_dir
from perfdrill.engine.model import computed, info, load_specs, workload_names
from perfdrill.engine.output import explanation_markdown
from perfdrill.engine.problems import (
    CATALOGUE,
    Problem,
    Template,
    generate,
    letter,
    load_folders,
    question_schema,
    scaffold,
    show_number,
)


def register(commands: Any) -> None:
    new = commands.add_parser("new", help="scaffold a question template that passes `perfdrill check`")
    new.add_argument("id", metavar="FAMILY/SLUG", help="e.g. kv_cache/long-context")
    new.add_argument(
        "--into", type=Path, metavar="DIR", help="template root (default: your user data questions/)"
    )
    new.set_defaults(handler=run_new)

    preview = commands.add_parser("preview", help="render one variant with answers, mistakes, explanation")
    preview.add_argument("target", metavar="ID|FOLDER", help="a question id or a template folder")
    preview.add_argument("--seed", type=int, default=0, help="variant seed (default 0)")
    preview.add_argument("--watch", action="store_true", help="re-render whenever the files change")
    add_restriction_options(preview)
    add_questions_option(preview)
    add_specs_option(preview)
    preview.set_defaults(handler=run_preview)

    quantities = commands.add_parser("quantities", help="the engine quantities a template can use")
    quantities.add_argument("workload", nargs="?", help="one workload (default: list the workloads)")
    quantities.set_defaults(handler=run_quantities)

    schema = commands.add_parser("schema", help="print the JSON Schema of question.yaml, for editors")
    schema.set_defaults(handler=run_schema)


def run_quantities(args: argparse.Namespace) -> int:
    if args.workload is None:
        for workload in workload_names():
            print(f"{workload:<22} {len(computed(workload))} quantities")
        print("\nperfdrill quantities WORKLOAD lists each with its unit and formula")
        return 0
    if args.workload not in workload_names():
        raise UsageError(f"unknown workload {args.workload!r}; workloads: {', '.join(workload_names())}")
    results = sorted(computed(args.workload))
    inputs = sorted({arg for name in results for arg in info(args.workload, name).args} - set(results))
    print(f"inputs of {args.workload} (from the scenario, parameters or `inputs:`):")
    for name in inputs:
        meta = info(args.workload, name)
        print(f"  {name:<34} [{meta.unit}]  {meta.doc}")
    print(f"\ncomputed by {args.workload} (usable in answers, constraints, scenarios and prompts):")
    for name in results:
        meta = info(args.workload, name)
        print(f"  {name:<34} [{meta.unit}]  {meta.formula}  ({meta.doc})")
    return 0


def schema_text() -> str:
    return json.dumps(question_schema(), indent=2, ensure_ascii=False) + "\n"


def run_schema(args: argparse.Namespace) -> int:
    sys.stdout.write(schema_text())
    return 0


def run_new(args: argparse.Namespace) -> int:
    root = args.into or user_data_dir() / "questions"
    made = scaffold(args.id, root)
    if made.family_file is not None:
        near = f" (did you mean the built-in {' or '.join(made.near)}?)" if made.near else ""
        print(f"created {made.family_file}: a new family{near}; edit its title and description")
    print(f"created {made.folder}/ (question.yaml, prompt.md.j2)")
    print(f"next: perfdrill check {made.folder}   then   perfdrill preview {made.folder} --watch")
    return 0


def _template(args: argparse.Namespace) -> Template:
    folder = Path(args.target)
    if folder.is_dir():
        (template,) = load_folders([folder], folder.parent)
        return template
    return load_questions(args.questions, [args.target]).get(args.target)


def preview_view(problem: Problem) -> RenderableType:
    """The variant as an author checks it: prompt, parts with answers and mistake values, the rest."""
    template = problem.template
    parts = Table(show_header=True, header_style="bold", expand=True)
    for column in ("part", "answer", "named mistakes (their values)"):
        parts.add_column(column)
    for index, part in enumerate(problem.parts):
        slips = "\n".join(f"{CATALOGUE[m].title}: {show_number(v, part.unit)}" for m, v in part.mistakes)
        choices = "".join(f"\n  {letter(i)}. {c}" for i, c in enumerate(part.choices))
        parts.add_row(f"({letter(index)}) {part.prompt}{choices}", part.shown_answer, slips or "-")
    hints = "\n".join(f"{i + 1}. {hint}" for i, hint in enumerate(problem.hints)) or "none"
    return Group(
        Panel(Markdown(problem.prompt), title=f"{template.title}  ·  {problem.id} #{problem.seed}"),
        parts,
        Panel(hints, title="hints"),
        Panel(Markdown(explanation_markdown(problem)), title="explanation"),
    )


def _snapshot(folder: Path) -> tuple[tuple[str, int, int], ...]:
    return tuple(
        sorted((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in folder.rglob("*") if p.is_file())
    )


def changes(folder: Path) -> Iterator[None]:
    """Yield once now and again after every change under `folder`, polling twice a second."""
    last = _snapshot(folder)
    yield
    while True:
        time.sleep(0.5)
        now = _snapshot(folder)
        if now != last:
            last = now
            yield


def run_preview(args: argparse.Namespace) -> int:
    console = terminal.console()
    specs = load_specs(args.specs).only(args.chip, args.model)
    if not args.watch:
        console.print(preview_view(generate(_template(args), args.seed, specs)))
        return 0
    template = _template(args)
    folder = template.folder
    try:
        for _ in changes(folder):
            console.clear()
            try:
                (template,) = load_folders([folder], folder.parent)
                console.print(preview_view(generate(template, args.seed, specs)))
            except PerfdrillError as exc:  # keep watching: the author is mid-edit
                console.print(exc.one_line(), style="red")
            console.print(f"watching {folder} (Ctrl+C to stop)", style="dim")
    except KeyboardInterrupt:
        return 0
    return 0
