"""Printed sets: PDF through typst and standalone HTML, deterministic, escaped, in versions."""

from __future__ import annotations

import io
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pypdf
import pytest

from tests.helpers import MATMUL, write_template

DATE = ("--date", "2026-11-22")


def _titles(run_cli, *args: str) -> list[str]:  # type: ignore[no-untyped-def]
    code, out, err = run_cli("generate", *args, "--format", "json", "--answers", "none")
    assert code == 0, err
    return [problem["title"] for problem in json.loads(out)]


def _pdf(tmp_path: Path, run_cli, *args: str) -> pypdf.PdfReader:  # type: ignore[no-untyped-def]
    target = tmp_path / "set.pdf"
    code, _, err = run_cli("generate", *args, *DATE, "--format", "pdf", "-o", str(target))
    assert code == 0, err
    return pypdf.PdfReader(io.BytesIO(target.read_bytes()))


def _text(reader: pypdf.PdfReader) -> str:
    return re.sub(r"\s+", " ", " ".join(page.extract_text() for page in reader.pages))


def test_one_problem_per_page_without_answers_gives_one_page_each(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    args = ("--count", "4", "--seed", "7", "--family", "roofline", "--family", "matmul")
    reader = _pdf(tmp_path, run_cli, *args, "--answers", "none", "--one-per-page")
    assert len(reader.pages) == 4
    text = _text(reader)
    for title in _titles(run_cli, *args):
        assert title in text
    assert "Answer key" not in text


def test_the_key_follows_the_problems_with_answers_and_explanations(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    questions = tmp_path / "q"
    write_template(questions, "matmul/h100-4096", MATMUL, "Multiply two 4096×4096 bf16 matrices.\n")
    # Seed 1 draws the hand-checked template first among the matmul ones (asserted below).
    args = ("--questions", str(questions), "--count", "1", "--family", "matmul", "--seed", "1")
    reader = _pdf(tmp_path, run_cli, *args)
    text = _text(reader)
    assert "4096 cubed on an H100" in text and "Answer key" in text and len(reader.pages) >= 2
    assert "137.4 GFLOP" in text and "139 us" in text and "compute" in text


def test_same_seed_same_pdf_and_versions_differ(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    args = ("--count", "3", "--seed", "21")
    first = (tmp_path / "a.pdf", tmp_path / "b.pdf")
    for target in first:
        assert run_cli("generate", *args, *DATE, "--format", "pdf", "-o", str(target))[0] == 0
    assert first[0].read_bytes() == first[1].read_bytes()

    reader = _pdf(tmp_path, run_cli, *args, "--versions", "2")
    text = _text(reader)
    assert "Version A" in text and "Version B" in text and "Answer key — Version B" in text
    plain = _titles(run_cli, *args)
    both = json.loads(run_cli("generate", *args, "--versions", "2", "--format", "json")[1])
    version_a = [p["title"] for p in both if p["version"] == "Version A"]
    version_b = [(p["question"], p["seed"]) for p in both if p["version"] == "Version B"]
    assert version_a == plain  # version A is the plain set
    assert version_b != [(p["question"], p["seed"]) for p in both if p["version"] == "Version A"]


class _Balanced(HTMLParser):
    """Fails on any end tag that does not close the element open at that point."""

    VOID = frozenset({"meta", "br", "img", "input", "hr", "link", "source", "wbr"})

    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.external: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.external += [v for k, v in attrs if k in ("src", "href") and v and "://" in v]
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        assert self.open and self.open[-1] == tag, f"</{tag}> closes {self.open[-1:]} at {self.getpos()}"
        self.open.pop()


def test_html_is_one_balanced_standalone_page(run_cli) -> None:  # type: ignore[no-untyped-def]
    args = ("--count", "5", "--seed", "9")
    code, page, err = run_cli("generate", *args, *DATE, "--format", "html", "--answer-space", "3")
    assert code == 0, err
    parser = _Balanced()
    parser.feed(page)
    assert parser.open == [] and parser.external == []
    assert page.count('<article class="problem">') == 5 and "<script" not in page
    for title in _titles(run_cli, *args):
        assert title.replace("&", "&amp;") in page
    assert page.count("<svg") >= 1  # a roofline plot in the key, inline


def test_template_text_cannot_inject_html_or_typst(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    hostile = "<script>alert(1)</script> #sys.exit() ] [ $x$ @label \\"
    quoted = f"'Runtime? {hostile}'"  # single-quoted YAML: the # is text, not a comment
    write_template(
        tmp_path / "q", "matmul/h100-4096", MATMUL.replace("prompt: Runtime?", f"prompt: {quoted}")
    )
    args = ("--questions", str(tmp_path / "q"), "--count", "1", "--family", "matmul", "--seed", "1")
    code, page, _ = run_cli("generate", *args, "--format", "html")
    assert code == 0 and "<script>" not in page
    text = _text(_pdf(tmp_path, run_cli, *args))
    assert "4096 cubed" in text and "#sys.exit() ] [ $x$ @label \\" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--date", "22/11/2026"), "--date '22/11/2026' is not a date like 2026-11-22"),
        (("--versions", "0"), "--versions must be between 1 and 26"),
        (("--answer-space", "-1"), "--answer-space must be between 0 and 40 lines"),
    ],
)
def test_bad_print_options_are_one_line_with_exit_2(run_cli, args: tuple[str, ...], message: str) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run_cli("generate", *args)
    assert code == 2 and out == "" and err.strip().endswith(message) and err.count("\n") == 1


def test_every_template_prints(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """One round of the whole bank (each template once) lays out, tables and code blocks included."""
    count = len(json.loads(run_cli("list", "--json")[1]))
    reader = _pdf(tmp_path, run_cli, "--count", str(count), "--seed", "2", "--answers", "inline")
    text = _text(reader)
    for title in _titles(run_cli, "--count", str(count), "--seed", "2"):
        assert title in text
