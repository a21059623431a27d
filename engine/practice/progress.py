"""Practice history and the review schedule in SQLite under the user data folder.

Every graded attempt is one transaction (WAL journal, synchronous=FULL), so a crash or a kill
loses at most the attempt in flight. Readers open the file read-only and never take the writer's
lock, so `perfdrill stats` works while a session is saving. The file is never deleted or rewritten
by perfdrill: a store it cannot read is reported in one line, not replaced.
"""

from __future__ import annotations

import json
import sqlite3
import stat
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from perfdrill.engine.errors import PerfdrillError
from perfdrill.engine.practice.plan import Plan
from perfdrill.engine.practice.records import Attempt, FamilyStats, HistoryRow, StoredSession
from perfdrill.engine.practice.schedule import (
    DEFAULT_MASTERY_AFTER,
    DEFAULT_NEW_PER_DAY,
    CardRow,
)
from perfdrill.engine.practice.schema import SCHEMA_VERSION, apply_review, prepare
from perfdrill.engine.practice.store_files import BUSY_SECONDS, SessionLocks, cause, read_only
from perfdrill.engine.resources import user_data_dir
from perfdrill.engine.safe_text import safe_text

STORE_FILE = "progress.sqlite3"
SETTINGS = {"new_per_day": DEFAULT_NEW_PER_DAY, "mastery_after": DEFAULT_MASTERY_AFTER}


def default_store_path() -> Path:
    return user_data_dir() / STORE_FILE


def _ids(text: str) -> tuple[str, ...]:
    return tuple(part for part in text.split(",") if part)


def _mapping(text: Any) -> dict[str, Any]:
    """A JSON object stored as text; anything else is a damaged row (ValueError)."""
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError(f"expected a JSON object, not {type(value).__name__}")
    return value


_ATTEMPT_COLUMNS = (
    "position, question, title, family, difficulty, seed, answers, grades, score, hints, seconds, try_number,"
    " chips, models"
)


