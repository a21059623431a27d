"""Options several subcommands share, declared once."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def add_specs_option(parser: Any) -> None:
    parser.add_argument(
        "--specs",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="extra folder of chip/model YAML",
    )


def add_set_options(parser: Any, what: str, *, fresh_seed: bool = False) -> None:
    """How many questions, from which families and difficulty, with which seed. `fresh_seed`:
    no --seed means a new seed each time (practice), not the same set every day."""
    parser.add_argument("--count", type=int, default=10, help=f"number of {what} (default 10)")
    if fresh_seed:
        parser.add_argument("--seed", type=int, help="seed of the set (default: a fresh one, printed)")
    else:
        parser.add_argument("--seed", type=int, default=0, help="seed of the set (default 0)")
    parser.add_argument(  # any family the bank holds: built-in, or declared by your templates
        "--family",
        action="append",
        default=[],
        metavar="FAMILY",
        help="only this family (see `perfdrill list`)",
    )
    # Imported here: `calc`, which shares this module, needs no bank.
    from perfdrill.engine.problems import DIFFICULTIES

    parser.add_argument("--difficulty", choices=DIFFICULTIES, help="only this difficulty")


def add_questions_option(parser: Any) -> None:
    parser.add_argument(
        "--questions", type=Path, action="append", default=[], metavar="DIR", help="extra template folder"
    )


def add_restriction_options(parser: Any) -> None:
    """`--chip`/`--model`: a restriction changes which variant a seed draws, so it is part of a
    variant's reference (the app shows it after the seed)."""
    parser.add_argument("--chip", action="append", default=[], metavar="ID", help="only this chip")
    parser.add_argument("--model", action="append", default=[], metavar="ID", help="only this model")
