"""Signals: Ctrl+C while perfdrill starts prints no traceback and exits 130; SIGINT, SIGTERM and
SIGHUP to the app end it as Ctrl+Q does and give the terminal back as it was: the alternate
screen left (ESC[?1049l), mouse tracking off (ESC[?1000l) and the cursor shown (ESC[?25h), with
the exit code a shell reports for the signal (128 + its number: 130, 143, 129).

Issue 20 measured 8 of 14 early Ctrl+C giving a 30-47-line KeyboardInterrupt traceback, SIGTERM
and SIGHUP leaving the terminal in the alternate screen with the mouse on and the cursor hidden,
and SIGINT to the app exiting 0. The app runs in a pseudo-terminal, as a user's would.
"""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ENTER_ALTERNATE = b"\x1b[?1049h"
RESTORED = (b"\x1b[?1049l", b"\x1b[?1000l", b"\x1b[?25h")  # alternate screen left, mouse off, cursor on


def _read_until(master: int, process: subprocess.Popen[bytes], wanted: bytes | None, seconds: float) -> bytes:
    """What the app wrote, until `wanted` appears (None: until it exits) or `seconds` pass."""
    out = b""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and (wanted is None or wanted not in out):
        ready, _, _ = select.select([master], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the app closed its end
                break
            if not chunk:
                break
            out += chunk
        elif process.poll() is not None and wanted is None:
            break
    return out


def _app_signalled(signum: int, settle: float) -> tuple[int, bytes]:
    """Start the app in a pseudo-terminal, send `signum` `settle` seconds after it takes the
    screen, and return its exit code and everything it wrote."""
    master, slave = pty.openpty()
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "100", "LINES": "30"}
    process = subprocess.Popen(
        [sys.executable, "-m", "perfdrill", "practice"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,  # its own terminal session, as a shell would give it
    )
    os.close(slave)
    try:
        out = _read_until(master, process, ENTER_ALTERNATE, 60)
        assert ENTER_ALTERNATE in out, out[-500:]
        out += _read_until(master, process, b"\x00never", settle)
        process.send_signal(signum)
        out += _read_until(master, process, None, 30)
        return process.wait(timeout=30), out
    finally:
        if process.poll() is None:
            process.kill()
        os.close(master)


@pytest.mark.slow
@pytest.mark.parametrize("settle", [0.0, 2.0], ids=["as-it-takes-the-screen", "running"])
@pytest.mark.parametrize(
    ("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)], ids=str
)
def test_a_signal_to_the_app_gives_the_terminal_back(signum: int, code: int, settle: float) -> None:
    returncode, out = _app_signalled(signum, settle)
    assert returncode == code
    after = out.split(ENTER_ALTERNATE)[-1]
    for sequence in RESTORED:
        assert sequence in after, f"{sequence!r} missing after {signal.Signals(signum).name}"
    assert b"Traceback" not in out


# Runs perfdrill as its command does, with an import hook that sends Ctrl+C (SIGINT) to the
# process the moment MODULE starts to load: a user's keypress at exactly that point of start-up.
_INTERRUPTED_AT = """
import os, signal, sys

AT = sys.argv[1]

class Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == AT:
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, Interrupt())
sys.argv = ["perfdrill", "list"]
from perfdrill.__main__ import run
run()
"""


@pytest.mark.parametrize(
    "module",
    [
        "perfdrill.cli",  # the command line's first import
        "perfdrill.cli.questions",  # registering the subcommand
        "perfdrill.engine.problems.bank",  # deep inside it
        "platformdirs",  # loaded lazily once `list` runs
    ],
)
def test_ctrl_c_while_perfdrill_starts_prints_no_traceback(module: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _INTERRUPTED_AT, module],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 130, done.stderr[-2000:]
    assert done.stderr == "" and done.stdout == ""


def test_a_signal_before_the_app_starts_never_takes_the_terminal(tmp_path: Path) -> None:
    """SIGTERM between `perfdrill` and the app's first frame: the app ends before it begins."""
    from perfdrill.engine.practice.progress import ProgressStore
    from perfdrill.tui.app import PerfdrillApp

    app = PerfdrillApp(ProgressStore(tmp_path / "progress.sqlite3"))
    app.end_on_signal(signal.SIGTERM)
    app.run(headless=True)
    assert app.return_code == 143 and not app.is_running


# Runs a command through perfdrill's entry point as `python -m perfdrill` does, with Ctrl+C landing
# while source text runs under exec(), as it does when dataclasses or namedtuple build a class's
# methods while a module loads lazily (seen in the PDF interrupt test, about one run in eight).
_INTERRUPTED_IN_EXEC = """
import importlib, signal, sys

module, command = sys.argv[1], sys.argv[2:]

def load_questions(*args, **kwargs):
    exec("signal.raise_signal(signal.SIGINT)", {"signal": signal})

importlib.import_module(module).load_questions = load_questions
sys.argv = ["perfdrill", *command]
from perfdrill.__main__ import run
run()
"""


@pytest.mark.parametrize(
    ("module", "command"),
    [
        ("perfdrill.cli.printing", ["generate", "--count", "1", "-o", "set.md"]),  # its own handler
        ("perfdrill.cli.questions", ["list"]),  # the one every command gets
    ],
    ids=["generate", "list"],
)
def test_ctrl_c_inside_exec_of_source_text_exits_130(tmp_path: Path, module: str, command: list[str]) -> None:
    """A bare KeyboardInterrupt leaving exec()'d source text marks the run, in CPython, as ended
    by an uncaught Ctrl+C even when perfdrill catches it: `python -m` then ended by re-sending
    SIGINT to itself (returncode -2) instead of exiting 130."""
    (tmp_path / "interrupted_in_exec.py").write_text(_INTERRUPTED_IN_EXEC)
    (tmp_path / "set.md").write_bytes(b"old")
    done = subprocess.run(
        [sys.executable, "-m", "interrupted_in_exec", module, *command],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 130, done.stderr[-2000:]
    assert done.stderr == "" and done.stdout == ""
    assert (tmp_path / "set.md").read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["interrupted_in_exec.py", "set.md"]
