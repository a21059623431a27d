"""A template of the user's own that loads but cannot make a variant (an undefined name in its
prompt, a constraint no draw meets, an answer in a unit of the wrong dimension) is left out with
one warning, and every other question carries on: in `generate` (every format) and in the app."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from textual.widgets import Static

from perfdrill.engine.practice.plan import Plan
from perfdrill.engine.practice.progress import ProgressStore
from perfdrill.tui.app import PerfdrillApp
from perfdrill.tui.screens.question import QuestionScreen
from perfdrill.tui.screens.start import StartScreen
from tests.helpers import MATMUL, TINY, write_template
from tests.pilot import RIGHT, submit, until, wait_for

# Each loads (so `list` shows it) and fails only once a variant is drawn or rendered.
BROKEN = {
    "matmul/undefined": (TINY, "A matmul on {{ chip.name }} of {{ nosuchname }} rows.\n"),
    "matmul/unmeetable": (TINY + "constraints:\n  - m > 1000\n", "Q.\n"),
    "matmul/wrong-unit": (TINY.replace("answer: runtime, unit: us", "answer: bytes, unit: us"), "Q.\n"),
    # 1e300 s times 1e300 overflows a float: the answer would be written as `Infinity` in JSON
    "matmul/infinite": (TINY.replace("answer: runtime,", "answer: runtime * 1e300 * 1e300,"), "Q.\n"),
}
WHY = {
    "matmul/undefined": "undefined/prompt.md.j2:1: prompt: undefined in template: 'nosuchname' is undefined",
    "matmul/unmeetable": "constraints[0]: constraint 'm > 1000' could not be met in 1000 draws",
    "matmul/wrong-unit": "parts.runtime.unit: answer 'bytes' computes B but the unit is 'us'",
    "matmul/infinite": "parts.runtime: the answer is inf for this draw",
}


def broken_root(root: Path, *ids: str) -> Path:
    for template_id in ids or BROKEN:
        question, prompt = BROKEN[template_id]
        write_template(root, template_id, question.replace("matmul/tiny", template_id), prompt)
    return root


def warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("perfdrill: warning:")]


def test_list_shows_them_all_because_they_load(tmp_path: Path, run_cli) -> None:
    code, out, err = run_cli("list", "--questions", str(broken_root(tmp_path)), "--no-builtin")
    assert code == 0 and err == ""
    assert [line.split()[0] for line in out.splitlines()[:4]] == sorted(BROKEN)


def test_generate_leaves_each_out_once_and_writes_the_whole_set(tmp_path: Path, run_cli) -> None:
    # 80 built-in templates and 4 broken ones, 300 problems: every template is chosen 3 or 4 times,
    # yet each broken one is named once, and the set still has all 300 problems.
    code, out, err = run_cli("generate", "--questions", str(broken_root(tmp_path)), "--count", "300")
    assert code == 0, err
    said = warnings(err)
    assert len(said) == 4, err
    for template_id, why in WHY.items():
        (line,) = [line for line in said if template_id.split("/")[1] + "/" in line]
        assert why in line and line.endswith("(left out)"), line
    assert re.search(r"^## 300\. ", out, re.MULTILINE) and "## 301. " not in out
    assert "Tiny" not in out


def test_json_and_lms_formats_leave_them_out_too(tmp_path: Path, run_cli) -> None:
    root = str(broken_root(tmp_path / "q", "matmul/undefined"))
    code, out, err = run_cli("generate", "--questions", root, "--count", "90", "--format", "json")
    assert code == 0 and len(warnings(err)) == 1
    assert len(json.loads(out)) == 90
    assert "matmul/undefined" not in out
    moodle = tmp_path / "pool.xml"
    code, _, err = run_cli(
        "generate", "--questions", root, "--count", "1", "--format", "moodle", "-o", str(moodle)
    )
    assert code == 0 and len(warnings(err)) == 1
    text = moodle.read_text(encoding="utf-8")
    assert "matmul/undefined" not in text and "matmul/gemv" in text


def test_a_root_of_only_broken_templates_is_one_error_not_a_traceback(tmp_path: Path, run_cli) -> None:
    code, _, err = run_cli(
        "generate", "--questions", str(broken_root(tmp_path)), "--no-builtin", "--format", "json"
    )
    assert code == 2 and "Traceback" not in err
    assert len(warnings(err)) == 4
    assert err.splitlines()[-1] == (
        "perfdrill: error: no question can be generated: every one chosen is left out (see the warnings)"
    )


def _app(tmp_path: Path, plan: Plan, *roots: Path) -> PerfdrillApp:
    store = ProgressStore(tmp_path / "progress.sqlite3")
    return PerfdrillApp(store, plan=plan, start=True, questions=roots, clock=lambda: 0.0)


async def test_the_app_passes_over_a_broken_question_and_n_goes_on(tmp_path: Path) -> None:
    # Question 2 of 3 is broken: `n` after question 1 shows question 3's template in its place
    # (the hand-checked H100 matmul again), and the warning names the broken file.
    root = broken_root(tmp_path / "q", "matmul/undefined")
    write_template(root, "matmul/h100-4096", MATMUL)
    plan = Plan(items=(("matmul/h100-4096", 1), ("matmul/undefined", 1), ("matmul/h100-4096", 2)))
    app = _app(tmp_path, plan, root)
    async with app.run_test(size=(100, 40)) as pilot:
        await submit(pilot, *RIGHT)
        await pilot.press("n")
        await until(
            pilot,
            lambda: isinstance(app.screen, QuestionScreen) and app.screen.problem.seed == 2,
            "the next good question",
        )
        assert app.screen.problem.id == "matmul/h100-4096"
        notes = [n.message for n in app._notifications]
        assert [n for n in notes if "nosuchname" in n] == [WHY["matmul/undefined"].join(["q/matmul/", ""])]


async def test_a_session_of_only_a_broken_template_never_shows_a_blank_screen(tmp_path: Path) -> None:
    root = broken_root(tmp_path / "q", "matmul/undefined")
    app = _app(tmp_path, Plan(items=(("matmul/undefined", 1),)), root)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, StartScreen)
        await until(pilot, lambda: len(app._notifications) >= 2, "the two notices")
        notes = [n.message for n in app._notifications]
        assert any("nosuchname" in n for n in notes)
        assert "no question can be generated: every one chosen is left out (see the warnings)" in notes
        assert app.screen.query(Static)  # the start screen, with its buttons


@pytest.mark.parametrize(
    ("change", "line", "field"),
    [  # 310 digits made `check` divide by 10.0**-310 == 0 (ZeroDivisionError), 320 overflowed
        (("m: {choice: [64, 128]}", "m: {range: [64, 128], sig_figs: 310}"), 8, "parameters.m.sig_figs"),
        (("m: {choice: [64, 128]}", "m: {range: [64, 128], sig_figs: 4300}"), 8, "parameters.m.sig_figs"),
        (("unit: us}", "unit: us, tolerance: {sig_figs: 320}}"), 12, "parts[0].tolerance.sig_figs"),
    ],
)
def test_more_significant_figures_than_a_float_holds_are_refused(
    tmp_path: Path, run_cli, change: tuple[str, str], line: int, field: str
) -> None:
    write_template(tmp_path, "matmul/tiny", TINY.replace(*change))
    code, out, err = run_cli("check", str(tmp_path), "--seeds", "2")
    assert code == 1 and "Traceback" not in err
    too_many = change[1].split("sig_figs: ")[1].rstrip("}")
    assert f"matmul/tiny/question.yaml:{line}: {field}: must be at most 17, not {too_many}" in out
