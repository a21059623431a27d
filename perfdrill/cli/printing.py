"""`perfdrill generate`: problem sets as Markdown, JSON, standalone HTML or PDF, in parallel
versions, and question pools for Moodle (XML) and Canvas (QTI)."""

from __future__ import annotations

import argparse
import contextlib
import datetime
import io
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import FrameType
from typing import Any, BinaryIO

from perfdrill.cli import Interrupted
from perfdrill.cli.options import add_questions_option, add_set_options, add_specs_option
from perfdrill.cli.questions import load_questions, warn_left_out
from perfdrill.engine import UsageError
from perfdrill.engine.model import load_specs
from perfdrill.engine.model.spoken import counted
from perfdrill.engine.output import (
    ANSWER_MODES,
    ParallelSet,
    Pool,
    PrintOptions,
    atomic_output,
    combined_sections,
    document_head,
    json_items,
    key_section,
    problems_section,
    unprintable,
    version_letter,
    write_json,
    write_markdown_version,
)
from perfdrill.engine.output.roster import Student, file_safe, read_roster
from perfdrill.engine.output.sections import KeySpool
from perfdrill.engine.practice import Plan, Practice
from perfdrill.engine.problems import LeaveOut

PRINTED = ("html", "pdf")
LMS = ("moodle", "qti")
FORMATS = ("md", "json", *PRINTED, *LMS)
SUFFIXES = {"md": ".md", "json": ".json", "html": ".html", "pdf": ".pdf", "moodle": ".xml", "qti": ".zip"}
# Bounds on --count: a printed set of 2,000 problems is ~2,600 pages (30 s); Markdown and JSON
# stream in flat memory; an LMS pool is N variants of every template.
LIMITS = {"md": 1_000_000, "json": 1_000_000, "html": 2_000, "pdf": 2_000, "moodle": 500, "qti": 500}
MAX_TITLE = 200


def register(commands: Any) -> None:
    gen = commands.add_parser(
        "generate", help="generate a problem set (md, json, html, pdf) or an LMS question pool (moodle, qti)"
    )
    add_set_options(gen, "problems (variants of each template for moodle and qti)")
    gen.add_argument(
        "--format", choices=FORMATS, help="output format (default: from -o's extension, else md)"
    )
    gen.add_argument("--answers", choices=ANSWER_MODES, default="key", help="where answers go (default key)")
    gen.add_argument("--title", default="perfdrill problem set", help="title of the set")
    gen.add_argument("--date", help="date in the header, YYYY-MM-DD (default today)")
    gen.add_argument(
        "--versions",
        type=int,
        default=1,
        metavar="N",
        help="N parallel versions: same templates, own numbers",
    )
    gen.add_argument(
        "--roster",
        type=Path,
        metavar="CSV",
        help="one copy per student (CSV with id and name columns), seeded from --seed and the id",
    )
    gen.add_argument(
        "--shuffle", action="store_true", help="versions after A ask their problems in their own order"
    )
    gen.add_argument(
        "--split", action="store_true", help="write each version and the key to files of their own (needs -o)"
    )
    gen.add_argument(
        "--answer-space", type=int, default=0, metavar="LINES", help="blank lines under each numeric part"
    )
    gen.add_argument("--one-per-page", action="store_true", help="a page break between problems (html, pdf)")
    gen.add_argument("--no-plots", action="store_true", help="leave the roofline plots out of the key")
    gen.add_argument(
        "--question", action="append", default=[], metavar="ID", help="only this question (repeat for more)"
    )
    gen.add_argument(
        "--no-builtin", action="store_true", help="only your own questions (your folder and --questions)"
    )
    gen.add_argument("-o", "--output", type=Path, help="write to FILE instead of stdout")
    add_questions_option(gen)
    add_specs_option(gen)
    gen.set_defaults(handler=run_generate)


class Interrupts:
    """Ctrl+C (or SIGTERM) always stops a run. A KeyboardInterrupt raised inside a weakref
    callback or a destructor is swallowed by Python, so the flag makes the next checkpoint
    raise it again."""

    def __init__(self) -> None:
        self.hit = False
        self._previous: dict[int, Any] = {}

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.hit = True
        raise Interrupted  # not a bare KeyboardInterrupt: see Interrupted

    def check(self) -> None:
        if self.hit:
            raise Interrupted

    def __enter__(self) -> Interrupts:
        with contextlib.suppress(ValueError):  # not the main thread: leave signals alone
            for signum in (signal.SIGINT, signal.SIGTERM):
                self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)


def _warn(message: str) -> None:
    sys.stderr.write(f"perfdrill: warning: {message}\n")


