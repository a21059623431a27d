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


def build_parser() -> OneLineParser:
    parser = OneLineParser(
        prog="perfdrill",
        description=(
            "Practise GPU and LLM performance questions: roofline, batching, KV cache, parallelism."
        ),
    )
    from importlib.metadata import version

    parser.add_argument("--version", action="version", version=f"perfdrill {version('perfdrill')}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    from perfdrill.cli import authoring, calc, practice, printing, questions, specs

    practice.register(commands)
    calc.register(commands)
    specs.register(commands)
    printing.register(commands)
    questions.register(commands)
    authoring.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
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
