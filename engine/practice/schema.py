"""The progress store's tables, and moving a store written by an older perfdrill to them.

`user_version` says which schema a file holds. A file is only ever written to when it is new or
older than this code, and then in one transaction, so readers never need the writer's lock.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable

from perfdrill.engine.errors import PerfdrillError
from perfdrill.engine.practice.schedule import Try, rating_for, review

SCHEMA_VERSION = 2

TABLES = """
CREATE TABLE sessions (
    id INTEGER PRIMARY KEY,
    started REAL NOT NULL,
    plan TEXT NOT NULL,
    position INTEGER NOT NULL DEFAULT 0,
    finished REAL
);
CREATE TABLE attempts (
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
    answered REAL NOT NULL,
    try_number INTEGER NOT NULL DEFAULT 1,
    chips TEXT NOT NULL DEFAULT '',
    models TEXT NOT NULL DEFAULT ''
);
CREATE INDEX attempts_by_session ON attempts(session);
"""

# Added in version 2: the spaced-repetition schedule (one FSRS card per template), its review log,
# and the user's settings.
SCHEDULE_TABLES = """
CREATE TABLE cards (
    template TEXT PRIMARY KEY,
    card TEXT NOT NULL,
    due REAL NOT NULL,
    created REAL NOT NULL,
    reviews INTEGER NOT NULL,
    last_rating INTEGER NOT NULL
);
CREATE INDEX cards_by_due ON cards(due);
CREATE TABLE reviews (
    id INTEGER PRIMARY KEY,
    template TEXT NOT NULL,
    session INTEGER,
    rating INTEGER NOT NULL,
    reviewed REAL NOT NULL,
    due REAL NOT NULL
);
CREATE TABLE settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""


def _run(db: sqlite3.Connection, script: str) -> None:
    """Each statement of `script` inside the caller's transaction (`executescript` would commit it)."""
    for statement in script.split(";"):
        if statement.strip():
            db.execute(statement)


def apply_review(
    db: sqlite3.Connection, template: str, rating: int, when: float, session: int | None
) -> float:
    """Move `template`'s card on by one review (inside the caller's transaction); its new due time."""
    row = db.execute("SELECT card, created, reviews FROM cards WHERE template = ?", (template,)).fetchone()
    try:
        card, due = review(row[0] if row else None, rating, when)
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise PerfdrillError(f"the review card of {template!r} is damaged ({exc})") from None
    db.execute(
        "INSERT OR REPLACE INTO cards (template, card, due, created, reviews, last_rating)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (template, card, due, row[1] if row else when, (row[2] if row else 0) + 1, rating),
    )
    db.execute(
        "INSERT INTO reviews (template, session, rating, reviewed, due) VALUES (?, ?, ?, ?, ?)",
        (template, session, rating, when, due),
    )
    return due


def _from_version_1(db: sqlite3.Connection) -> None:
    """Version 1 had sessions and attempts only. Every attempt was a first try; its chips and
    models were its session's; and replaying the attempts in order gives each template its card."""
    for column in (
        "try_number INTEGER NOT NULL DEFAULT 1",
        "chips TEXT NOT NULL DEFAULT ''",
        "models TEXT NOT NULL DEFAULT ''",
    ):
        db.execute(f"ALTER TABLE attempts ADD COLUMN {column}")
    for session, plan_text in db.execute("SELECT id, plan FROM sessions").fetchall():
        plan = json.loads(plan_text)
        db.execute(
            "UPDATE attempts SET chips = ?, models = ? WHERE session = ?",
            (",".join(plan.get("chips", ())), ",".join(plan.get("models", ())), session),
        )
    _run(db, SCHEDULE_TABLES)
    attempts = db.execute(
        "SELECT question, session, grades, score, hints, seconds, answered FROM attempts"
        " ORDER BY answered, id"
    ).fetchall()
    for question, session, grades, score, hints, seconds, answered in attempts:
        rating = rating_for(Try(score, hints, seconds, len(json.loads(grades))))
        apply_review(db, question, rating, answered, session)


def prepare(db: sqlite3.Connection, file: str) -> None:
    """Create the tables in a new file or bring an older one up to date; a file this code already
    reads is left untouched. A newer file is an error: this perfdrill cannot read it."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version == SCHEMA_VERSION:
        return
    if version > SCHEMA_VERSION:
        raise PerfdrillError(f"progress store is from a newer perfdrill (schema {version})", file=file)
    if version < 0:
        raise PerfdrillError(f"progress store has no known schema (user_version {version})", file=file)
    if version == 0:
        db.execute("PRAGMA journal_mode=WAL")  # kept in the file: readers never wait for the writer
    db.execute("BEGIN IMMEDIATE")
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]  # another process may have won
        steps: dict[int, Callable[[sqlite3.Connection], None]] = {
            0: lambda d: _run(d, TABLES + SCHEDULE_TABLES),
            1: _from_version_1,
        }
        if version in steps:
            steps[version](db)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        db.execute("COMMIT")
    except (ValueError, TypeError, KeyError, AttributeError) as exc:  # a damaged row: nothing written
        db.execute("ROLLBACK")
        raise PerfdrillError(f"cannot bring the progress store up to date: {exc}", file=file) from None
    except BaseException:
        db.execute("ROLLBACK")
        raise
