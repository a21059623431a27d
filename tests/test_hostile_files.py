"""Spec and template files come from users: none of them may take perfdrill down.

Each hostile file gives one line naming the file, in bounded time: exit code 2 for a spec file,
and for a template of the user's own, a warning while the rest of the bank carries on. Every case
runs the real command line in a child process with a timeout, so a hang fails the test instead of
the run, and an interpreter crash (deep nesting used to end in exit 139) is seen as one. The
inputs are small but would blow up without the bound: a 10-level "billion laughs" expands to 10^10
strings, and 50,000 levels of nesting crashed PyYAML's composer.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.test_specs import GOOD_CHIP

ROOT = Path(__file__).resolve().parents[1]
GOOD_TEMPLATE = (ROOT / "questions" / "matmul" / "gemv" / "question.yaml").read_text(encoding="utf-8")
MIB = 1 << 20


def perfdrill(*args: str) -> tuple[int, str, str]:
    """The command line in a child process, killed (and the test failed) after a minute."""
    done = subprocess.run(
        [sys.executable, "-m", "perfdrill", *args], capture_output=True, text=True, timeout=60, check=False
    )
    return done.returncode, done.stdout, done.stderr


def billion_laughs(levels: int = 10) -> str:
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def nested_lists(depth: int) -> str:
    return "chips: " + "[" * depth + "]" * depth + "\n"


def nested_mappings(depth: int) -> str:
    return "".join("  " * level + f"k{level}:\n" for level in range(depth)) + "  " * depth + "1\n"


def text(content: str | bytes) -> Callable[[Path], None]:
    def write(path: Path) -> None:
        if isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        else:
            path.write_bytes(content)

    return write


def dangling(path: Path) -> None:
    os.symlink(path.parent / "nowhere.yaml", path)


def folder(path: Path) -> None:
    path.mkdir()


def fifo(path: Path) -> None:
    os.mkfifo(path)  # nobody ever writes to it: opening it to read would block forever


HOSTILE: dict[str, tuple[Callable[[Path], None], str]] = {
    "billion laughs": (
        text(billion_laughs()),
        r":1: YAML anchors and aliases \(&name, \*name\) are not allowed",
    ),
    "1,000 levels of lists": (text(nested_lists(1000)), r":1: nested more than 50 levels deep"),
    "50,000 levels of lists": (text(nested_lists(50_000)), r":1: nested more than 50 levels deep"),
    "60 levels of mappings": (text(nested_mappings(60)), r":51: nested more than 50 levels deep"),
    "Latin-1": (
        text("chips:\n  café: {}\n".encode("latin-1")),
        r":2: column 6: not UTF-8 text \(byte 0xe9\)",
    ),
    "UTF-16 with a byte-order mark": (text("chips: {}\n".encode("utf-16")), r": is UTF-16 text"),
    "UTF-16 without one": (text("chips: {}\n".encode("utf-16-le")), r": holds NUL bytes, .*UTF-16"),
    "a control character": (text("chips: \x07\n"), r":1: column 8: character U\+0007 is not allowed in YAML"),
    "a 5,000-digit number": (
        text("chips: " + "9" * 5000 + "\n"),
        r":1: the value starting '9+' is too large",
    ),
    "a link to nothing": (dangling, r": cannot read file: it does not exist \(or is a link to nothing\)"),
    "a folder": (folder, r": is a folder, not a file"),
    "a FIFO": (fifo, r": is not a regular file \(a pipe, socket or device\)"),
    "over 1 MiB": (text("# " + "x" * MIB + "\n"), r": is larger than 1 MiB"),
}


def assert_one_line(stderr: str, path: Path, message: str) -> None:
    assert re.fullmatch(f"perfdrill: error: {re.escape(str(path))}{message}.*\n", stderr), stderr


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_hostile_spec_file_is_one_line_and_exit_2(tmp_path: Path, case: str) -> None:
    make, message = HOSTILE[case]
    specs = tmp_path / "specs"
    specs.mkdir()
    make(specs / "x.yaml")
    code, out, err = perfdrill("specs", "--specs", str(specs))
    assert code == 2 and out == ""
    assert_one_line(err, specs / "x.yaml", message)


def _template(root: Path) -> Path:
    folder = root / "matmul" / "mine"
    folder.mkdir(parents=True)
    (folder / "question.yaml").write_text(GOOD_TEMPLATE.replace("matmul/gemv", "matmul/mine"))
    (folder / "prompt.md.j2").write_text("A question.\n")
    return folder


@pytest.mark.parametrize(
    ("name", "case"),
    [("question.yaml", case) for case in HOSTILE]
    + [
        ("prompt.md.j2", case)
        for case in ("Latin-1", "UTF-16 with a byte-order mark", "a FIFO", "over 1 MiB")
    ]
    + [("prompt.md.j2", case) for case in ("a link to nothing", "a folder")],
)
def test_a_hostile_template_file_is_one_line_and_left_out(tmp_path: Path, name: str, case: str) -> None:
    make, message = HOSTILE[case]
    folder = _template(tmp_path / "mine")
    (folder / name).unlink()
    make(folder / name)
    code, out, err = perfdrill("list", "--questions", str(tmp_path / "mine"))
    # One user template never takes the bank down: it is named in one line and left out.
    assert code == 0 and "matmul/gemv" in out and "matmul/mine" not in out
    path = re.escape(str(Path("mine/matmul/mine") / name))
    assert re.fullmatch(f"perfdrill: warning: {path}{message}.* \\(left out\\)\n", err), err


def test_check_reports_a_hostile_template_as_one_finding(tmp_path: Path) -> None:
    folder = _template(tmp_path / "mine")
    (folder / "question.yaml").unlink()
    fifo(folder / "question.yaml")
    code, out, err = perfdrill("check", str(tmp_path / "mine"), "--seeds", "2")
    assert (code, err) == (1, "")  # check's contract: broken templates are findings, exit 1
    assert out.splitlines() == [
        "mine/matmul/mine/question.yaml: is not a regular file (a pipe, socket or device); "
        "perfdrill reads only plain files",
        "1 template checked over 2 seeds: 0 passed, 1 failed",
    ]


def test_a_utf8_byte_order_mark_is_still_utf8(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "mine.yaml").write_bytes(b"\xef\xbb\xbf" + GOOD_CHIP.encode())
    code, out, err = perfdrill("specs", "chips", "--specs", str(specs))
    assert code == 0 and "my-chip" in out, err
