"""Writing a set: bad targets fail first in one line, Ctrl+C keeps the old file and leaves nothing
behind, modes follow the umask or the file they replace, and a symlink is written through."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
import weakref
from pathlib import Path

import pytest

from perfdrill.cli import printing
from perfdrill.engine.output import atomic_output


def _no_generation(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: object) -> None:
        raise AssertionError("the set was generated before the target was checked")

    monkeypatch.setattr(printing, "load_questions", refuse)


@pytest.mark.parametrize(
    ("target", "reason"),
    [
        ("missing/set.pdf", "No such file or directory"),
        (".", "is a folder"),
        ("/proc/perfdrill-set.pdf", ""),  # a read-only place, even for root
        ("/dev/full", "No space left on device"),
    ],
)
def test_a_bad_target_fails_in_one_line_before_any_work(
    tmp_path: Path, run_cli, monkeypatch: pytest.MonkeyPatch, target: str, reason: str
) -> None:  # type: ignore[no-untyped-def]
    _no_generation(monkeypatch)
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli("generate", "--count", "3", "--format", "pdf", "-o", target)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"perfdrill: error: cannot write {target}: ") and reason in err
    assert list(tmp_path.iterdir()) == []


def test_a_new_file_follows_the_umask_and_a_replaced_one_keeps_its_mode(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    previous = os.umask(0o027)
    try:
        assert run_cli("generate", "--count", "1", "-o", str(tmp_path / "new.md"))[0] == 0
        old = tmp_path / "old.md"
        old.write_text("old")
        old.chmod(0o644)
        assert run_cli("generate", "--count", "1", "-o", str(old))[0] == 0
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "new.md").stat().st_mode) == 0o640
    assert stat.S_IMODE(old.stat().st_mode) == 0o644 and old.read_text().startswith("# perfdrill")


def test_output_through_a_symlink_replaces_the_file_not_the_link(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    real = tmp_path / "real.md"
    real.write_text("old")
    link = tmp_path / "link.md"
    link.symlink_to(real.name)
    assert run_cli("generate", "--count", "1", "-o", str(link))[0] == 0
    assert link.is_symlink() and os.readlink(link) == "real.md"
    assert real.read_text().startswith("# perfdrill problem set")


def test_an_exception_inside_the_block_keeps_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "set.pdf"
    target.write_bytes(b"old")
    with pytest.raises(KeyboardInterrupt), atomic_output(target) as out:
        out.write(b"half a new file")
        raise KeyboardInterrupt
    assert target.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["set.pdf"]


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_an_interrupt_swallowed_by_a_weakref_callback_still_stops_the_run() -> None:
    """Python ignores a KeyboardInterrupt raised inside a weakref callback; the next checkpoint
    raises it again, so the run cannot go on to replace the old file."""

    class Thing:
        pass

    with printing.Interrupts() as interrupts:
        thing = Thing()
        # The handler runs inside the callback (bytecode follows the signal), so its
        # KeyboardInterrupt is printed as "Exception ignored" and dropped.
        reference = weakref.ref(thing, lambda _: [signal.raise_signal(signal.SIGINT), len("after")])
        del thing
        assert reference() is None
        with pytest.raises(KeyboardInterrupt):
            interrupts.check()


@pytest.mark.parametrize(("fmt", "delay"), [("md", 1.0), ("pdf", 0.2), ("pdf", 1.0), ("pdf", 3.0)])
def test_ctrl_c_stops_keeps_the_old_file_and_leaves_nothing_behind(
    tmp_path: Path, fmt: str, delay: float
) -> None:
    target = tmp_path / f"set.{fmt}"
    target.write_bytes(b"old")
    count = "200000" if fmt == "md" else "2000"
    command = [
        sys.executable,
        "-m",
        "perfdrill",
        "generate",
        "--count",
        count,
        "--format",
        fmt,
        "-o",
        str(target),
    ]
    process = subprocess.Popen(command, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not any(p.name.endswith(".tmp") for p in tmp_path.iterdir()):  # the work has begun
        assert time.monotonic() < deadline and process.poll() is None
        time.sleep(0.05)
    time.sleep(delay)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    # Exactly 130, never an end by SIGINT itself (-2), which about one run in eight at 0.2 s gave
    # while Ctrl+C was a bare KeyboardInterrupt (see perfdrill.cli.Interrupted).
    assert process.returncode == 130, err
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == [target.name]
