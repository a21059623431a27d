"""The SQLite progress store: attempts survive a kill, sessions resume, stats add up, bad files are
reported in one line and never replaced, readers never need the writer's lock, and a store written
by the previous schema is migrated with its history kept."""

from __future__ import annotations

import json
import os
import pickle
import sqlite3
import subprocess
import sys
from dataclasses import replace
from datetime import datetime
from pathlib import Path

import pytest

from perfdrill.engine.errors import PerfdrillError
from perfdrill.engine.model import load_specs
from perfdrill.engine.practice.plan import Plan
from perfdrill.engine.practice.progress import ProgressStore
from perfdrill.engine.practice.records import Attempt
from perfdrill.engine.practice.summary import summarize
from perfdrill.engine.problems.bank import load_folders
from perfdrill.engine.problems.generation import generate
from perfdrill.engine.problems.grading import grade
from tests.helpers import MATMUL, write_template
from tests.pilot import flip_table


def _attempt(tmp_path: Path, position: int, answers: dict[str, str]) -> Attempt:
    (template,) = load_folders([write_template(tmp_path / "q", "matmul/h100-4096", MATMUL)], tmp_path / "q")
    problem = generate(template, 0, load_specs())
    return Attempt.of(position, problem, answers, grade(problem, answers), hints=1, seconds=30.0, plan=Plan())


RIGHT = {"flops": "137 GFLOP", "runtime": "139 us", "bound": "compute"}
MISSING_2 = {"flops": "68.7 GFLOP", "runtime": "139 us", "bound": "compute"}


def test_attempts_round_trip_and_resume_from_the_stored_position(tmp_path: Path) -> None:
    store = ProgressStore(tmp_path / "p.sqlite3")
    plan = Plan(families=("matmul",), count=3, seed=9)
    session = store.start_session(plan)
    store.record_attempt(session, _attempt(tmp_path, 0, MISSING_2))
    store.advance(session, 1)
    store.close()

    reopened = ProgressStore(tmp_path / "p.sqlite3")
    stored = reopened.unfinished()
    assert stored is not None and stored.plan == plan and stored.position == 1
    (attempt,) = stored.attempts
    assert attempt.answers == MISSING_2 and attempt.mistakes == ("matmul-missing-2",)
    assert attempt.score == pytest.approx(2 / 3, abs=1e-4)  # two of three parts right
    reopened.finish(session)
    assert reopened.unfinished() is None


def test_a_killed_process_keeps_every_committed_attempt(tmp_path: Path) -> None:
    attempt = _attempt(tmp_path, 0, RIGHT)
    script = (
        "import os, sys, pickle\n"
        "from perfdrill.engine.practice.progress import ProgressStore\n"
        "from perfdrill.engine.practice.plan import Plan\n"
        "store = ProgressStore(__import__('pathlib').Path(sys.argv[1]))\n"
        "session = store.start_session(Plan())\n"
        "store.record_attempt(session, pickle.loads(sys.stdin.buffer.read()))\n"
        "os._exit(9)  # no close, no commit hooks: as if killed\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "p.sqlite3")],
        input=pickle.dumps(attempt),
        cwd=Path(__file__).resolve().parents[1],
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
        check=False,
    )
    assert done.returncode == 9
    store = ProgressStore(tmp_path / "p.sqlite3")
    stored = store.unfinished()
    assert stored is not None and [a.answers for a in stored.attempts] == [RIGHT]


