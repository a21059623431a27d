"""The TUI in a real terminal: runs tests/tmux_session.sh and tests/tmux_continue.sh where tmux can
start a server."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _tmux_works() -> bool:
    if shutil.which("tmux") is None or shutil.which("perfdrill") is None:
        return False
    probe = subprocess.run(
        ["tmux", "-L", f"probe-{os.getpid()}", "-f", "/dev/null", "new-session", "-d", "true"],
        capture_output=True,
        check=False,
    )
    return probe.returncode == 0


TMUX_WORKS = _tmux_works()  # probed once: a second probe on the same socket name can fail


def _script(name: str) -> subprocess.CompletedProcess[str]:
    """Run tests/NAME with this interpreter's perfdrill first on PATH; it must succeed."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        ["bash", str(ROOT / "tests" / name)], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done


@pytest.mark.slow
@pytest.mark.skipif(not TMUX_WORKS, reason="tmux (or an installed perfdrill) is not available here")
def test_a_review_session_by_keystrokes_then_stats_shows_the_new_due_date() -> None:
    done = _script("tmux_session.sh")
    assert "quit cleanly, rescheduled" in done.stdout and "roofline/l4-ridge next due" in done.stdout


@pytest.mark.slow
@pytest.mark.skipif(not TMUX_WORKS, reason="tmux (or an installed perfdrill) is not available here")
def test_continue_resumes_exactly_and_an_interview_runs_at_80x24() -> None:
    """Issue 24's Continue repro by keystrokes, then `perfdrill interview` end to end."""
    done = _script("tmux_continue.sh")
    assert "resumed exactly twice, one first try per question; interview scored" in done.stdout