def _date(text: str | None) -> str:
    if text is None:
        return datetime.date.today().isoformat()
    try:
        return datetime.date.fromisoformat(text).isoformat()
    except ValueError:
        raise UsageError(f"--date {text!r} is not a date like 2026-11-22") from None


def output_format(given: str | None, output: Path | None) -> str:
    """--format, or the format -o's extension names (exam.pdf is a PDF); a mismatch is refused,
    so `-o exam.pdf --format md` never writes Markdown into a file named as a PDF."""
    named = next((f for f, suffix in SUFFIXES.items() if output and output.suffix.lower() == suffix), None)
    if output is not None and output.suffix.lower() == ".htm":
        named = "html"
    if given is not None and named is not None and given != named:
        raise UsageError(f"-o {output} names a {named} file but --format is {given}; change one of them")
    return given or named or "md"


def check_options(args: argparse.Namespace, students: int = 0) -> None:
    """Every option that can be wrong, before anything is generated or written."""
    if args.count < 1:
        raise UsageError("--count must be at least 1")
    limit = LIMITS[args.format]
    if args.count * max(args.versions, students, 1) > limit:
        what = (
            "--count × students" if students else "--count × --versions" if args.versions > 1 else "--count"
        )
        more = " (md and json stream sets of any size)" if args.format in PRINTED else ""
        raise UsageError(f"{what} must be at most {limit:,} for --format {args.format}{more}")
    if not 1 <= args.versions <= 26:
        raise UsageError("--versions must be between 1 and 26")
    if not 0 <= args.answer_space <= 40:
        raise UsageError("--answer-space must be between 0 and 40 lines")
    if len(args.title) > MAX_TITLE or not args.title.strip():
        raise UsageError(f"--title must have 1 to {MAX_TITLE} characters")
    printed_only = [
        option
        for option, given in (("--versions", args.versions > 1), ("--roster", args.roster),
                              ("--shuffle", args.shuffle), ("--split", args.split))
        if given
    ]  # fmt: skip
    if args.format in LMS and printed_only:
        raise UsageError(
            f"--format {args.format} writes a pool of variants; {' and '.join(printed_only)}"
            f" {'is' if len(printed_only) == 1 else 'are'} for printed sets"
        )
    if args.roster and args.versions > 1:
        raise UsageError("--roster gives each student a version of their own; leave out --versions")
    if args.split:
        _check_split(args)
    if args.format == "pdf" and args.output is None and sys.stdout.isatty():
        raise UsageError("a PDF needs -o FILE (or a pipe), not the terminal")
    if args.format in LMS and args.output is None and sys.stdout.isatty():
        raise UsageError(f"--format {args.format} needs -o FILE (or a pipe), not the terminal")


def _check_split(args: argparse.Namespace) -> None:
    """--split's one requirement that fails, named alone (the first, if several do)."""
    if args.output is None:
        raise UsageError(
            "--split needs -o FILE: it names the files (exam.pdf gives exam-A.pdf, exam-key.pdf)"
        )
    if args.format == "json":
        raise UsageError("--split cannot write JSON: use --format md, html or pdf")
    if args.answers == "inline":
        raise UsageError("--split cannot put answers inline: use --answers key (a key file) or none")


def split_paths(output: Path, versions: int, format: str, students: Sequence[Student] = ()) -> list[Path]:
    """exam.pdf -> exam-A.pdf, exam-B.pdf, … (or exam-ID.pdf for each student of a roster), and
    exam-key.pdf for the keys."""
    suffix = output.suffix or SUFFIXES[format]
    names = file_safe(students) if students else [version_letter(v) for v in range(versions)]
    return [output.with_name(f"{output.stem}-{name}{suffix}") for name in [*names, "key"]]


@contextlib.contextmanager
def _opened(path: Path) -> Iterator[BinaryIO]:
    """`path` ready for writing, checked before any work: one line and exit 2 if it cannot be."""
    try:
        with atomic_output(path) as out:
            yield out
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None


