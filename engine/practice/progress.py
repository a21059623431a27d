"""Practice history in SQLite under the user data folder.

Every graded attempt is one transaction (WAL journal, synchronous=FULL), so a crash or a kill
loses at most the attempt in flight. The file is never deleted or rewritten by perfdrill: a
store it cannot read is reported, not replaced.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfdrill.engine.errors import PerfdrillError
from perfdrill.engine.practice.plan import Plan
from perfdrill.engine.problems.generation import Problem, variant_seed
from perfdrill.engine.problems.grading import Grade
from perfdrill.engine.resources import user_data_dir

STORE_FILE = "progress.sqlite3"
_SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id INTEGER PRIMARY KEY,
    started REAL NOT NULL,
    plan TEXT NOT NULL,
    position INTEGER NOT NULL DEFAULT 0,
    finished REAL
);
CREATE TABLE IF NOT EXISTS attempts (
    id INTEGER PRIMARY KEY,
    session INTEGER NOT NULL REFERENCES sessions(id),
    position INTEGER NOT NULL,
    question TEXT NOT NULL,
    title TEXT NOT NULL,
    family TEXT NOT NULL,
    difficulty TEXT NOT NULL,
    seed INTEGER NOT NULL,
    answers TEXT NOT NULL,
    grades TEXT NOT NULL,
    score REAL NOT NULL,
    hints INTEGER NOT NULL,
    seconds REAL NOT NULL,
    answered REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS attempts_by_session ON attempts(session);
"""


def default_store_path() -> Path:
    return user_data_dir() / STORE_FILE


@dataclass(frozen=True)
class Attempt:
    position: int
    question: str
    title: str
    family: str
    difficulty: str
    seed: int
    answers: dict[str, str]
    parts: dict[str, dict[str, Any]]  # part -> {status, score, mistake}
    score: float
    hints: int
    seconds: float

    @classmethod
    def of(
        cls,
        position: int,
        problem: Problem,
        answers: Mapping[str, str],
        grade: Grade,
        hints: int,
        seconds: float,
    ) -> Attempt:
        template = problem.template
        parts = {
            name: {"status": g.status, "score": g.score, "mistake": g.mistake}
            for name, g in grade.parts.items()
        }
        return cls(
            position,
            problem.id,
            template.title,
            template.family,
            template.difficulty,
            problem.seed,
            dict(answers),
            parts,
            grade.score,
            hints,
            seconds,
        )

    @property
    def mistakes(self) -> tuple[str, ...]:
        return tuple(part["mistake"] for part in self.parts.values() if part.get("mistake"))


@dataclass(frozen=True)
class StoredSession:
    id: int
    plan: Plan
    position: int
    attempts: tuple[Attempt, ...]


@dataclass(frozen=True)
class FamilyStats:
    family: str
    attempts: int
    correct: int  # attempts scored in full
    mean_score: float
    seconds: float
    top_mistake: str | None


