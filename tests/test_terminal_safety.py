"""Nothing hostile reaches a terminal: ESC sequences (CSI, OSC), 8-bit C1 controls and bidi
overrides are removed by one sanitiser (engine/safe_text.py) on every message path: errors,
warnings, listings (`list`, `specs`, `stats`), suggestions, prompts, Rich tables, argparse.

Each path gets the same payload, built from the sequences that did harm in issue 20: OSC 0 sets the
pane title, CSI 2J clears the screen, 0x9b is CSI in 8 bits, 0x9d OSC, U+202E reverses the text
after it.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
from rich.table import Table

from perfdrill.cli import terminal
from perfdrill.engine.errors import PerfdrillError, TemplateError
from perfdrill.engine.model import load_specs
from perfdrill.engine.practice.plan import Plan
from perfdrill.engine.practice.progress import ProgressStore
from perfdrill.engine.practice.records import Attempt
from perfdrill.engine.problems.bank import load_folders
from perfdrill.engine.problems.generation import generate
from perfdrill.engine.problems.grading import grade
from perfdrill.engine.safe_text import safe_line, safe_text
from tests.helpers import MATMUL, write_template
from tests.test_specs import GOOD_CHIP

# In YAML double quotes: \e is ESC, \a BEL, \x9b and \x9d the C1 controls, \u202e RIGHT-TO-LEFT OVERRIDE.
YAML_PAYLOAD = r"\e]0;pwned\a\e[2J\x9b2J\x9d0;t\a\u202e"
PAYLOAD = "\x1b]0;pwned\x07\x1b[2J\x9b2J\x9d0;t\x07\u202e"
# Everything a terminal would act on: C0 but tab and newline, DEL, C1, the bidi controls and
# the Unicode line separators.
UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def assert_safe(*texts: str) -> None:
    for text in texts:
        found = UNSAFE.search(text)
        assert found is None, f"U+{ord(found[0]):04X} reached the terminal in {text!r}"


# -- the sanitiser itself: each input and its expected output written by hand -----------------------


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("red \x1b[31mtext\x1b[0m", "red text"),  # CSI, with its parameters
        ("a\x1b]0;pane title\x07b", "ab"),  # OSC ended by BEL
        ("a\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\b", "alinkb"),  # OSC 8 hyperlink, ended by ST
        ("a\x1bP+q544e\x1b\\b", "ab"),  # DCS (a terminfo query)
        ("a\x1bcb", "ab"),  # ESC c resets the terminal
        ("a\x1b", "a"),  # a lone ESC at the end
        ("a\x9b2Jb", "a2Jb"),  # 8-bit CSI: the introducer goes, the rest is plain text
        ("a\x9d0;t\x9cb", "a0;tb"),  # 8-bit OSC and ST
        ("bell\x07 bs\x08 cr\r del\x7f", "bell bs cr del"),
        ("\u202eevil\u202c \u2066iso\u2069 \u200emark\u200f", "evil iso mark"),  # bidi controls
        ("one\u2028two", "onetwo"),  # LINE SEPARATOR breaks a line on some terminals
        ("tab\tand\nnewline stay", "tab\tand\nnewline stay"),
        ("µs × 2 — 3 GiB ✓ 🙂", "µs × 2 — 3 GiB ✓ 🙂"),  # printable Unicode is left alone
    ],
)
def test_the_sanitiser_removes_what_a_terminal_obeys(raw: str, shown: str) -> None:
    assert safe_text(raw) == shown


def test_a_line_stays_one_line() -> None:
    assert safe_line("a\nb\tc\x1b[2Jd") == "a b cd"


def test_an_error_is_safe_in_each_of_its_parts() -> None:
    """The app shows `message` and `one_line()`; both come out clean, whatever the caller passed."""
    error = TemplateError(
        f"unknown name {PAYLOAD!r}\nsecond line", file=f"q/x{PAYLOAD}/question.yaml", field=PAYLOAD
    )
    assert_safe(error.message, error.file or "", error.field or "", error.one_line(), str(error))
    assert "\n" not in error.one_line()
    assert error.one_line().startswith("q/x2J0;t/question.yaml: 2J0;t: unknown name")


# -- every message path of the command line ----------------------------------------------------------


def hostile_specs(folder: Path) -> Path:
    folder.mkdir()
    (folder / "team.yaml").write_text(
        "chips:\n"
        f'  "evil{YAML_PAYLOAD}":\n'
        f'    name: "Name {YAML_PAYLOAD}"\n'
        f'    vendor: "Vendor {YAML_PAYLOAD}"\n'
        "    peak_flops:\n"
        f'      bf16: {{value: 100, unit: TFLOP/s, source: "me {YAML_PAYLOAD}"}}\n'
        "    memory: {value: 24, unit: GB, source: me}\n"
        "    memory_bandwidth: {value: 1, unit: TB/s, source: me}\n",
        encoding="utf-8",
    )
    return folder


def test_spec_ids_and_names_in_the_listing(run_cli, tmp_path: Path) -> None:
    code, out, err = run_cli("specs", "chips", "--specs", str(hostile_specs(tmp_path / "s")))
    assert code == 0, err
    assert_safe(out, err)
    assert "evil2J0;t" in out and "Name" in out


def test_spec_ids_in_the_unknown_chip_suggestion(run_cli, tmp_path: Path) -> None:
    code, out, err = run_cli(
        "calc", "roofline", "--chip", "nope", "--specs", str(hostile_specs(tmp_path / "s"))
    )
    assert code == 2 and "unknown chip 'nope'; known: " in err and "evil2J0;t" in err
    assert_safe(out, err)


@pytest.mark.parametrize(
    ("key", "said"),
    [
        (r"bad\e[2Jkey", "chips.my-chip.badkey: unknown field"),  # cleaned, then quoted as a misspelling
        (f"bad{YAML_PAYLOAD}key", "chips.my-chip: a key here is not a field name"),  # not name-like
    ],
)
def test_an_unknown_yaml_key_with_escapes(run_cli, tmp_path: Path, key: str, said: str) -> None:
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "team.yaml").write_text(GOOD_CHIP + f'    "{key}": 1\n', encoding="utf-8")
    code, out, err = run_cli("specs", "--specs", str(folder))
    assert code == 2 and said in err
    assert_safe(out, err)


def test_a_template_folder_name_with_escapes(run_cli, tmp_path: Path) -> None:
    """The folder's name is in the warning that leaves the template out, and in `check`'s finding."""
    folder = tmp_path / "q" / "matmul" / f"evil{PAYLOAD}"
    folder.mkdir(parents=True)
    (folder / "question.yaml").write_text("id: [", encoding="utf-8")
    (folder / "prompt.md.j2").write_text("A question.\n", encoding="utf-8")
    code, out, err = run_cli("list", "--questions", str(tmp_path / "q"))
    assert code == 0 and "(left out)" in err
    assert_safe(out, err)
    code, out, err = run_cli("check", str(tmp_path / "q"), "--seeds", "2")
    assert code != 0 and "evil" in out + err
    assert_safe(out, err)


def test_a_prompt_and_a_title_with_a_bidi_override(run_cli, tmp_path: Path) -> None:
    question = MATMUL.replace("title: 4096 cubed on an H100", f'title: "4096 cubed {YAML_PAYLOAD}"')
    folder = write_template(tmp_path / "q", "matmul/h100-4096", question, "Multiply \u202eevil\u202c now.\n")
    (template,) = load_folders([folder], tmp_path / "q")
    problem = generate(template, 0, load_specs())
    assert_safe(problem.prompt, problem.template.title)
    assert "Multiply evil now." in problem.prompt
    for command in (("preview", str(folder)), ("list", "--questions", str(tmp_path / "q"))):
        code, out, err = run_cli(*command)
        assert code == 0, err
        assert_safe(out, err)


@pytest.mark.parametrize(
    ("args", "exit_code", "said"),
    [
        (("specs", f"gpus{PAYLOAD}"), 2, "invalid choice"),  # argparse's own message
        (("preview", f"matmul/x{PAYLOAD}"), 2, "unknown question"),
        (("calc", "roofline", "--flops", "1 TFLOP/s", "--bandwidth", f"3 {PAYLOAD}TB/s"), 2, "--bandwidth"),
        (
            ("grade", "--question", "matmul/gemv", "--seed", "1", "--answer", f"runtime=1 {PAYLOAD}ms"),
            0,
            "? (b) runtime",  # the part letter the sheet shows, then its name
        ),
    ],
    ids=["argparse", "unknown-question", "calc-unit", "grade-answer"],
)
def test_an_argument_quoted_back(run_cli, args: tuple[str, ...], exit_code: int, said: str) -> None:
    code, out, err = run_cli(*args)
    assert code == exit_code and said in out + err
    assert_safe(out, err)


def test_titles_and_families_read_back_from_the_progress_store(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store is a user file too: a planted title or family never reaches `stats` or the app."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # this test's own store
    (template,) = load_folders([write_template(tmp_path / "q", "matmul/h100-4096", MATMUL)], tmp_path / "q")
    problem = generate(template, 0, load_specs())
    answers = {"flops": "1 GFLOP", "runtime": "1 us", "bound": "compute"}
    store = ProgressStore()
    session = store.start_session(Plan())
    store.record_attempt(
        session, Attempt.of(0, problem, answers, grade(problem, answers), 0, 30.0, plan=Plan())
    )
    store.close()
    with sqlite3.connect(store.path) as db:
        db.execute("UPDATE attempts SET title = ?, family = ?", (f"Title {PAYLOAD}", f"fam{PAYLOAD}"))
    reopened = ProgressStore(readonly=True)
    try:
        (attempt,) = reopened.session(session).attempts
        stats = reopened.family_stats()
    finally:
        reopened.close()
    assert attempt.title == "Title 2J0;t"
    assert_safe(attempt.title, *(row.family for row in stats))
    code, out, err = run_cli("stats")
    assert code == 0, err
    assert_safe(out, err)


def test_rich_tables_keep_their_colours_but_not_a_cells_escapes(capsys: pytest.CaptureFixture[str]) -> None:
    """The second wall: text that reached a table unsanitised is cleaned as it is drawn."""
    table = Table("id", header_style="bold")
    table.add_row(f"cell{PAYLOAD}")
    terminal.console(force_terminal=True, color_system="standard", width=40).print(table)
    out = capsys.readouterr().out
    assert "\x1b[1m" in out  # Rich's own bold header
    assert "pwned" not in out and "\x9b" not in out and "\u202e" not in out
    assert_safe(re.sub(r"\x1b\[[0-9;]*m", "", out))  # nothing but Rich's colour codes


def test_a_plain_write_goes_through_the_sanitiser(capsys: pytest.CaptureFixture[str]) -> None:
    import sys

    stream = terminal.SafeStream(sys.stdout)
    assert stream.write(f"x{PAYLOAD}y\n") == len(f"x{PAYLOAD}y\n")
    stream.writelines([f"a{PAYLOAD}\n", "b\n"])
    assert capsys.readouterr().out == "x2J0;ty\na2J0;t\nb\n"


def test_every_perfdrill_error_is_constructed_safe() -> None:
    """The one place errors are made: no subclass can bypass it."""
    for kind in PerfdrillError.__subclasses__():
        assert_safe(kind(PAYLOAD, file=PAYLOAD, field=PAYLOAD).one_line())


def test_rich_markup_in_a_name_is_shown_as_written(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`[link=…]` in a chip's name would be a terminal hyperlink (OSC 8) if Rich read it as markup."""
    monkeypatch.setenv("COLUMNS", "200")  # the whole name in its cell
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "team.yaml").write_text(
        GOOD_CHIP.replace("name: Mine", 'name: "[link=http://evil.example]x[/link]"'), encoding="utf-8"
    )
    code, out, err = run_cli("specs", "chips", "--specs", str(folder))
    assert code == 0, err
    assert "[link=http://evil.example]x[/link]" in out


