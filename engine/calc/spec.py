"""The vocabulary of `perfdrill calc`'s table: options, results, and what a subcommand declares.

A subcommand is data (table.py): the workload it evaluates, the results it reports (a stable
contract) and its options, each saying which formula inputs it supplies. prepare.py turns an entry's
option values into formula inputs; perfdrill/cli/calc.py turns it into an argparse parser and output.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from perfdrill.engine.calc.readers import Reader
from perfdrill.engine.model import dependencies


@dataclass(frozen=True)
class Option:
    """One command-line option.

    `read` turns the typed text into a value (None keeps the text: ids and choices). `supplies`
    names the formula inputs (or directly given quantities) the option sets: it drives the
    "give --memory or --chip" hints and the check that every given option changes a result.
    """

    flag: str
    help: str
    read: Reader | None = None
    supplies: tuple[str, ...] = ()
    metavar: str | None = None
    default: Any = None
    required: bool = False
    choices: tuple[str, ...] | None = None
    switch: bool = False
    echo: str | None = None  # its key in the JSON `inputs`, when not its own name

    @cached_property  # read for every option of every calculation
    def dest(self) -> str:
        return self.flag.removeprefix("--").replace("-", "_")


@dataclass(frozen=True)
class Group:
    """Options several subcommands share, with the spec option (`--chip`, `--model`) behind them."""

    title: str
    options: tuple[Option, ...]
    source: str | None = None  # the option whose spec supplies `source_supplies`
    source_supplies: tuple[str, ...] = ()


@dataclass(frozen=True)
class When:
    """A choice that follows an option: when `args.<dest> == value`, use `use`."""

    dest: str
    value: Any
    use: str


@dataclass(frozen=True)
class Result:
    """A result name of the contract and the quantity behind it (which options may swap)."""

    name: str
    quantity: str
    variants: tuple[When, ...] = ()


@dataclass(frozen=True)
class Neglect:
    """A quantity taken as 0, with a note saying so, when its inputs are not all known."""

    quantity: str
    what: str  # how the note names it: "attention FLOPs"
    only: When | None = None


@dataclass(frozen=True)
class Subcommand:
    """One `calc` subcommand, declared as data."""

    name: str
    help: str
    workload: str
    results: tuple[Result, ...]
    options: tuple[Option, ...] = ()
    groups: tuple[Group, ...] = ()
    exclude: tuple[str, ...] = ()  # flags of the groups that do not apply here
    workloads: tuple[When, ...] = ()  # the first that holds replaces `workload`
    constants: Mapping[str, float] = field(default_factory=dict)
    zero_means_zero: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # input -> quantities
    neglect: tuple[Neglect, ...] = ()
    runner: str | None = None  # a module of perfdrill.cli with its own run(); None: the table's output
    model_level: bool = False  # whether the model's own quantities are shown worked in --explain
    refuse: Mapping[str, str] = field(default_factory=dict)  # input -> why its presence is refused

    def all_options(self) -> list[Option]:
        """Its options, the groups' first, without the excluded ones."""
        return list(self._options)

    @cached_property
    def _options(self) -> tuple[Option, ...]:
        """A shared group's options that no result can ever read (--vocab for one attention layer)
        are left out of this subcommand, so its usage lists only what it takes."""
        return tuple(o for o in self._declared if o not in self.unread_options)

    @property
    def _declared(self) -> tuple[Option, ...]:
        return (*(o for g in self.groups for o in g.options if o.flag not in self.exclude), *self.options)

    @cached_property
    def unread_options(self) -> tuple[Option, ...]:
        """The declared options whose formula inputs no result of this subcommand ever reads."""
        if not self.results:  # a runner's results are its own
            return ()
        quantities = [q for r in self.results for q in (r.quantity, *(w.use for w in r.variants))]
        quantities += [n.quantity for n in self.neglect]
        workloads = (self.workload, *(w.use for w in self.workloads))
        readable = set().union(*(dependencies(w, quantities) for w in workloads))
        return tuple(o for o in self._declared if o.supplies and not readable & set(o.supplies))

    def choose(self, args: Any, default: str, variants: tuple[When, ...]) -> str:
        return next((w.use for w in variants if getattr(args, w.dest, None) == w.value), default)

    def workload_for(self, args: Any) -> str:
        return self.choose(args, self.workload, self.workloads)

    def pairs(self, args: Any) -> list[tuple[str, str]]:
        """(result name, quantity) for each result, after the options' swaps."""
        return [(r.name, self.choose(args, r.quantity, r.variants)) for r in self.results]
