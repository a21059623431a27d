"""`perfdrill` command line. Each subcommand lives in its own module and is imported lazily."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from perfdrill.engine import PerfdrillError


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


def build_parser(argv: Sequence[str]) -> OneLineParser:
    """The parser for `argv`: only the subcommand it names, so a run imports no other."""
    parser = OneLineParser(
        prog="perfdrill",
        description=(
            "Practise GPU and LLM performance questions: roofline, batching, KV cache, parallelism."
        ),
    )
    from importlib import import_module
    from importlib.metadata import version

    parser.add_argument("--version", action="version", version=f"perfdrill {version('perfdrill')}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    for module in _modules_for(argv):
        import_module(f"perfdrill.cli.{module}").register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(given)
    args = parser.parse_args(given)
    if args.command is None:
        args = parser.parse_args(["practice"])  # bare `perfdrill` is the practice TUI
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        return handler(args)
    except PerfdrillError as exc:
        sys.stderr.write(f"perfdrill: error: {exc.one_line()}\n")
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