def test_family_stats_and_session_summary(tmp_path: Path) -> None:
    store = ProgressStore(tmp_path / "p.sqlite3")
    session = store.start_session(Plan())
    attempts = tuple(
        _attempt(tmp_path, i, answers) for i, answers in enumerate([MISSING_2, RIGHT, MISSING_2])
    )
    for attempt in attempts:
        store.record_attempt(session, attempt)
    (matmul,) = store.family_stats()
    assert (matmul.family, matmul.attempts, matmul.correct, matmul.seconds) == ("matmul", 3, 1, 90.0)
    assert matmul.mean_score == pytest.approx((2 / 3 + 1 + 2 / 3) / 3, abs=1e-3)
    assert matmul.top_mistake == "matmul-missing-2"
    summary = summarize(attempts)
    assert [a.position for a in summary.missed] == [0, 2] and summary.seconds == 90.0
    retry = summary.retry_plan(seed=1)
    assert [q for q, _ in retry.items] == ["matmul/h100-4096"] * 2 and retry.total == 2


def test_a_file_that_is_not_a_store_is_reported_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "p.sqlite3"
    path.write_bytes(b"my notes, not a database" * 100)
    with pytest.raises(PerfdrillError) as caught:
        ProgressStore(path)
    assert str(path) in caught.value.one_line() and "\n" not in caught.value.one_line()
    assert path.read_bytes() == b"my notes, not a database" * 100


def test_stats_command_reports_a_broken_store_with_exit_2(tmp_path: Path, monkeypatch, run_cli) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    (tmp_path / "perfdrill").mkdir()
    (tmp_path / "perfdrill" / "progress.sqlite3").write_bytes(b"\x00garbage" * 200)
    code, out, err = run_cli("stats")
    assert code == 2 and out == "" and err.count("\n") == 1 and "progress.sqlite3" in err


def test_stats_command_prints_the_family_table(tmp_path: Path, monkeypatch, run_cli) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    store = ProgressStore()
    session = store.start_session(Plan())
    store.record_attempt(session, _attempt(tmp_path, 0, MISSING_2))
    store.close()
    code, out, _ = run_cli("stats")
    assert code == 0
    assert "Matmul" in out and "matmul-missing-2" in out and "1 question answered" in out
    assert "Practised on 1 day · streak 1 day" in out


def test_practice_needs_a_terminal(run_cli) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run_cli("practice")
    assert code == 2 and "interactive terminal" in err


