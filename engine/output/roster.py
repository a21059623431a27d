"""A class roster: one personal version of a set per student, seeded from the student's id.

The roster is a CSV file with a header row naming at least `id` and `name` (any case); every
other column is kept and travels with the student into the key. A malformed file is one line
naming the file, the line and the column. A roster whose header is one column holding semicolons
(or tabs), as a spreadsheet saves "CSV" where the comma is the decimal mark, is read with that
separator, and the caller is told so.
"""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from perfdrill.engine.errors import UsageError

MAX_STUDENTS = 2_000
MAX_CELL = 200  # characters of one roster cell: a name, an id, an e-mail address
REQUIRED = ("id", "name")
OTHER_SEPARATORS = {";": "semicolon", "\t": "tab"}


@dataclass(frozen=True)
class Student:
    id: str
    name: str
    extra: dict[str, str] = field(default_factory=dict, compare=False)

    @property
    def label(self) -> str:
        """How the student's copy names them, e.g. "Ada Lovelace (s1815)"."""
        return f"{self.name} ({self.id})"

    def seed_base(self, set_seed: int) -> int:
        """The base of this student's seeds: the set's seed and the id, so a copy is reproducible
        from the roster and the seed alone, and no two students share one by their position."""
        digest = hashlib.sha256(f"student#{set_seed}#{self.id}".encode()).digest()
        return int.from_bytes(digest[:6], "big")


def _error(path: Path, line: int, column: str, message: str) -> UsageError:
    return UsageError(message, file=str(path), line=line, field=f"column {column!r}")


def _separator(header_line: str) -> str | None:
    """The separator a one-column header holds instead of commas (';' or a tab), if csv.Sniffer
    finds one of them consistent; None when it holds neither."""
    if not any(separator in header_line for separator in OTHER_SEPARATORS):
        return None
    try:
        return csv.Sniffer().sniff(header_line, delimiters="".join(OTHER_SEPARATORS)).delimiter
    except csv.Error:
        return None


def read_roster(path: Path, warn: Callable[[str], None]) -> list[Student]:
    """The students of a roster CSV file, in its order. `warn` is told when the file is read with
    a separator other than the comma."""
    try:
        text = path.read_text(encoding="utf-8-sig")  # a spreadsheet's export may start with a BOM
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read the roster {path}: {getattr(exc, 'strerror', None) or exc}") from None
    rows = csv.reader(io.StringIO(text))
    header = [name.strip() for name in next(rows, [])]
    read_as = ""
    if len(header) == 1 and (separator := _separator(header[0])):
        read_as = f"{OTHER_SEPARATORS[separator]}-separated"
        rows = csv.reader(io.StringIO(text), delimiter=separator)
        header = [name.strip() for name in next(rows)]
    columns = {name.lower(): index for index, name in enumerate(header)}
    for name in REQUIRED:
        if name not in columns:
            hint = f" (read as {read_as}: its header has no commas)" if read_as else ""
            raise _error(
                path, 1, name, f"the roster needs a header row with columns {', '.join(REQUIRED)}{hint}"
            )
    if read_as:
        warn(f"{path}: read as {read_as}: its header row has no commas")
    students: list[Student] = []
    seen: dict[str, int] = {}
    for line, row in enumerate(rows, start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) > len(header):
            raise _error(path, line, header[-1], f"{len(row)} cells where the header has {len(header)}")
        cells = {name: (row[i].strip() if i < len(row) else "") for i, name in enumerate(header)}
        for name, value in cells.items():
            if len(value) > MAX_CELL:
                raise _error(path, line, name, f"more than {MAX_CELL} characters")
        student_id, name = cells[header[columns["id"]]], cells[header[columns["name"]]]
        if not student_id:
            raise _error(path, line, "id", "empty: every student needs an id")
        if student_id in seen:
            raise _error(path, line, "id", f"{student_id!r} is already the id of line {seen[student_id]}")
        seen[student_id] = line
        extra = {k: v for k, v in cells.items() if k.lower() not in REQUIRED}
        students.append(Student(student_id, name or student_id, extra))
        if len(students) > MAX_STUDENTS:
            raise _error(path, line, "id", f"more than {MAX_STUDENTS:,} students")
    if not students:
        raise _error(path, 2, "id", "the roster has no students")
    return students


def file_safe(students: Sequence[Student]) -> list[str]:
    """Each student's id as a file-name part (`--split`): letters, digits, '-', '_' and '.' kept,
    anything else '_'; ids that collide once cleaned get their line's position appended."""
    names = [
        "".join(c if c.isalnum() or c in "-_." else "_" for c in s.id).strip(".") or "_" for s in students
    ]
    taken: dict[str, int] = {}
    for name in names:
        taken[name] = taken.get(name, 0) + 1
    return [n if taken[n] == 1 else f"{n}-{i + 1}" for i, n in enumerate(names)]
