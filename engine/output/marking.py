"""Marking what students hand back: a set's JSON key and an answers CSV in, grades out.

The key (`generate --format json`, answers included) names each copy's problems by template and
seed, so every problem is regenerated and graded with the app's own grader. The answers CSV has
one row per student and one column per problem part, named as the sheet shows it (`1a`, `2c`;
answer_columns reads the header); an LMS or a form export adds columns of its own, which are
left alone. Nothing is dropped unsaid: a cell that cannot be read, or that a short row lacks, is
reported by row and column and left ungraded, never guessed; a student of the key with no row is
named.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from perfdrill.engine.errors import UsageError
from perfdrill.engine.model.specs import SpecBook
from perfdrill.engine.output.answer_columns import ID_FORMS, Header, id_column, read_header
from perfdrill.engine.problems.bank import Bank
from perfdrill.engine.problems.generation import Problem, generate
from perfdrill.engine.problems.grading import PartGrade, grade_part

MAX_ROWS = 5_000
MAX_KEY_BYTES = 200_000_000


@dataclass(frozen=True)
class Copy:
    """One version of a set as the key lists it: a student's copy or a lettered version."""

    key: str  # the student's id, the version letter, or "" for a one-version set
    name: str
    problems: tuple[tuple[str, Problem], ...]  # (code, problem) in printed order
    student: bool = False  # a roster's copy: someone whose answers are expected


@dataclass
class Marked:
    """One student's row, graded."""

    line: int
    student: str
    name: str
    copy: Copy
    grades: dict[str, PartGrade] = field(default_factory=dict)  # by part, e.g. "1a"
    answers: dict[str, str] = field(default_factory=dict)
    malformed: dict[str, str] = field(default_factory=dict)  # part → why its cell was not graded
    cells: int = 0  # the row's length: a short row lacks the cells of its last columns

    @property
    def total(self) -> float | None:
        """The points scored, or None while a malformed cell leaves a part ungraded."""
        return None if self.malformed else round(sum(g.score for g in self.grades.values()), 4)


def _fail(path: Path, message: str, line: int | None = None, column: str | None = None) -> UsageError:
    return UsageError(message, file=str(path), line=line, field=f"column {column!r}" if column else None)


def _copy_key(item: Mapping[str, Any]) -> tuple[str, str]:
    student = item.get("student")
    if isinstance(student, dict):
        return str(student.get("id", "")), str(student.get("name", ""))
    version = str(item.get("version", ""))
    return version.removeprefix("Version ").strip(), version


def read_key(path: Path, bank: Bank, specs: SpecBook) -> dict[str, Copy]:
    """The copies a set's JSON key lists, each problem regenerated and checked against the key."""
    # The PDF or Markdown key sits beside the JSON one and is the easy one to pass by mistake.
    not_a_key = f"the key must be the JSON written by generate … -o {path.with_suffix('.json').name}"
    try:
        if path.stat().st_size > MAX_KEY_BYTES:
            raise _fail(path, f"a key larger than {MAX_KEY_BYTES:,} bytes is not read")
        items = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"cannot read the key {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise _fail(path, f"not text: {not_a_key}") from None
    except json.JSONDecodeError as exc:
        raise _fail(path, f"not JSON ({exc.msg}): {not_a_key}", exc.lineno) from None
    if not isinstance(items, list) or not items:
        raise _fail(path, f"not a set's key: {not_a_key}")
    copies: dict[str, list[tuple[str, Problem]]] = {}
    names: dict[str, str] = {}
    students: set[str] = set()
    for number, item in enumerate(items, start=1):
        if not isinstance(item, dict) or "question" not in item or "seed" not in item:
            raise _fail(path, f"item {number} has no question and seed: write the key with --answers key")
        key, name = _copy_key(item)
        problem = generate(bank.get(str(item["question"])), int(item["seed"]), specs)
        expected = [
            p.get("answer", {}).get("value") for p in item.get("parts", []) if p.get("kind") == "numeric"
        ]
        if expected != [p.value for p in problem.parts if p.kind == "numeric"]:
            raise _fail(
                path,
                f"item {number} ({item['question']} seed {item['seed']}) gives other numbers here; mark with"
                " the perfdrill version, --questions and --specs the set was made with",
            )
        copies.setdefault(key, []).append((str(item.get("code", "")), problem))
        names[key] = name
        if isinstance(item.get("student"), dict):
            students.add(key)
    return {key: Copy(key, names[key], tuple(problems), key in students) for key, problems in copies.items()}