async def test_the_app_shows_no_control_characters(tmp_path: Path) -> None:
    """The app's paths: a prompt and a title on the question screen, a left-out folder's notice."""
    from perfdrill.tui.app import PerfdrillApp
    from perfdrill.tui.screens.question import QuestionScreen
    from tests.pilot import screen_text, until, wait_for

    questions = tmp_path / "questions"
    question = MATMUL.replace("title: 4096 cubed on an H100", f'title: "4096 cubed {YAML_PAYLOAD}"')
    write_template(questions, "matmul/h100-4096", question, f"Multiply {PAYLOAD} now.\n")
    broken = questions / "matmul" / f"evil{PAYLOAD}"
    broken.mkdir()
    (broken / "question.yaml").write_text("id: [", encoding="utf-8")
    (broken / "prompt.md.j2").write_text("A question.\n", encoding="utf-8")
    store = ProgressStore(tmp_path / "progress.sqlite3")
    plan = Plan(items=(("matmul/h100-4096", 1),), seed=3)
    app = PerfdrillApp(store, questions=[questions], clock=lambda: 0.0, plan=plan, start=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, QuestionScreen)
        await until(pilot, lambda: app._notifications, "the notice of the folder left out")
        shown = screen_text(pilot)
        assert "4096 cubed 2J0;t" in shown and "Multiply 2J0;t now." in shown
        assert_safe(shown, *(notice.title + notice.message for notice in app._notifications))
        assert any("evil2J0;t" in notice.message for notice in app._notifications)
