"""Printed sets: student pages that give nothing away, parallel versions, split files, layout."""

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


def _json(run_cli, *args: str) -> list[dict]:  # type: ignore[no-untyped-def]
    code, out, err = run_cli("generate", *args, "--format", "json")
    assert code == 0, err
    return list(json.loads(out))


def _pdf(tmp_path: Path, run_cli, *args: str, name: str = "set.pdf") -> pypdf.PdfReader:  # type: ignore[no-untyped-def]
    target = tmp_path / name
    code, _, err = run_cli("generate", *args, *DATE, "--format", "pdf", "-o", str(target))
    assert code == 0, err
    return pypdf.PdfReader(io.BytesIO(target.read_bytes()))


def _text(reader: pypdf.PdfReader) -> str:
    return re.sub(r"\s+", " ", " ".join(page.extract_text() for page in reader.pages))


def _student_text(reader: pypdf.PdfReader) -> str:
    """The pages before the first key page."""
    pages = []
    for page in reader.pages:
        text = page.extract_text()
        if "Answer key" in text:
            break
        pages.append(text)
    return re.sub(r"\s+", " ", " ".join(pages))


def test_student_pages_carry_codes_and_only_the_key_maps_them(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    args = ("--count", "6", "--seed", "4242", "--versions", "2")
    problems = _json(run_cli, *args)
    reader = _pdf(tmp_path, run_cli, *args)
    students, everything = _student_text(reader), _text(reader)
    first_version = [p for p in problems if p["version"] == "Version A"]
    for problem in first_version:
        assert problem["code"] in students
        assert problem["question"] not in students and str(problem["seed"]) not in students
        assert f"{problem['question']} · seed {problem['seed']}" in everything  # the key maps it
    assert "4242" not in students  # the set seed would regenerate the key
    assert "set seed 4242" in everything


def test_a_key_entry_reproduces_through_preview(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """The key's (id, seed) is all `perfdrill preview` needs to show the same variant."""
    questions = tmp_path / "q"
    write_template(questions, "matmul/h100-4096", MATMUL, "Multiply two 4096×4096 bf16 matrices.\n")
    args = ("--questions", str(questions), "--count", "1", "--family", "matmul", "--seed", "1")
    text = _text(_pdf(tmp_path, run_cli, *args))
    found = re.search(r"perfdrill preview (\S+) --seed (\d+)", text)
    assert found is not None and found.group(1) == "matmul/h100-4096"
    code, preview, err = run_cli(
        "preview", found.group(1), "--seed", found.group(2), "--questions", str(questions)
    )
    assert code == 0, err
    # Hand-worked in tests/helpers.py: 137.4 GFLOP, 138.97 µs, compute-bound (shown to 3 figures).
    text, preview = text.replace("\u00a0", " "), preview.replace("\u00a0", " ")
    assert "137 GFLOP" in text and "139 µs" in text and "137 GFLOP" in preview


def test_versions_share_templates_in_order_with_their_own_seeds(run_cli) -> None:  # type: ignore[no-untyped-def]
    args = ("--count", "8", "--seed", "21")
    plain = _json(run_cli, *args)
    both = _json(run_cli, *args, "--versions", "3")
    by_version = {
        label: [p for p in both if p["version"] == label] for label in ("Version A", "Version B", "Version C")
    }
    templates = [p["question"] for p in plain]
    for label, problems in by_version.items():
        assert [p["question"] for p in problems] == templates, label
    assert [p["seed"] for p in by_version["Version A"]] == [p["seed"] for p in plain]  # A is the plain set
    seeds = [tuple(p["seed"] for p in problems) for problems in by_version.values()]
    assert len(set(seeds)) == 3 and all(len(set(column)) == 3 for column in zip(*seeds, strict=True))
    shuffled = _json(run_cli, *args, "--versions", "2", "--shuffle")
    order_b = [p["question"] for p in shuffled if p["version"] == "Version B"]
    assert sorted(order_b) == sorted(templates) and order_b != templates
    assert [p["question"] for p in shuffled if p["version"] == "Version A"] == templates


def test_split_writes_each_version_and_the_key_alone(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    args = ("--count", "3", "--seed", "5", "--versions", "3", "--split")
    code, _, err = run_cli("generate", *args, *DATE, "--format", "pdf", "-o", str(tmp_path / "exam.pdf"))
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "exam-A.pdf",
        "exam-B.pdf",
        "exam-C.pdf",
        "exam-key.pdf",
    ]
    problems = _json(run_cli, *args[:-1])
    key = _text(pypdf.PdfReader(tmp_path / "exam-key.pdf"))
    for letter in "ABC":
        reader = pypdf.PdfReader(tmp_path / f"exam-{letter}.pdf")
        text = _text(reader)
        assert f"Version {letter}" in text and "Answer key" not in text
        assert all(f"Version {other}" not in text for other in "ABC" if other != letter)
        assert f"Version {letter} · page 1" in reader.pages[0].extract_text()  # numbering restarts
        for problem in (p for p in problems if p["version"] == f"Version {letter}"):
            assert problem["code"] in text and problem["question"] not in text
            assert problem["code"] in key and f"{problem['question']} · seed {problem['seed']}" in key
        assert f"Answer key · Version {letter}" in key


def test_page_numbers_restart_for_each_version_and_its_key(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    reader = _pdf(tmp_path, run_cli, "--count", "2", "--seed", "3", "--versions", "2")
    footers = [page.extract_text().strip().splitlines()[-1] for page in reader.pages]
    starts = [footer for footer in footers if footer.endswith("page 1")]
    assert starts == [
        "Version A · page 1",
        "Answer key · Version A · page 1",
        "Version B · page 1",
        "Answer key · Version B · page 1",
    ]


def test_same_arguments_give_the_same_pdf(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    args = ("--count", "3", "--seed", "21", *DATE, "--format", "pdf")
    targets = (tmp_path / "a.pdf", tmp_path / "b.pdf")
    for target in targets:
        assert run_cli("generate", *args, "-o", str(target))[0] == 0
    assert targets[0].read_bytes() == targets[1].read_bytes()


def test_a_long_title_stays_on_one_header_line(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    title = "Week 3 " + "rooflines, batching and the KV cache " * 4
    reader = _pdf(tmp_path, run_cli, "--count", "4", "--seed", "2", "--title", title)
    header = reader.pages[1].extract_text().splitlines()[0]
    assert header.startswith("Week 3 rooflines") and "…" in header and len(header) < 90


def test_a_title_the_fonts_cannot_show_is_warned_about(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    target = tmp_path / "s.pdf"
    code, _, err = run_cli(
        "generate", "--count", "1", "--format", "pdf", "--title", "第三周 🚀", "-o", str(target)
    )
    assert code == 0 and "warning" in err and "第三周🚀" in err


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


def test_html_is_balanced_standalone_and_prints_inline_answers(run_cli) -> None:  # type: ignore[no-untyped-def]
    # One family, so the draw keeps a roofline plot however many templates the bank gains.
    args = ("--count", "5", "--seed", "9", "--family", "roofline", *DATE, "--format", "html")
    code, page, err = run_cli("generate", *args, "--answer-space", "3", "--answers", "inline")
    assert code == 0, err
    parser = _Balanced()
    parser.feed(page)
    assert parser.open == [] and parser.external == []
    assert page.count('<article class="problem">') == 5 and "<script" not in page
    assert "<details" not in page and page.count('<div class="answer">') == 5  # answers print
    assert page.count("<svg") >= 1  # a roofline plot, inline


def test_choice_parts_get_checkboxes_and_numeric_parts_the_space(run_cli) -> None:  # type: ignore[no-untyped-def]
    problems = _json(run_cli, "--count", "12", "--seed", "9")
    choices = sum(len(part["choices"]) for p in problems for part in p["parts"] if part["kind"] != "numeric")
    numeric = sum(part["kind"] == "numeric" for p in problems for part in p["parts"])
    code, page, _ = run_cli(
        "generate", "--count", "12", "--seed", "9", "--format", "html", "--answer-space", "2"
    )
    assert code == 0 and choices > 0
    assert page.count('<span class="box"></span>') == choices
    assert page.count('<div class="space"') == numeric


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
        (("--count", "2001", "--format", "pdf"), "--count must be at most 2,000 for --format pdf"),
        (
            ("--count", "1000", "--versions", "3", "--format", "html"),
            "--count × --versions must be at most 2,000",
        ),
        (("--count", "1000001"), "--count must be at most 1,000,000 for --format md"),
        (("--split",), "--split needs -o FILE"),
        (("--format", "moodle", "--versions", "2"), "a pool of variants; --versions is for printed sets"),
        (("--title", "x" * 201), "--title must have 1 to 200 characters"),
    ],
)
def test_bad_print_options_are_one_line_with_exit_2(run_cli, args: tuple[str, ...], message: str) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run_cli("generate", *args)
    assert code == 2 and out == "" and message in err and err.count("\n") == 1


def test_every_template_prints(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """One round of the whole bank (each template once) lays out, tables and code blocks included."""
    count = len(json.loads(run_cli("list", "--json")[1]))
    reader = _pdf(tmp_path, run_cli, "--count", str(count), "--seed", "2", "--answers", "inline")
    text = _text(reader)
    for problem in _json(run_cli, "--count", str(count), "--seed", "2"):
        assert problem["title"] in text