@dataclass(frozen=True)
class Marking:
    """A class's answers, graded."""

    rows: list[Marked]
    absent: list[Copy]  # the key's students with no row, in the key's order
    header: Header

    @property
    def labels(self) -> list[str]:
        return list(self.header.parts)


def _row_copy(path: Path, line: int, key: str | None, copies: Mapping[str, Copy], column: str) -> Copy:
    if len(copies) == 1:
        return next(iter(copies.values()))
    if key is None:
        if any(c.student for c in copies.values()):
            raise _fail(path, f"no column of the students' ids: name it {ID_FORMS}", 1)
        raise _fail(path, "the key has several versions: add a version column (A, B, …)", 1)
    if key not in copies:
        raise _fail(path, f"{key!r} is not in the key", line, column)
    return copies[key]


def _cell(row: Sequence[str], column: int | None) -> str:
    return row[column].strip() if column is not None and column < len(row) else ""


def _grade_row(path: Path, line: int, row: list[str], header: Header, result: Marked) -> None:
    """Grade each part's cell; a cell the row lacks, or cannot be read, is left ungraded."""
    width = len(header.names)
    if len(row) > width and any(cell.strip() for cell in row[width:]):
        raise _fail(
            path, f"{len(row)} cells where the header has {width}: quote an answer holding a comma", line
        )
    result.cells = len(row)
    for label, (column, problem, part) in header.parts.items():
        cell = _cell(row, column)
        graded = grade_part(result.copy.problems[problem][1].parts[part], cell)
        if column >= len(row):
            why = "no cell: the row of answers ends before this column"
            result.malformed[label], graded = why, replace(graded, status="invalid", score=0.0, feedback=why)
        elif graded.status == "invalid" and cell:
            result.malformed[label] = f"{cell!r} could not be read"  # not a wrong answer, not an attempt
        result.answers[label], result.grades[label] = cell, graded


def mark(path: Path, copies: Mapping[str, Copy]) -> Marking:
    """Grade every row of the answers CSV at `path` against the key's `copies`."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read the answers {path}: {getattr(exc, 'strerror', None) or exc}") from None
    reader = csv.reader(io.StringIO(text))
    sample = next(iter(copies.values()))
    header = read_header(
        path, [name.strip() for name in next(reader, [])], [len(p.parts) for _, p in sample.problems]
    )
    rows: list[tuple[int, list[str]]] = []
    for line, row in enumerate(reader, start=2):
        if line > MAX_ROWS:
            raise _fail(path, f"more than {MAX_ROWS:,} rows", line)
        if any(cell.strip() for cell in row):
            rows.append((line, row))
    ids = id_column(header, [row for _, row in rows], copies)
    keyed = ids if any(c.student for c in copies.values()) else header.version
    keyed_name = "" if keyed is None else header.names[keyed]
    id_name = keyed_name if ids is None else header.names[ids]
    marked: list[Marked] = []
    seen: dict[str, int] = {}
    for line, row in rows:
        key = None if keyed is None else _cell(row, keyed).removeprefix("Version ").strip()
        copy = _row_copy(path, line, key, copies, keyed_name)
        student = _cell(row, ids) or copy.key
        if student in seen:
            raise _fail(path, f"{student!r} already answered on line {seen[student]}", line, id_name or "id")
        seen[student] = line
        result = Marked(line, student, _cell(row, header.name) or copy.name, copy)
        _grade_row(path, line, row, header, result)
        marked.append(result)
    if not marked:
        raise _fail(path, "no rows of answers", 2)
    answered = {row.copy.key for row in marked}
    absent = [c for c in copies.values() if c.student and c.key not in answered]
    return Marking(marked, absent, header)