def run_generate(args: argparse.Namespace) -> int:
    date = _date(args.date)
    args.format = output_format(args.format, args.output)
    students = read_roster(args.roster, _warn) if args.roster else []
    check_options(args, len(students))
    paths = split_paths(args.output, args.versions, args.format, students) if args.split else [args.output]
    if args.split and args.answers == "none":
        paths = paths[:-1]
    # Standard output gets the whole set or nothing: a set that fails half-way prints no header.
    held = io.BytesIO()
    with Interrupts() as interrupts, contextlib.ExitStack() as stack:
        outs = [stack.enter_context(_opened(p)) if p else held for p in paths]
        bank = load_questions(args.questions, args.question, builtin=not args.no_builtin)
        specs = load_specs(args.specs)
        if args.format in LMS:
            size = counted(_write_pool(args, bank, specs, outs[0], interrupts.check), "question")
        else:
            plan = Plan(tuple(args.family), args.difficulty, args.count, seed=args.seed)
            practice = Practice(plan, bank, specs, warn_left_out)
            pset = ParallelSet(
                practice.problem, practice.specs, count=args.count, versions=args.versions,
                seed=args.seed, shuffle=args.shuffle, checkpoint=interrupts.check, students=students,
            )  # fmt: skip
            pages = _write_set(args, pset, date, outs, interrupts.check)
            size = counted(pages, "page") if pages else ""
        interrupts.check()  # an interrupt swallowed on the way stops here, before any rename
        if not args.output:
            sys.stdout.buffer.write(held.getvalue())
            sys.stdout.flush()
    if args.output and paths[0].is_file():  # a device (/dev/stdout, /dev/null) is not "written"
        sys.stderr.write(wrote_line(paths, size))
    return 0


def wrote_line(paths: Sequence[Path], size: str) -> str:
    """What generate says once its files are in place: "wrote quiz3.pdf (142 pages)", or for
    --split "wrote 31 files (412 pages): quiz3-s1815.pdf … quiz3-key.pdf"."""
    size = f" ({size})" if size else ""
    if len(paths) == 1:
        return f"perfdrill: wrote {paths[0]}{size}\n"
    listed = ", ".join(map(str, paths)) if len(paths) <= 3 else f"{paths[0]} … {paths[-1]}"
    return f"perfdrill: wrote {counted(len(paths), 'file')}{size}: {listed}\n"


def _write_pool(
    args: argparse.Namespace, bank: Any, specs: Any, out: BinaryIO, check: Callable[[], None]
) -> int:
    """Writes the LMS pool; returns how many questions (variants) it holds."""
    templates = bank.select(tuple(args.family), args.difficulty)
    left_out = LeaveOut(bank.builtin, warn_left_out)
    pool = Pool(templates, specs, args.count, args.seed, left_out=left_out, answers=args.answers)
    if args.format == "moodle":
        from perfdrill.engine.output.moodle import write_moodle

        return write_moodle(pool, out, check)
    else:
        from perfdrill.engine.output.qti import write_qti

        return write_qti(pool, out, args.title, check)


def _write_set(
    args: argparse.Namespace, pset: ParallelSet, date: str, outs: list[BinaryIO], check: Callable[[], None]
) -> int | None:
    """Writes the set; returns the pages of a PDF, all files together (None for other formats)."""
    if args.format == "json":
        write_json(json_items(pset, args.answers), outs[0])
        return None
    if args.format == "md":
        key = outs[-1] if args.split and args.answers == "key" else None
        for version in range(pset.versions):
            out = outs[version] if args.split else outs[0]
            if version and not args.split:
                out.write(b"\n---\n\n")
            write_markdown_version(
                pset, version, out, title=args.title, date=date, answers=args.answers, key=key
            )
        return None
    options = PrintOptions(
        args.title, date, args.seed, args.answers, args.answer_space, args.one_per_page, not args.no_plots
    )
    head = document_head(options, pset.versions, pset.points() if pset.students else None)
    if args.format == "pdf" and (missing := unprintable(args.title)):
        _warn(f"the PDF fonts cannot show {missing} in the title; they print as boxes")
    if not args.split:
        return _render(args.format, head, combined_sections(pset, options), outs[0], check)
    student = PrintOptions(args.title, date, args.seed, "none", args.answer_space, args.one_per_page, False)
    student_head = {**document_head(student, pset.versions), "points": head["points"]}
    keys: list[KeySpool] = []
    pages = 0
    for version in range(pset.versions):
        keys.append(KeySpool(options))
        collected = keys[-1] if args.answers == "key" else None
        section = problems_section(pset, options if collected is not None else student, version, collected)
        pages += _render(args.format, student_head, [section], outs[version], check) or 0
    if args.answers == "key":
        pages += (
            _render(
                args.format,
                head,
                [key_section(pset, v, keys[v]) for v in range(pset.versions)],
                outs[-1],
                check,
            )
            or 0
        )
    return pages or None


def _render(
    format: str, head: dict[str, Any], sections: Any, out: BinaryIO, check: Callable[[], None]
) -> int | None:
    """Lays out HTML or PDF; returns a PDF's pages."""
    if format == "html":
        from perfdrill.engine.output import render_html

        render_html(head, sections, out)
        return None
    from perfdrill.engine.output import render_pdf

    return render_pdf(head, sections, out, check)
