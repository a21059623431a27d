"""`perfdrill calc SUBCOMMAND`: the engine's formulas, exposed directly.

Each subcommand is an entry of the engine's calc table (engine/calc/table.py), and
engine/calc/prepare.py turns its options into formula inputs; this module builds the parsers and
prints. Every result is computed when its own inputs are known; the others are listed with the
options that would give them. Result names are a contract.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from importlib import import_module
from typing import Any

from perfdrill.cli import OneLineParser
from perfdrill.cli.options import add_specs_option
from perfdrill.cli.values import print_json, print_results
from perfdrill.engine.calc.omitted import lines
from perfdrill.engine.calc.prepare import prepare
from perfdrill.engine.calc.spec import Option
from perfdrill.engine.calc.table import SUBCOMMANDS
from perfdrill.engine.model import load_specs

# Shown worked by `calc model --explain`; elsewhere they are taken as given.
MODEL_LEVEL = {"params", "active_params", "kv_bytes_per_token"}


class _CalcParser(OneLineParser):
    """Reads "-5e12" as a value, as Python 3.13's argparse does, so `--flops -5e12` is refused as
    negative rather than as a missing argument."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = re.compile(r"^-\.?\d")


def register(commands: Any, argv: Sequence[str] = ()) -> None:
    """`calc` and its subcommands: only the one `argv` names when it names one (building all of
    them took most of an in-process run), else all (for `--help` and to list them in an error)."""
    calc = commands.add_parser("calc", help="evaluate the performance model directly")
    subs = calc.add_subparsers(
        dest="calc_command", metavar="SUBCOMMAND", required=True, parser_class=_CalcParser
    )
    words = [arg for arg in argv if not arg.startswith("-")]
    named = words[words.index("calc") + 1 : words.index("calc") + 2] if "calc" in words else []
    for spec in [SUBCOMMANDS[named[0]]] if named and named[0] in SUBCOMMANDS else SUBCOMMANDS.values():
        sub = subs.add_parser(spec.name, help=spec.help, description=spec.help)
        offered = {option.flag for option in spec.all_options()}
        for group in spec.groups:
            section = sub.add_argument_group(group.title)
            for option in group.options:
                if option.flag in offered:
                    _add(section, option)
        for option in spec.options:
            if option.flag in offered:
                _add(sub, option)
        output = sub.add_argument_group("output")
        output.add_argument("--json", action="store_true", help="values in base units as JSON")
        output.add_argument("--explain", action="store_true", help="show each formula worked through")
        add_specs_option(output)
        sub.set_defaults(handler=run, calc_name=spec.name)


class _Once(argparse.Action):
    """An option's value given once: `--batch 1 --batch 8` is refused, not read as the last one."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: str | None = None) -> None:
        if getattr(namespace, self.dest, None) is not None:
            parser.error(f"{option_string} is given twice; give it once")
        setattr(namespace, self.dest, values)


def _add(parser: Any, option: Option) -> None:
    if option.switch:
        parser.add_argument(option.flag, action="store_true", help=option.help)
    else:
        parser.add_argument(
            option.flag,
            action=_Once,
            metavar=option.metavar,
            choices=option.choices,
            required=option.required,
            help=option.help,
        )


def run(args: argparse.Namespace) -> int:
    spec = SUBCOMMANDS[args.calc_name]
    if spec.runner is not None:
        runner = import_module(f"perfdrill.cli.{spec.runner}")
        return int(runner.run(args, lambda wanted: prepare(spec, args, wanted)))
    from perfdrill.calc import compute  # the Python API's path: the command only prints its results

    results = compute(spec, args, load_specs(args.specs))
    if args.json:
        print_json(results.to_dict())
        return 0
    shown = [(name, result.quantity) for name, result in results.items() if result.quantity]
    workload = next(iter(results.values())).workload
    given = set(results.formula_inputs) | (set() if spec.model_level else MODEL_LEVEL)
    print_results(workload, shown, results.evaluated, given, explain=args.explain)
    for name, result in results.items():  # measured, not modelled: no formula of the engine's to explain
        if not result.quantity:
            print(f"{name}: {result}")
    for line in [*lines(results.omitted, results.reasons), *results.notes]:
        print(line)
    return 0
