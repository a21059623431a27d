"""More than 26 choices are labelled a…z, aa, ab…, never `{`, DEL or C1 controls (CSI 0x9b, OSC 0x9d),
which letter arithmetic past `z` used to print raw in `preview` and Markdown; a typed `ab` reads
as the 28th choice. Every expected label below is counted by hand: a…z are 0…25, aa is 26."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfdrill.engine.errors import AnswerFormatError
from perfdrill.engine.model import load_specs
from perfdrill.engine.problems.answers import expected_form, parse_choices
from perfdrill.engine.problems.bank import load_folders
from perfdrill.engine.problems.explanation import letter, letter_index
from perfdrill.engine.problems.generation import generate
from tests.helpers import MATMUL, write_template

OPTIONS = [f"option {n}" for n in range(30)]  # labels a … z, aa, ab, ac, ad
WIDE = MATMUL.replace(
    "hints:",
    "  - name: pick\n    kind: choice\n    prompt: Which one?\n"
    f"    choices: [{', '.join(OPTIONS)}]\n    correct: option 27\n"
    "hints:",
)


@pytest.mark.parametrize(
    ("index", "label"),
    [(0, "a"), (25, "z"), (26, "aa"), (27, "ab"), (51, "az"), (52, "ba"), (701, "zz"), (702, "aaa")],
)
def test_labels_go_on_past_z_as_aa_ab(index: int, label: str) -> None:
    assert letter(index) == label
    assert letter_index(label) == index


def test_a_label_is_never_punctuation_or_a_control() -> None:
    for index in range(2000):
        assert letter(index).isalpha() and letter(index).isascii()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return write_template(tmp_path / "q", "matmul/h100-4096", WIDE)


def test_typed_labels_past_z_read_as_their_choices(folder: Path) -> None:
    (template,) = load_folders([folder], folder.parents[1])
    part = next(p for p in generate(template, 0, load_specs()).parts if p.name == "pick")
    assert parse_choices(part, "ab") == ("option 27",)
    assert parse_choices(part, "AD") == ("option 29",)
    assert parse_choices(part, "z") == ("option 25",)
    assert parse_choices(part, "a") == ("option 0",)
    assert expected_form(part) == "a letter a-ad, its number, or its text"
    with pytest.raises(AnswerFormatError, match="'ae' is not one of the choices"):
        parse_choices(part, "ae")


def test_preview_markdown_and_grading_show_and_take_aa_ab(run_cli, folder: Path) -> None:
    code, out, err = run_cli("preview", str(folder))
    assert code == 0, err
    assert "aa. option 26" in out and "ad. option 29" in out and "{." not in out
    code, out, err = run_cli(
        "generate", "--questions", str(folder.parents[1]), "--question", "matmul/h100-4096", "--count", "1"
    )
    assert code == 0, err
    assert "☐ ab. option 27" in out and "☐ {." not in out and "\x7f" not in out and "\x9b" not in out
    assert "**(d)** ab. option 27" in out  # the key
    code, out, err = run_cli(
        "grade", "--question", "matmul/h100-4096", "--questions", str(folder.parents[1]),
        "--seed", "0", "--answer", "pick=ab",
    )  # fmt: skip
    assert "✓ (d) pick: Correct." in out, out + err
