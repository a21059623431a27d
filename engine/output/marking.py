"""Marking what students hand back: a set's JSON key and an answers CSV in, grades out.

The key (`generate --format json`, answers included) names each copy's problems by template and
seed, so every problem is regenerated and graded with the app's own grader. The answers CSV has
one row per student and one column per problem part, named as the sheet shows it (`1a`, `2c`);
an LMS or a form export adds columns of its own, which are left alone. A cell that cannot be
read as an answer is reported by row and column and left ungraded, never guessed.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from perfdrill.engine.errors import UsageError
from perfdrill.engine.model.specs import SpecBook
from perfdrill.engine.problems.answers import letter
from perfdrill.engine.problems.bank import Bank
from perfdrill.engine.problems.generation import Problem, generate
from perfdrill.engine.problems.grading import PartGrade, grade_part

MAX_ROWS = 5_000
MAX_KEY_BYTES = 200_000_000
# "1a", "Q1a", "1.a", "1(a)", "1 a": problem number then part letter, as a sheet shows them.
_PART_COLUMN = re.compile(r"^\s*q?\s*(\d{1,4})\s*[.(_ -]?\s*([a-z])\s*\)?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Copy:
    """One version of a set as the key lists it: a student's copy or a lettered version."""

    key: str  # the student's id, the version letter, or "" for a one-version set
    name: str
    problems: tuple[tuple[str, Problem], ...]  # (code, problem) in printed order


@dataclass
class Marked:
    """One student's row, graded."""

    line: int
    student: str
    name: str
    copy: Copy
    grades: dict[str, PartGrade] = field(default_factory=dict)  # by column, e.g. "1a"
    answers: dict[str, str] = field(default_factory=dict)
    malformed: list[str] = field(default_factory=list)  # columns whose cells could not be read

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
    try:
        if path.stat().st_size > MAX_KEY_BYTES:
            raise _fail(path, f"a key larger than {MAX_KEY_BYTES:,} bytes is not read")
        items = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read the key {path}: {getattr(exc, 'strerror', None) or exc}") from None
    except json.JSONDecodeError as exc:
        raise _fail(path, f"not JSON: {exc.msg}", exc.lineno) from None
    if not isinstance(items, list) or not items:
        raise _fail(path, "not a set's JSON key (perfdrill generate --format json)")
    copies: dict[str, list[tuple[str, Problem]]] = {}
    names: dict[str, str] = {}
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
    return {key: Copy(key, names[key], tuple(problems)) for key, problems in copies.items()}


def _columns(path: Path, header: Sequence[str], copies: Mapping[str, Copy]) -> dict[str, tuple[int, int]]:
    """Each part column of the header as (problem index, part index), checked against the key."""
    sample = next(iter(copies.values()))
    columns: dict[str, tuple[int, int]] = {}
    for name in header:
        found = _PART_COLUMN.match(name)
        if not found:
            continue
        number, part = int(found.group(1)), ord(found.group(2).lower()) - ord("a")
        if not 1 <= number <= len(sample.problems) or part >= len(sample.problems[number - 1][1].parts):
            raise _fail(path, "names no part of the set's problems", 1, name)
        label = f"{number}{letter(part)}"
        if label in columns:
            raise _fail(path, f"a second column for part {label}", 1, name)
        columns[label] = (number - 1, part)
    if not columns:
        raise _fail(path, "no answer columns: name them by problem and part, e.g. 1a, 1b, 2a", 1)
    return columns


def _row_copy(path: Path, line: int, cells: Mapping[str, str], copies: Mapping[str, Copy]) -> Copy:
    if len(copies) == 1:
        return next(iter(copies.values()))
    keyed = "id" if any(c.name for c in copies.values()) and "id" in cells else "version"
    wanted = cells.get(keyed, "").strip()
    wanted = wanted.removeprefix("Version ").strip() if keyed == "version" else wanted
    if keyed not in cells:
        raise _fail(path, "the key has several versions: add an id (roster) or version column", 1)
    if wanted not in copies:
        raise _fail(path, f"{wanted!r} is not in the key", line, keyed)
    return copies[wanted]


def mark(path: Path, copies: Mapping[str, Copy]) -> list[Marked]:
    """Grade every row of the answers CSV at `path` against the key's `copies`."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read the answers {path}: {getattr(exc, 'strerror', None) or exc}") from None
    reader = csv.reader(io.StringIO(text))
    header = [name.strip() for name in next(reader, [])]
    lowered = [name.lower() for name in header]
    columns = _columns(path, header, copies)
    by_label = {f"{int(m.group(1))}{m.group(2).lower()}": h for h in header if (m := _PART_COLUMN.match(h))}
    marked: list[Marked] = []
    seen: dict[str, int] = {}
    for line, row in enumerate(reader, start=2):
        if not any(cell.strip() for cell in row):
            continue
        if line > MAX_ROWS:
            raise _fail(path, f"more than {MAX_ROWS:,} rows", line)
        cells = {name: (row[i] if i < len(row) else "") for i, name in enumerate(lowered)}
        copy = _row_copy(path, line, cells, copies)
        student = cells.get("id", "").strip() or copy.key
        if student in seen:
            raise _fail(path, f"{student!r} already answered on line {seen[student]}", line, "id")
        seen[student] = line
        result = Marked(line, student, cells.get("name", "").strip() or copy.name, copy)
        for label, (problem, part) in columns.items():
            text_cell = row[header.index(by_label[label])] if header.index(by_label[label]) < len(row) else ""
            graded = grade_part(copy.problems[problem][1].parts[part], text_cell)
            if graded.status == "invalid" and text_cell.strip():
                result.malformed.append(label)  # read by nobody: not a wrong answer, not an attempt
                graded = replace(graded, feedback=graded.feedback.removesuffix(" (no attempt used)."))
            result.answers[label], result.grades[label] = text_cell.strip(), graded
        marked.append(result)
    if not marked:
        raise _fail(path, "no rows of answers", 2)
    return marked
