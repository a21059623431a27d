"""Keep tests away from the real user's data and cache folders."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

import pytest

_SANDBOX = tempfile.mkdtemp(prefix="perfdrill-tests-")
atexit.register(shutil.rmtree, _SANDBOX, ignore_errors=True)  # one run must not leave its data behind
os.environ["XDG_DATA_HOME"] = os.path.join(_SANDBOX, "data")
os.environ["XDG_CACHE_HOME"] = os.path.join(_SANDBOX, "cache")
os.environ["XDG_STATE_HOME"] = os.path.join(_SANDBOX, "state")


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str]):
    """Run `perfdrill ARGS…` in-process; returns (exit code, stdout, stderr)."""
    from perfdrill.cli import main

    def run(*args: str) -> tuple[int, str, str]:
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse exits for usage errors
            code = int(exc.code or 0)
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run
