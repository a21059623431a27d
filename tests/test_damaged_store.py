"""A damaged or unreachable progress store is one line naming the file, never a traceback or a
hang; the file is left exactly as it was, and reading works wherever nothing may be written.
Two processes never write into one practice session."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from perfdrill.engine.errors import PerfdrillError
from perfdrill.engine.practice.plan import Plan
from perfdrill.engine.practice.progress import STORE_FILE, ProgressStore
from perfdrill.engine.practice.records import Attempt
from perfdrill.engine.practice.schedule import review
from perfdrill.tui.screens.start import StartScreen
from tests.pilot import RIGHT, TWO_QUESTIONS, app_factory, submit, until, wait_for
from tests.test_progress import VERSION_1

ROOT = Path(__file__).resolve().parents[1]
OPEN_ELSEWHERE = "practice session 1 is open in another perfdrill; go on there, or close it first"
GRADES = {"x": {"status": "correct", "score": 1.0, "mistake": None}}
# One right first try on day one, 2025-03-03 12:00 UTC.
ANSWER = Attempt(0, "matmul/gemv", "A skinny matmul", "matmul", "medium", 1, {"x": "1"}, GRADES, 1.0, 0, 30.0)


def perfdrill(
    data: Path, *args: str, user: int | None = None, limit_bytes: int | None = None
) -> tuple[int, str, str]:
    """The command line in a child process (killed, and the test failed, after 30 s: a FIFO used to
    hang it) with `data` as its data folder; its exit code, stderr and stdout. `user` runs it as that user
    id (root ignores a folder's permissions); `limit_bytes` caps the size of any file it writes,
    as a full disk would."""
    script = (
        "import resource, signal, sys\n"
        f"if {limit_bytes is not None}:\n"
        "    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        f"    resource.setrlimit(resource.RLIMIT_FSIZE, ({limit_bytes or 0}, {limit_bytes or 0}))\n"
        "    import shutil\n"  # what a full disk reports
        "    shutil.disk_usage = lambda path: shutil._ntuple_diskusage(10**9, 10**9, 0)\n"
        "from perfdrill.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    cache = tempfile.mkdtemp()
    os.chmod(cache, 0o777)
    env = dict(os.environ, XDG_DATA_HOME=str(data), XDG_CACHE_HOME=cache, PYTHONPATH=str(ROOT))
    command = [sys.executable, "-c", script, *args]
    if user is not None:
        command = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", *command]
    try:
        done = subprocess.run(
            command, env=env, capture_output=True, text=True, timeout=30, check=False, cwd="/"
        )
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return done.returncode, done.stderr, done.stdout


@pytest.fixture
def data() -> Iterator[Path]:
    """A data folder any user can reach (pytest's own tmp_path is private to its user)."""
    folder = Path(tempfile.mkdtemp())
    os.chmod(folder, 0o755)
    (folder / "perfdrill").mkdir(mode=0o755)
    yield folder
    for path in folder.rglob("*"):
        if path.is_dir():
            path.chmod(0o755)
    shutil.rmtree(folder)


def _store(data: Path) -> Path:
    path = data / "perfdrill" / STORE_FILE
    store = ProgressStore(path, now=lambda: 1741003200.0)
    session = store.start_session(Plan(count=2))
    store.record_attempt(session, ANSWER, rating=3)
    store.close()
    return path


def _damage(path: Path, *statements: str) -> bytes:
    db = sqlite3.connect(path)
    for statement in statements:
        db.execute(statement)
    db.commit()
    db.close()
    return path.read_bytes()


def _error(path: Path, message: str) -> str:
    return f"perfdrill: error: {path}: {message}\n"


@pytest.mark.parametrize(
    ("statements", "message"),
    [
        (["PRAGMA user_version = -1"], "progress store has no known schema (user_version -1)"),
        (  # was a TypeError from the mastery report
            ["UPDATE attempts SET score = 'lots'"],
            "cannot read the progress store: could not convert string to float: 'lots'",
        ),
        (  # was a TypeError from the review queue
            ["UPDATE cards SET due = 'soon'"],
            "cannot read the progress store: could not convert string to float: 'soon'",
        ),
    ],
    ids=["user-version-minus-1", "text-score", "text-due"],
)
@pytest.mark.parametrize("json_output", [False, True])
def test_a_damaged_store_is_one_line_and_left_as_it_was(
    data: Path, statements: list[str], message: str, json_output: bool
) -> None:
    path = _store(data)
    before = _damage(path, *statements)
    code, err, _out = perfdrill(data, "stats", *(["--json"] if json_output else []))
    assert (code, err) == (2, _error(path, message))
    assert path.read_bytes() == before


def test_a_version_1_store_with_a_plan_that_is_not_json_is_one_line_and_untouched(data: Path) -> None:
    path = data / "perfdrill" / STORE_FILE
    db = sqlite3.connect(path)
    db.executescript(VERSION_1)
    db.execute("INSERT INTO sessions (id, started, plan) VALUES (1, 0, 'not json')")
    db.commit()
    db.close()
    before = path.read_bytes()
    for command in (["stats"], ["review", "--new-per-day", "5"]):  # a reader, then a writer
        code, err, _out = perfdrill(data, *command)
        assert (code, err) == (
            2,
            _error(
                path, "cannot bring the progress store up to date: Expecting value: line 1 column 1 (char 0)"
            ),
        ), command
        assert path.read_bytes() == before and sorted(os.listdir(path.parent)) == [STORE_FILE]


def test_a_version_1_store_is_read_without_being_written(data: Path) -> None:
    path = data / "perfdrill" / STORE_FILE
    db = sqlite3.connect(path)
    db.executescript(VERSION_1)
    db.execute("INSERT INTO sessions (id, started, plan) VALUES (1, 0, '{}')")
    db.execute(
        "INSERT INTO attempts (session, position, question, title, family, difficulty, seed, answers,"
        " grades, score, hints, seconds, answered) VALUES (1, 0, 'matmul/gemv', 'G', 'matmul', 'medium',"
        f" 1, '{{}}', '{json.dumps(GRADES)}', 1.0, 0, 30.0, 0)"
    )
    db.commit()
    db.close()
    before = path.read_bytes()
    reader = ProgressStore(path, readonly=True)
    assert [row.question for row in reader.history()] == ["matmul/gemv"]
    assert set(reader.cards()) == {"matmul/gemv"}  # its card, replayed in memory
    reader.close()
    assert path.read_bytes() == before


def test_a_garbage_review_card_is_one_line_when_a_try_is_saved(tmp_path: Path) -> None:
    path = tmp_path / STORE_FILE
    store = ProgressStore(path)
    session = store.start_session(Plan())
    store.record_attempt(session, ANSWER, rating=3)
    _damage(path, "UPDATE cards SET card = 'garbage'")
    with pytest.raises(PerfdrillError) as caught:
        store.record_attempt(session, ANSWER, rating=3)  # the app's _saved catches this one class
    assert caught.value.one_line().startswith(
        f"{path}: cannot save progress: the review card of 'matmul/gemv' is damaged ("
    )
    assert len(store.history()) == 1  # the try is not half-saved
    with pytest.raises(ValueError):  # what the card reader itself raises on it
        review("garbage", 3, 0.0)


def test_a_fifo_in_place_of_the_store_is_refused_without_waiting(data: Path) -> None:
    path = data / "perfdrill" / STORE_FILE
    os.mkfifo(path)
    for command in (["stats"], ["review", "--new-per-day", "5"]):
        code, err, _out = perfdrill(data, *command)
        assert (code, err) == (2, _error(path, "is not a regular file; move it aside to start afresh"))


@pytest.mark.skipif(os.geteuid() == 0 and shutil.which("setpriv") is None, reason="needs setpriv as root")
def test_stats_reads_a_store_in_a_read_only_folder(data: Path) -> None:
    path = _store(data)
    before, files = path.read_bytes(), sorted(os.listdir(path.parent))
    path.chmod(0o444)
    path.parent.chmod(0o555)
    user = 65534 if os.geteuid() == 0 else None  # root writes anywhere: read as nobody
    code, err, out = perfdrill(data, "stats", "--json", user=user)
    assert (code, err) == (0, "")  # was "attempt to write a readonly database"
    assert json.loads(out)["streak"]["days_practised"] == 1  # the one day of the saved try
    code, err, _ = perfdrill(data, "review", "--new-per-day", "5", user=user)  # a writer: says why not
    assert (code, err) == (
        2,
        _error(
            path,
            "cannot open the progress store: its folder is read-only (attempt to write a readonly"
            " database); `perfdrill stats` can still read it",
        ),
    )
    assert path.read_bytes() == before and sorted(os.listdir(path.parent)) == files


def test_a_full_disk_at_the_start_says_so(data: Path) -> None:
    path = data / "perfdrill" / STORE_FILE
    code, err, _out = perfdrill(data, "review", "--new-per-day", "5", limit_bytes=0)
    assert code == 2 and err.startswith(
        f"perfdrill: error: {path}: cannot open the progress store: the disk is full ("
    )
    assert err.count("\n") == 1


# A second process claims session 1 of the store and reports whether it could.
_CLAIM = """
import sys
from pathlib import Path
from perfdrill.engine.errors import PerfdrillError
from perfdrill.engine.practice.progress import ProgressStore
store = ProgressStore(Path(sys.argv[1]))
try:
    store.locks.claim(1)
except PerfdrillError as exc:
    print(exc.one_line())
else:
    print("claimed")
"""


def _claim_elsewhere(path: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-c", _CLAIM, str(path)],
        capture_output=True, text=True, timeout=30, check=True, env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )  # fmt: skip
    return done.stdout.strip()


def test_a_session_is_written_by_one_process_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / STORE_FILE
    store = ProgressStore(path)
    session = store.start_session(Plan())  # started here: claimed here
    assert session == 1
    assert _claim_elsewhere(path) == f"{path}: {OPEN_ELSEWHERE}"
    store.locks.release(session)  # its summary was shown: another process may continue it
    assert _claim_elsewhere(path) == "claimed"
    store.locks.claim(session)
    store.close()  # and a process that ends lets go of it however it ends
    assert _claim_elsewhere(path) == "claimed"


_HOLD = """
import sys
from pathlib import Path
from perfdrill.engine.practice.progress import ProgressStore
store = ProgressStore(Path(sys.argv[1]))
store.locks.claim(1)
print("holding", flush=True)
sys.stdin.read()  # until the test closes it
"""


async def test_the_app_never_continues_a_session_open_in_another_process(tmp_path: Path) -> None:
    make_app = app_factory(tmp_path)
    path = tmp_path / "progress.sqlite3"
    store = ProgressStore(path)
    session = store.start_session(TWO_QUESTIONS)
    store.record_attempt(session, ANSWER)  # one answer: the session is offered to continue
    store.close()
    other = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )  # fmt: skip
    try:
        assert other.stdout is not None and other.stdout.readline() == "holding\n"
        app = make_app(resume=True)
        async with app.run_test(size=(100, 40)) as pilot:
            await wait_for(pilot, StartScreen)  # never a blank screen, never its questions
            await until(pilot, lambda: app._notifications, "the notice")
            (note,) = [n.message for n in app._notifications]
            assert note == f"{path}: {OPEN_ELSEWHERE}"
            assert app.state is None
    finally:
        other.communicate("", timeout=30)


async def test_a_garbage_review_card_is_a_notice_and_the_session_goes_on(tmp_path: Path) -> None:
    make_app = app_factory(tmp_path)
    path = tmp_path / "progress.sqlite3"
    store = ProgressStore(path)
    store.record_review("matmul/h100-4096", 3)
    store.close()
    _damage(path, "UPDATE cards SET card = 'garbage'")
    app = make_app(start=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await submit(pilot, *RIGHT)  # right at the first try: the card moves on as it is saved
        await until(pilot, lambda: app._notifications, "the notice")
        (note,) = [n.message for n in app._notifications]
        assert note.startswith(
            f"{path}: cannot save progress: the review card of 'matmul/h100-4096' is damaged"
        )
        await pilot.press("n")
        await until(pilot, lambda: app.screen.problem.id == "roofline/l4-ridge", "the next question")
