"""`perfdrill` command line. Each subcommand lives in its own module and is imported lazily."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from types import FrameType
from typing import NoReturn

from perfdrill.cli.terminal import SafeStream
from perfdrill.engine import PerfdrillError


class Interrupted(KeyboardInterrupt):
    """Ctrl+C as perfdrill's own SIGINT handlers raise it (`except KeyboardInterrupt` catches it).

    Not a bare KeyboardInterrupt: CPython (3.11.7, 3.12.1 and 3.13.0 checked) flags the whole run
    as ended by an uncaught Ctrl+C when one leaves source text run by exec() or eval(), as
    dataclasses and namedtuple do while a module loads, even if it is caught further out;
    `python -m perfdrill` then re-sends SIGINT to itself as it exits, ending by the signal instead
    of with 130. The flag is set only for that exact type, so a subclass never sets it.
    """


def raise_interrupted(signum: int, frame: FrameType | None) -> NoReturn:
    """A SIGINT handler: Ctrl+C as `Interrupted`."""
    raise Interrupted


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit code 2."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(2)


# Which module registers each subcommand, in the order `--help` lists them. A run imports only the
# module its subcommand needs: importing all of them (the bank, Rich, the practice store) would
# triple the cold start of `perfdrill calc`.
OWNERS = {
    "practice": "practice", "review": "practice", "stats": "practice",
    "calc": "calc",
    "specs": "specs",
    "generate": "printing", "mark": "marking",
    "list": "questions", "grade": "questions", "check": "questions",
    "new": "authoring", "preview": "authoring", "quantities": "authoring", "schema": "authoring",
}  # fmt: skip


def _modules_for(argv: Sequence[str]) -> list[str]:
    """The modules to register: the one that owns the subcommand named, else all (for `--help`
    and for errors that list the subcommands); bare `perfdrill` is the practice app."""
    if not argv:
        return ["practice"]
    named = next((arg for arg in argv if not arg.startswith("-")), None)
    return [OWNERS[named]] if named in OWNERS else list(dict.fromkeys(OWNERS.values()))


class _Version(argparse.Action):
    """`--version`, read only when asked: the package metadata costs a fifth of an in-process run."""

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from importlib.metadata import version

        print(f"perfdrill {version('perfdrill')}")
        parser.exit()


def build_parser(argv: Sequence[str]) -> OneLineParser:
    """The parser for `argv`: only the subcommand it names, so a run imports no other."""
    parser = OneLineParser(
        prog="perfdrill",
        description=(
            "Practise GPU and LLM performance questions: roofline, batching, KV cache, parallelism."
        ),
    )
    from importlib import import_module

    parser.add_argument("--version", action=_Version, nargs=0, help="show the version and exit")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    for module in _modules_for(argv):
        registered = import_module(f"perfdrill.cli.{module}")
        if module == "calc":  # calc's 24 subcommands: it builds only the one argv names
            registered.register(commands, argv)
        else:
            registered.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; everything it writes to stdout and stderr is made safe for a terminal."""
    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = SafeStream(sys.stdout), SafeStream(sys.stderr)
    try:
        return _run(list(sys.argv[1:] if argv is None else argv))
    finally:
        sys.stdout, sys.stderr = streams


def _run(given: list[str]) -> int:
    parser = build_parser(given)
    args = parser.parse_args(given)
    if args.command is None:
        args = parser.parse_args(["practice"])  # bare `perfdrill` is the practice TUI
    handler: Callable[[argparse.Namespace], int] = args.handler
    if threading.current_thread() is threading.main_thread():
        # Start-up is over: Ctrl+C is KeyboardInterrupt again (as `Interrupted`), which each
        # command turns into a clean stop with exit code 130 (the app takes the signal over).
        signal.signal(signal.SIGINT, raise_interrupted)
    try:
        return handler(args)
    except PerfdrillError as exc:
        sys.stderr.write(f"perfdrill: error: {exc.one_line()}\n")
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