class ProgressStore:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_store_path()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > _SCHEMA_VERSION:
                raise PerfdrillError(
                    f"progress store is from a newer perfdrill (schema {version})", file=str(self.path)
                )
            self._db.executescript(f"BEGIN; {_SCHEMA} PRAGMA user_version={_SCHEMA_VERSION}; COMMIT;")
        except (sqlite3.Error, OSError) as exc:
            raise PerfdrillError(f"cannot open the progress store: {exc}", file=str(self.path)) from None

    def close(self) -> None:
        self._db.close()

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def _write(self, sql: str, args: tuple[Any, ...]) -> int:
        try:
            with self._transaction():
                cursor = self._db.execute(sql, args)
        except sqlite3.Error as exc:
            raise PerfdrillError(f"cannot save progress: {exc}", file=str(self.path)) from None
        return int(cursor.lastrowid or 0)

    def start_session(self, plan: Plan) -> int:
        return self._write(
            "INSERT INTO sessions (started, plan) VALUES (?, ?)", (time.time(), json.dumps(plan.as_json()))
        )

    def record_attempt(self, session: int, attempt: Attempt) -> None:
        self._write(
            "INSERT INTO attempts (session, position, question, title, family, difficulty, seed, answers,"
            " grades, score, hints, seconds, answered) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                session,
                attempt.position,
                attempt.question,
                attempt.title,
                attempt.family,
                attempt.difficulty,
                attempt.seed,
                json.dumps(attempt.answers),
                json.dumps(attempt.parts),
                attempt.score,
                attempt.hints,
                attempt.seconds,
                time.time(),
            ),
        )

    def advance(self, session: int, position: int) -> None:
        """The next question to show when the session is resumed."""
        self._write("UPDATE sessions SET position = ? WHERE id = ?", (position, session))

    def finish(self, session: int) -> None:
        self._write("UPDATE sessions SET finished = ? WHERE id = ?", (time.time(), session))

    def session(self, session: int) -> StoredSession:
        row = self._db.execute("SELECT id, plan, position FROM sessions WHERE id = ?", (session,)).fetchone()
        if row is None:
            raise PerfdrillError(f"no practice session {session}", file=str(self.path))
        return StoredSession(row[0], Plan.from_json(json.loads(row[1])), row[2], self._attempts(row[0]))

    def unfinished(self) -> StoredSession | None:
        """The latest session that was interrupted after at least one answer, if any."""
        row = self._db.execute(
            "SELECT s.id FROM sessions s WHERE s.finished IS NULL"
            " AND EXISTS (SELECT 1 FROM attempts a WHERE a.session = s.id) ORDER BY s.id DESC LIMIT 1"
        ).fetchone()
        return None if row is None else self.session(row[0])

    def _attempts(self, session: int) -> tuple[Attempt, ...]:
        rows = self._db.execute(
            "SELECT position, question, title, family, difficulty, seed, answers, grades, score, hints,"
            " seconds FROM attempts WHERE session = ? ORDER BY id",
            (session,),
        ).fetchall()
        return tuple(
            Attempt(r[0], r[1], r[2], r[3], r[4], r[5], json.loads(r[6]), json.loads(r[7]), r[8], r[9], r[10])
            for r in rows
        )

    def family_stats(self) -> list[FamilyStats]:
        rows = self._db.execute(
            "SELECT family, COUNT(*), SUM(score >= 1), AVG(score), SUM(seconds) FROM attempts"
            " GROUP BY family ORDER BY family"
        ).fetchall()
        mistakes: dict[str, Counter[str]] = {}
        for family, grades in self._db.execute("SELECT family, grades FROM attempts"):
            for part in json.loads(grades).values():
                if part.get("mistake"):
                    mistakes.setdefault(family, Counter())[part["mistake"]] += 1
        return [
            FamilyStats(
                family,
                count,
                int(correct),
                float(mean),
                float(seconds),
                mistakes[family].most_common(1)[0][0] if family in mistakes else None,
            )
            for family, count, correct, mean, seconds in rows
        ]


@dataclass(frozen=True)
class SessionSummary:
    by_family: tuple[tuple[str, int, int, float], ...]  # family, attempts, correct, mean score
    seconds: float
    missed: tuple[Attempt, ...]  # the last attempt of each question not yet answered in full

    def retry_plan(self, seed: int) -> Plan:
        """A plan of fresh variants of the missed questions."""
        return Plan(items=tuple((a.question, variant_seed(a.seed, seed)) for a in self.missed), seed=seed)


def summarize(attempts: tuple[Attempt, ...]) -> SessionSummary:
    families: dict[str, list[Attempt]] = {}
    last_at: dict[int, Attempt] = {}
    for attempt in attempts:
        families.setdefault(attempt.family, []).append(attempt)
        last_at[attempt.position] = attempt
    by_family = tuple(
        (family, len(group), sum(a.score >= 1 for a in group), sum(a.score for a in group) / len(group))
        for family, group in sorted(families.items())
    )
    missed = tuple(a for _, a in sorted(last_at.items()) if a.score < 1)
    return SessionSummary(by_family, sum(a.seconds for a in attempts), missed)