class ProgressStore:
    """The store at `path` (default: the user data folder). `readonly` opens it for reading only:
    never a lock a writer needs, and a store that does not exist yet reads as empty."""

    def __init__(
        self, path: Path | None = None, *, readonly: bool = False, now: Callable[[], float] = time.time
    ) -> None:
        self.path = path or default_store_path()
        self.readonly = readonly
        self.now = now
        try:
            self._db = self._connect()
            self._db.text_factory = _safe_text_column  # a store is a file too: it may hold escapes
        except (sqlite3.Error, OSError) as exc:
            raise PerfdrillError(
                f"cannot open the progress store: {cause(exc, self.path)}", file=str(self.path)
            ) from None
        self.locks = SessionLocks(self.path)

    def _connect(self) -> sqlite3.Connection:
        if self.path.exists() and not stat.S_ISREG(self.path.stat().st_mode):  # a FIFO would hang
            raise PerfdrillError("is not a regular file; move it aside to start afresh", file=str(self.path))
        if not self.readonly:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, isolation_level=None, timeout=BUSY_SECONDS)
            prepare(db, str(self.path))
            db.execute("PRAGMA synchronous=FULL")
            return db
        memory = sqlite3.connect(":memory:", isolation_level=None)
        if not self.path.exists():  # nothing saved yet
            prepare(memory, "")
            return memory
        db = read_only(self.path)
        if db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
            memory.close()
            return db
        db.backup(memory)  # an older store is brought up to date in memory: reading never writes
        db.close()
        prepare(memory, str(self.path))
        return memory

    def close(self) -> None:
        self._db.close()
        self.locks.close()

    @contextmanager
    def _reading(self) -> Iterator[None]:
        """Report a damaged store (a flipped bit, a truncated file) in one line; never touch it."""
        try:
            yield
        except (sqlite3.Error, ValueError, TypeError, KeyError) as exc:
            raise PerfdrillError(f"cannot read the progress store: {exc}", file=str(self.path)) from None

    def _rows(self, sql: str, args: tuple[Any, ...] = ()) -> list[Any]:
        with self._reading():
            return self._db.execute(sql, args).fetchall()

    @contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        """One transaction; a failure (a full disk, a damaged file) is PerfdrillError, nothing half-done."""
        if self.readonly:
            raise PerfdrillError("the progress store was opened for reading only", file=str(self.path))
        try:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        except (sqlite3.Error, PerfdrillError) as exc:  # a full disk, a damaged file or card
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            why = exc.message if isinstance(exc, PerfdrillError) else cause(exc, self.path)
            raise PerfdrillError(f"cannot save progress: {why}", file=str(self.path)) from None

    # Writing -------------------------------------------------------------------------------

    def start_session(self, plan: Plan) -> int:
        with self._writing() as db:
            cursor = db.execute(
                "INSERT INTO sessions (started, plan) VALUES (?, ?)", (self.now(), json.dumps(plan.as_json()))
            )
        session = int(cursor.lastrowid or 0)
        self.locks.claim(session)
        return session

    def record_attempt(self, session: int, attempt: Attempt, rating: int | None = None) -> None:
        """Save one graded try; with a `rating`, the question is over and its template's card
        moves on in the same transaction."""
        when = self.now()
        with self._writing() as db:
            db.execute(
                f"INSERT INTO attempts (session, {_ATTEMPT_COLUMNS}, answered)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                    attempt.try_number,
                    ",".join(attempt.chips),
                    ",".join(attempt.models),
                    when,
                ),
            )
            if rating is not None:
                apply_review(db, attempt.question, rating, when, session)

    def record_review(self, template: str, rating: int, session: int | None = None) -> float:
        """A question closed without a new try (its answer was shown, or the user moved on);
        the template's next due time."""
        with self._writing() as db:
            return apply_review(db, template, rating, self.now(), session)

    def advance(self, session: int, position: int) -> None:
        """The next question to show when the session is resumed."""
        with self._writing() as db:
            db.execute("UPDATE sessions SET position = ? WHERE id = ?", (position, session))

    def finish(self, session: int) -> None:
        with self._writing() as db:
            db.execute("UPDATE sessions SET finished = ? WHERE id = ?", (self.now(), session))

    def set_setting(self, key: str, value: int) -> None:
        if key not in SETTINGS:
            raise PerfdrillError(f"unknown setting {key!r}; settings: {', '.join(SETTINGS)}")
        with self._writing() as db:
            db.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", (key, str(value)))

    # Reading -------------------------------------------------------------------------------

    def setting(self, key: str) -> int:
        rows = self._rows("SELECT value FROM settings WHERE key = ?", (key,))
        with self._reading():
            return int(rows[0][0]) if rows else SETTINGS[key]

    def session(self, session: int) -> StoredSession:
        rows = self._rows("SELECT id, plan, position FROM sessions WHERE id = ?", (session,))
        if not rows:
            raise PerfdrillError(f"no practice session {session}", file=str(self.path))
        ((number, plan, position),) = rows
        with self._reading():
            return StoredSession(
                number, Plan.from_json(_mapping(plan)), int(position), self._attempts(number)
            )

    def sessions(self) -> list[StoredSession]:
        """Every session with its attempts, oldest first (`stats` lists the interviews)."""
        return [self.session(row[0]) for row in self._rows("SELECT id FROM sessions ORDER BY id")]

    def unfinished(self) -> StoredSession | None:
        """The latest session that was left before its end after at least one answer, if any."""
        rows = self._rows(
            "SELECT s.id FROM sessions s WHERE s.finished IS NULL"
            " AND EXISTS (SELECT 1 FROM attempts a WHERE a.session = s.id) ORDER BY s.id DESC LIMIT 1"
        )
        return self.session(rows[0][0]) if rows else None

    def reviewed_since_last_try(self, session: int, template: str) -> bool:
        """Whether `template` was reviewed in `session` after its latest try there (a quit on a
        wrong first try reviews it; a kill does not)."""
        rows = self._rows(
            "SELECT 1 FROM reviews WHERE session = ? AND template = ? AND reviewed >="
            " (SELECT MAX(answered) FROM attempts WHERE session = ? AND question = ?)",
            (session, template, session, template),
        )
        return bool(rows)

    def _attempts(self, session: int) -> tuple[Attempt, ...]:
        rows = self._rows(
            f"SELECT {_ATTEMPT_COLUMNS} FROM attempts WHERE session = ? ORDER BY id",
            (session,),
        )
        with self._reading():  # each value as its type: a damaged row is one line here, not later
            return tuple(
                Attempt(
                    position=int(r[0]),
                    question=str(r[1]),
                    title=str(r[2]),
                    family=str(r[3]),
                    difficulty=str(r[4]),
                    seed=int(r[5]),
                    answers=_mapping(r[6]),
                    parts=_mapping(r[7]),
                    score=float(r[8]),
                    hints=int(r[9]),
                    seconds=float(r[10]),
                    try_number=int(r[11]),
                    chips=_ids(str(r[12])),
                    models=_ids(str(r[13])),
                )
                for r in rows
            )

    def family_stats(self) -> list[FamilyStats]:
        """Per family, over first tries: how many, how many right, mean score, time, top mistake."""
        rows = self._rows(
            "SELECT family, COUNT(*), SUM(score >= 1), AVG(score), SUM(seconds) FROM attempts"
            " WHERE try_number = 1 GROUP BY family ORDER BY family"
        )
        mistakes: dict[str, Counter[str]] = {}
        with self._reading():
            for family, grades in self._rows("SELECT family, grades FROM attempts WHERE try_number = 1"):
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

    def history(self) -> list[HistoryRow]:
        """Every first try, oldest first."""
        rows = self._rows(
            "SELECT question, family, difficulty, answered, score, hints FROM attempts WHERE try_number = 1"
            " ORDER BY answered, id"
        )
        with self._reading():
            return [
                HistoryRow(str(q), str(family), str(level), float(answered), float(score), int(hints))
                for q, family, level, answered, score, hints in rows
            ]

    def cards(self) -> dict[str, CardRow]:
        """Every scheduled template's due time, first review, review count and last rating."""
        rows = self._rows("SELECT template, due, created, reviews, last_rating FROM cards")
        with self._reading():
            return {
                str(t): CardRow(str(t), float(due), float(created), int(reviews), int(rating))
                for t, due, created, reviews, rating in rows
            }


def _safe_text_column(data: bytes) -> str:
    """A TEXT value as read (titles, ids, answers), without terminal controls; damaged UTF-8 shows as �."""
    return safe_text(data.decode("utf-8", "replace"))
