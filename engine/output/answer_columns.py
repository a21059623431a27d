"""The header of a class's answers CSV: which column holds which part, and which the students' ids.

Forms and LMS exports name columns their own way: `1a`, `Q1a`, `Question 1a`, `1.a`, `1(a)`,
`4 (b)`, often with the unit the student was asked for after the name (`1a (FLOP/B)`). A column
that looks like a part but cannot be read as one, and a part with no column, stop marking: a part
left out would mark the whole class out of the wrong total.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from perfdrill.engine.errors import UsageError
from perfdrill.engine.problems.answers import letter

PART_FORMS = "1a, Q1a, Question 1a, 1.a or 1(a)"
# The problem's number, then the part's letter, with what forms put before and between them.
_PREFIX = r"(?:q|question|problem)\s*\.?\s*"
_PART = re.compile(rf"^(?:{_PREFIX})?(\d{{1,4}})\s*[-.:_/ ]*\(?\s*([a-z])\s*\)?$", re.IGNORECASE)
# A unit in brackets after the name, the form's hint to the student: "1a (FLOP/B)", "2b [ms]".
_UNIT = re.compile(r"\s*[(\[][^()\[\]]*[)\]]$")
# What a person means as a part: "Q…" or "Question…" then a number, or a number then a lone letter.
_PART_LIKE = re.compile(rf"^(?:{_PREFIX}\d|\d{{1,4}}\s*[-.:_/ ]*\(?\s*[a-z](?![a-z]))", re.IGNORECASE)
# Students' id columns as rosters and LMS exports name them (Moodle: ID number; Canvas: SIS User ID).
ID_COLUMNS = ("id", "student id", "studentid", "id number", "idnumber", "sis user id", "student number")
ID_FORMS = "id, Student ID, ID number, SIS User ID or Student number"
NAME_COLUMNS = ("name", "student name", "full name", "student")


def _plain(name: str) -> str:
    return re.sub(r"[\s_]+", " ", name.strip().lower())


def part_of(name: str) -> tuple[int, int] | None:
    """The (problem number, part index) a column's name gives, e.g. "Q2 (b)" → (2, 1)."""
    name = name.strip()
    found = _PART.match(name) or _PART.match(_UNIT.sub("", name))
    return (int(found.group(1)), ord(found.group(2).lower()) - ord("a")) if found else None


@dataclass(frozen=True)
class Header:
    names: list[str]  # as the CSV writes them
    parts: dict[str, tuple[int, int, int]]  # part label ("1a") → (column, problem index, part index)
    ids: list[int]  # the columns that may hold the students' ids, in the order written
    name: int | None
    version: int | None

    def column(self, label: str) -> str:
        """The CSV's own name for a part's column, e.g. "4(b)" for part 4b."""
        return self.names[self.parts[label][0]]


def _fail(path: Path, message: str, column: str | None = None) -> UsageError:
    return UsageError(message, file=str(path), line=1, field=f"column {column!r}" if column else None)


def read_header(path: Path, names: Sequence[str], shape: Sequence[int]) -> Header:
    """The answer columns of a header for a set whose problems have `shape` parts each."""
    parts: dict[str, tuple[int, int, int]] = {}
    for index, name in enumerate(names):
        found = part_of(name)
        if found is None:
            if _PART_LIKE.match(name.strip()):
                raise _fail(path, f"looks like a part but is not read as one: name it {PART_FORMS}", name)
            continue
        number, part = found
        if not 1 <= number <= len(shape) or part >= shape[number - 1]:
            raise _fail(path, "names no part of the set's problems", name)
        label = f"{number}{letter(part)}"
        if label in parts:
            raise _fail(path, f"a second column for part {label}", name)
        parts[label] = (index, number - 1, part)
    if not parts:
        raise _fail(path, f"no answer columns: name them by problem and part, e.g. {PART_FORMS}")
    missing = [f"{n + 1}{letter(p)}" for n, count in enumerate(shape) for p in range(count)]
    missing = [label for label in missing if label not in parts]
    if missing:
        read = ", ".join(names[column] for column, _, _ in sorted(parts.values()))
        raise _fail(
            path,
            f"no column for part {', '.join(missing)} (the part columns read: {read}); add one for each"
            " part, empty where nobody answered",
        )
    plain = [_plain(name) for name in names]
    return Header(
        list(names),
        dict(sorted(parts.items(), key=lambda item: item[1][1:])),
        [i for i, name in enumerate(plain) if name in ID_COLUMNS],
        next((i for i, name in enumerate(plain) if name in NAME_COLUMNS), None),
        next((i for i, name in enumerate(plain) if name == "version"), None),
    )


def id_column(header: Header, rows: Sequence[Sequence[str]], ids: Collection[str]) -> int | None:
    """The column of the students' ids: of those named like one, the one holding most of the key's
    ids (a Canvas export has both Canvas's own `ID` and the roster's `SIS User ID`)."""
    if not header.ids:
        return None

    def known(column: int) -> int:
        return sum(column < len(row) and row[column].strip() in ids for row in rows)

    return max(header.ids, key=lambda column: (known(column), -header.ids.index(column)))
