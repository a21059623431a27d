"""The sections a printed set is made of: each version's problems, and each version's key.

Each section starts at its own page 1 and names itself in the running header. Entries are built
as a writer asks for them; a version's problems are kept for its key while they are laid out, so
every problem is generated once, whether the key follows it or goes to a file of its own, and
each is worked out only when its key is laid out.
"""

from __future__ import annotations

import pickle
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any

from perfdrill.engine.model.spoken import counted
from perfdrill.engine.output.document import PrintOptions, answer_grid_line, key_entry, problem_entry
from perfdrill.engine.output.versions import ParallelSet, Slot
from perfdrill.engine.problems.templates import Template


class _SlotPickler(pickle.Pickler):
    """Pickles a slot with its template as a reference: a template is shared by many problems."""

    def __init__(self, file: IO[bytes], templates: dict[int, Template]) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.templates = templates

    def persistent_id(self, obj: object) -> int | None:
        if isinstance(obj, Template):
            self.templates.setdefault(id(obj), obj)
            return id(obj)
        return None


class _SlotUnpickler(pickle.Unpickler):
    def __init__(self, file: IO[bytes], templates: dict[int, Template]) -> None:
        super().__init__(file)
        self.templates = templates

    def persistent_load(self, pid: int) -> Template:
        return self.templates[pid]


class KeySpool:
    """A version's key, kept on disk (a temporary file, gone however the run ends) from when its
    problems are laid out until its key is: a key of 2,000 problems held ~60 MB.

    Each problem is kept as generated (7 KB pickled, its template by reference, written and read
    only by this process) and worked out when the key asks for it: the explanations then run
    while typst lays out the key's earlier pages, rather than holding up the problems' pages.
    """

    def __init__(self, options: PrintOptions) -> None:
        self._file = tempfile.TemporaryFile()  # noqa: SIM115  # lives as long as the spool; no name on disk
        self._options = options
        self._templates: dict[int, Template] = {}
        self._count = 0

    def append(self, slot: Slot) -> None:
        _SlotPickler(self._file, self._templates).dump(slot)
        self._count += 1

    def slots(self) -> Iterator[Slot]:
        """The problems in order; each iterator keeps its own place (the answer grid reads the
        key while its pieces are being read)."""
        position = 0
        for _ in range(self._count):
            self._file.seek(position)
            slot = _SlotUnpickler(self._file, self._templates).load()
            position = self._file.tell()
            yield slot
        self._file.seek(0, 2)  # appends go on at the end

    def __iter__(self) -> Iterator[dict[str, Any]]:
        """The key entries in order, each worked out as it is asked for."""
        return (key_entry(slot, self._options) for slot in self.slots())

    def grid(self) -> list[list[str]]:
        """The key's compact answer grid, one line per problem: answers only, no working."""
        return [answer_grid_line(slot) for slot in self.slots()]


@dataclass
class Section:
    kind: str  # "problems" or "key"
    name: str  # what the running header calls it: "Version B", "Answer key · Version B", or ""
    total: int  # problems in the section
    entries: Iterable[dict[str, Any]]
    answer_grid: Callable[[], list[list[str]]] = list  # a key's: one line per problem

    @property
    def problems(self) -> str:
        """How the section's title line counts its problems: "1 problem", "12 problems"."""
        return counted(self.total, "problem")

    def meta(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "total": self.total,
            "problems": self.problems,
            "grid": [],
        }

    def grid(self) -> list[list[str]]:
        """A key's compact answer grid, one line per problem (its problems are all known by the
        time the key is laid out: they were collected while its problems were)."""
        return self.answer_grid()


def problems_section(
    pset: ParallelSet, options: PrintOptions, version: int, keys: KeySpool | None = None
) -> Section:
    """Version `version`'s problems; answers inline if `options` asks, key entries into `keys`."""
    inline = options.answers == "inline"

    def entries() -> Iterator[dict[str, Any]]:
        for slot in pset.slots(version):
            entry = problem_entry(slot, inline=inline)
            if inline:
                entry["key"] = key_entry(slot, options)
            elif keys is not None:
                keys.append(slot)
            yield entry

    return Section("problems", pset.label(version), pset.count, entries())


def key_section(pset: ParallelSet, version: int, keys: KeySpool) -> Section:
    label = pset.label(version)
    return Section("key", " · ".join(filter(None, ["Answer key", label])), pset.count, keys, keys.grid)


def combined_sections(pset: ParallelSet, options: PrintOptions) -> Iterator[Section]:
    """The one-file set: each version's problems, followed by its key when answers go in a key."""
    for version in range(pset.versions):
        keys = KeySpool(options)
        yield problems_section(pset, options, version, keys if options.answers == "key" else None)
        if options.answers == "key":
            yield key_section(pset, version, keys)