def test_stats_reports_a_bit_flipped_store_in_one_line_and_keeps_it(
    tmp_path: Path, monkeypatch, run_cli
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    store = ProgressStore()
    store.record_attempt(store.start_session(Plan()), _attempt(tmp_path, 0, RIGHT))
    store.close()
    path = tmp_path / "perfdrill" / "progress.sqlite3"
    flip_table(path, "attempts")
    damaged = path.read_bytes()
    code, out, err = run_cli("stats")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "progress.sqlite3" in err and "malformed" in err
    assert path.read_bytes() == damaged


def test_stats_reads_while_a_session_holds_the_write_lock(tmp_path: Path, monkeypatch, run_cli) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    store = ProgressStore()
    store.record_attempt(store.start_session(Plan()), _attempt(tmp_path, 0, RIGHT))
    writer = sqlite3.connect(store.path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # a session in the middle of saving an answer
    writer.execute("INSERT INTO settings (key, value) VALUES ('new_per_day', '3')")
    code, out, err = run_cli("stats")  # before: "database is locked", after waiting 5 s
    writer.execute("ROLLBACK")
    assert (code, err) == (0, "") and "Matmul" in out


def test_reading_never_writes_to_the_file(tmp_path: Path) -> None:
    path = tmp_path / "p.sqlite3"
    store = ProgressStore(path)
    store.record_attempt(store.start_session(Plan()), _attempt(tmp_path, 0, RIGHT))
    store.close()
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    reader = ProgressStore(path, readonly=True)
    assert [row.family for row in reader.family_stats()] == ["matmul"] and reader.unfinished() is not None
    reader.close()
    ProgressStore(path).close()  # a writer on a current store changes nothing either
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before


def test_reading_a_store_that_does_not_exist_yet_creates_nothing(tmp_path: Path) -> None:
    reader = ProgressStore(tmp_path / "none.sqlite3", readonly=True)
    assert reader.family_stats() == [] and reader.history() == [] and reader.cards() == {}
    reader.close()
    assert list(tmp_path.iterdir()) == []


# The schema this store replaced (perfdrill before issue 15), as its code created it.
VERSION_1 = """
CREATE TABLE IF NOT EXISTS sessions (
    id INTEGER PRIMARY KEY, started REAL NOT NULL, plan TEXT NOT NULL,
    position INTEGER NOT NULL DEFAULT 0, finished REAL
);
CREATE TABLE IF NOT EXISTS attempts (
    id INTEGER PRIMARY KEY, session INTEGER NOT NULL REFERENCES sessions(id), position INTEGER NOT NULL,
    question TEXT NOT NULL, title TEXT NOT NULL, family TEXT NOT NULL, difficulty TEXT NOT NULL,
    seed INTEGER NOT NULL, answers TEXT NOT NULL, grades TEXT NOT NULL, score REAL NOT NULL,
    hints INTEGER NOT NULL, seconds REAL NOT NULL, answered REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS attempts_by_session ON attempts(session);
PRAGMA user_version=1;
"""


def test_a_store_from_the_previous_schema_is_migrated_with_its_history(tmp_path: Path) -> None:
    path = tmp_path / "p.sqlite3"
    old = sqlite3.connect(path)
    old.executescript("PRAGMA journal_mode=WAL;" + VERSION_1)
    plan = {
        "families": [],
        "difficulty": None,
        "count": 2,
        "chips": ["l4"],
        "models": [],
        "seed": 5,
        "items": [],
    }
    old.execute("INSERT INTO sessions (id, started, plan, position) VALUES (1, 0, ?, 1)", (json.dumps(plan),))
    day_one = datetime(2025, 3, 3, 12).timestamp()
    grades = {"ridge": {"status": "correct", "score": 1.0, "mistake": None}}
    for position, (answered, seconds) in enumerate([(day_one, 45.0), (day_one + 86400, 50.0)]):
        old.execute(
            "INSERT INTO attempts (session, position, question, title, family, difficulty, seed, answers,"
            " grades, score, hints, seconds, answered) VALUES (1, ?, 'roofline/l4-ridge', 'Ridge',"
            " 'roofline', 'easy', 7, '{\"ridge\": \"403\"}', ?, 1.0, 0, ?, ?)",
            (position, json.dumps(grades), seconds, answered),
        )
    old.commit()
    old.close()

    store = ProgressStore(path)
    stored = store.unfinished()
    assert stored is not None and stored.position == 1
    assert [(a.position, a.answers, a.try_number, a.chips) for a in stored.attempts] == [
        (0, {"ridge": "403"}, 1, ("l4",)),
        (1, {"ridge": "403"}, 1, ("l4",)),
    ]
    (stats,) = store.family_stats()
    assert (stats.family, stats.attempts, stats.correct) == ("roofline", 2, 2)
    card = store.cards()["roofline/l4-ridge"]
    # Both were right at the first try without hints in 45-50 s, one part each: GOOD twice (30 s
    # or less a part would be EASY). FSRS-6 defaults: the first GOOD gives stability w[2] = 2.3065
    # days (due in 2); a success never shortens the interval, so the second, a day later, is due
    # at least two days after it.
    assert (card.reviews, card.last_rating, card.created) == (2, 3, day_one)
    assert card.due >= day_one + 86400 + 2 * 86400
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == 2


def test_retrying_missed_questions_keeps_their_chips_and_models(tmp_path: Path) -> None:
    missed = replace(_attempt(tmp_path, 0, MISSING_2), chips=("h100-sxm",))
    plan = summarize((missed,)).retry_plan(seed=2)
    (item,) = plan.items
    assert plan.chips == ("h100-sxm",) and plan.reference(*item).endswith(" --chip h100-sxm")
    assert missed.reference == "matmul/h100-4096 #0 --chip h100-sxm"
