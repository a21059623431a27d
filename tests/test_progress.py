"""The SQLite progress store: attempts survive a kill, sessions resume, stats add up, bad files are
reported in one line and never replaced."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from perfdrill.engine.errors import PerfdrillError
from perfdrill.engine.model.specs import load_specs
from perfdrill.engine.practice.plan import Plan
from perfdrill.engine.practice.progress import Attempt, ProgressStore, summarize
from perfdrill.engine.problems.bank import load_folders
from perfdrill.engine.problems.generation import generate
from perfdrill.engine.problems.grading import grade
from tests.helpers import MATMUL, write_template


def _attempt(tmp_path: Path, position: int, answers: dict[str, str]) -> Attempt:
    (template,) = load_folders([write_template(tmp_path / "q", "matmul/h100-4096", MATMUL)], tmp_path / "q")
    problem = generate(template, 0, load_specs())
    return Attempt.of(position, problem, answers, grade(problem, answers), hints=1, seconds=30.0)


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
    assert "Matmul" in out and "matmul-missing-2" in out and "1 attempts" in out


def test_practice_needs_a_terminal(run_cli) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run_cli("practice")
    assert code == 2 and "interactive terminal" in err
