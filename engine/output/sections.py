"""The sections a printed set is made of: each version's problems, and each version's key.

Each section starts at its own page 1 and names itself in the running header. Entries are built
as a writer asks for them; a version's key entries are collected while its problems are laid
out, so every problem is generated once, whether the key follows it or goes to a file of its own.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from perfdrill.engine.output.document import PrintOptions, answer_grid_line, key_entry, problem_entry
from perfdrill.engine.output.versions import ParallelSet


class KeySpool:
    """A version's key entries, kept on disk (a temporary file, gone however the run ends) from
    when its problems are laid out until its key is: a key of 2,000 problems held ~60 MB."""

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile()  # noqa: SIM115  # lives as long as the spool; no name on disk
        self._count = 0

    def append(self, entry: dict[str, Any]) -> None:
        self._file.write(json.dumps(entry, ensure_ascii=False).encode() + b"\n")
        self._count += 1

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[dict[str, Any]]:
        """The entries in order; each iterator keeps its own place (the answer grid reads the key
        while its pieces are being read)."""
        position = 0
        for _ in range(self._count):
            self._file.seek(position)
            line = self._file.readline()
            position = self._file.tell()
            yield json.loads(line)
        self._file.seek(0, 2)  # appends go on at the end


@dataclass
class Section:
    kind: str  # "problems" or "key"
    name: str  # what the running header calls it: "Version B", "Answer key · Version B", or ""
    total: int  # problems in the section
    entries: Iterable[dict[str, Any]]

    def meta(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "total": self.total, "grid": []}

    def grid(self) -> list[list[str]]:
        """A key's compact answer grid, one line per problem (its entries are all known by the
        time the key is laid out: they were collected while its problems were)."""
        return [answer_grid_line(entry) for entry in self.entries] if self.kind == "key" else []


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
                keys.append(key_entry(slot, options))
            yield entry

    return Section("problems", pset.label(version), pset.count, entries())


def key_section(pset: ParallelSet, version: int, keys: KeySpool) -> Section:
    label = pset.label(version)
    return Section("key", " · ".join(filter(None, ["Answer key", label])), pset.count, keys)


def combined_sections(pset: ParallelSet, options: PrintOptions) -> Iterator[Section]:
    """The one-file set: each version's problems, followed by its key when answers go in a key."""
    for version in range(pset.versions):
        keys = KeySpool()
        yield problems_section(pset, options, version, keys if options.answers == "key" else None)
        if options.answers == "key":
            yield key_section(pset, version, keys)
