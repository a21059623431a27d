"""Print polish: byte-reproducible PDF and HTML, the format named by -o, descenders in the running
header, the PDF outline, language and tags, plot titles, and no page holding only a stray line.
PDFs here are small (a few problems): the layout suite has the large ones."""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pypdf
import pytest
import typst
from PIL import Image

from perfdrill.engine.output import pdf
from perfdrill.engine.output.pdf import GRID_ROWS, PIECE, TEMPLATE, _pieces
from perfdrill.engine.output.pdf_join import _renumbered_body
from perfdrill.engine.output.sections import Section
from tests.helpers import MATMUL, write_template

# The templates whose plots changed with Python's hash seed (the review's repro).
REPORTED = ("roofline/faster-chip", "quantization/kv-cache-batch", "kv_cache/prefix-caching")


def _generate(tmp_path: Path, hash_seed: str, name: str, *args: str) -> bytes:
    target = tmp_path / name
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    command = [sys.executable, "-m", "perfdrill", "generate", "--seed", "1", "--date", "2026-01-01", *args]
    done = subprocess.run([*command, "-o", str(target)], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return target.read_bytes()


def test_pdf_and_html_are_the_same_bytes_whatever_the_hash_seed(tmp_path: Path) -> None:
    questions = [arg for q in REPORTED for arg in ("--question", q)]
    # Two versions and their keys: four sections, so the PDF is joined from pieces.
    for name, extra in (("set.html", ("--count", "3")), ("set.pdf", ("--count", "1", "--versions", "2"))):
        digests = {
            hashlib.sha256(_generate(tmp_path, seed, name, *questions, *extra)).hexdigest()
            for seed in ("1", "2")
        }
        assert len(digests) == 1, name


def test_the_extension_of_o_names_the_format_and_a_mismatch_is_refused(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    target = tmp_path / "exam.pdf"
    code, _, err = run_cli("generate", "--count", "1", "--answers", "none", "-o", str(target))
    assert code == 0, err
    pdf = target.read_bytes()
    assert pdf.startswith(b"%PDF")  # it wrote Markdown before
    root = pypdf.PdfReader(io.BytesIO(pdf)).trailer["/Root"]
    assert root["/Lang"] == "en" and "/StructTreeRoot" in root  # one piece: typst's tags kept
    code, out, err = run_cli("generate", "--format", "md", "-o", str(tmp_path / "exam.html"))
    assert code == 2 and out == "" and "names a html file but --format is md" in err
    assert not (tmp_path / "exam.html").exists()


def test_the_outline_has_a_node_per_version_and_no_page_holds_a_stray_line(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    target = tmp_path / "exam.pdf"
    args = ("--count", "2", "--versions", "2", "--one-per-page", "--answers", "inline", "--no-plots")
    code, _, err = run_cli("generate", *args, "--seed", "3", "-o", str(target))
    assert code == 0, err
    reader = pypdf.PdfReader(target)
    tops = [item for item in reader.outline if not isinstance(item, list)]
    children = [item for item in reader.outline if isinstance(item, list)]
    assert [item.title for item in tops] == ["Version A", "Version B"]
    assert [len(group) for group in children] == [2, 2] and children[0][0].title.startswith("1. ")
    for page in reader.pages:  # no page holds a single stray line of a key
        lines = [line for line in page.extract_text().splitlines() if line.strip()]
        body = [line for line in lines if not line.startswith(("perfdrill problem set", "End of", "Version"))]
        assert len(body) >= 2, lines  # a derivation's last two lines travel together


def _lowest_header_ink(title: str) -> int:
    """The lowest inked pixel row of the running header's title, rendered at 144 ppi."""
    head = {
        "title": title, "running_title": title, "date": "2026-01-01", "seed": 1, "versions": 1,
        "answers": "key", "answer_space": 0, "one_per_page": False, "points": "",
    }  # fmt: skip
    section = {"kind": "problems", "name": "", "total": 0, "grid": [], "first": False, "last": False}
    piece = {"head": head, "section": {**section, "page_start": 1}, "entries": []}
    png = typst.compile(
        str(TEMPLATE), root=TEMPLATE.parent, format="png", ppi=144,
        sys_inputs={"piece": json.dumps(piece)}, ignore_system_fonts=True,
    )  # fmt: skip
    image = Image.open(io.BytesIO(png[0] if isinstance(png, list) else png)).convert("L")
    top_margin = int(2.2 / 2.54 * 144)
    columns = range(0, int(image.width * 0.6))
    inked = [y for y in range(top_margin) if any(image.getpixel((x, y)) < 200 for x in columns)]  # type: ignore[operator]
    return max(inked)


def test_the_running_header_keeps_the_tails_of_g_p_and_y() -> None:
    """The header's clipped box cut at the baseline: "gypq" inked no lower than "HHHH". At 8 pt a
    descender is about 1.6 pt, 3 pixels at 144 ppi."""
    assert _lowest_header_ink("gypq jgyp") - _lowest_header_ink("HHHH EEEE") >= 2


def test_html_plots_carry_a_title_for_screen_readers(run_cli) -> None:  # type: ignore[no-untyped-def]
    code, page, err = run_cli("generate", "--format", "html", "--count", "1", "--question", REPORTED[0])
    assert code == 0, err
    assert '<svg xmlns="http://www.w3.org/2000/svg"' in page and 'role="img" aria-labelledby="plot-' in page
    assert '<title id="plot-' in page and "Roofline: " in page


def _ancestors(element: Any) -> list[str]:
    """The structure types from `element` up to the tree's root."""
    kinds = []
    while element.get("/Type") != "/StructTreeRoot":
        kinds.append(element["/S"])
        element = element["/P"].get_object()
    return kinds


def test_a_pdf_joined_from_pieces_keeps_its_tags_language_and_outline(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """Two versions and their keys are four sections, so four pieces joined: pypdf's join dropped
    typst's tags (the one-piece PDF kept them). Each page's marked content must lead through the
    parent tree to an element under the one Document, in the Part of its own section."""
    target = tmp_path / "exam.pdf"
    code, _, err = run_cli("generate", "--count", "2", "--versions", "2", "--seed", "3", "-o", str(target))
    assert code == 0, err
    reader = pypdf.PdfReader(target)
    root = reader.trailer["/Root"]
    assert root["/Lang"] == "en" and root["/MarkInfo"]["/Marked"].value is True
    tree = root["/StructTreeRoot"]
    (document,) = (kid.get_object() for kid in tree["/K"])
    parts = [kid.get_object() for kid in document["/K"]]
    assert document["/S"] == "/Document" and [part["/S"] for part in parts] == ["/Part"] * 4
    tops = [item.title for item in reader.outline if not isinstance(item, list)]
    assert tops == ["Version A", "Answer key · Version A", "Version B", "Answer key · Version B"]
    assert all(len(group) == 2 for group in reader.outline if isinstance(group, list))  # its problems
    nums = tree["/ParentTree"]["/Nums"]
    owners = {int(nums[i]): nums[i + 1].get_object() for i in range(0, len(nums), 2)}
    keys = [page["/StructParents"] for page in reader.pages]
    assert len(set(keys)) == len(keys) and max(keys) < tree["/ParentTreeNextKey"]
    first_pages = [0, *(reader.get_destination_page_number(item) for item in reader.outline[2::2])]
    for index, (page, key) in enumerate(zip(reader.pages, keys, strict=True)):
        section = sum(index >= start for start in first_pages) - 1  # whose Part the page is in
        marked = [element.get_object() for element in owners[key] if element is not None]
        assert marked, index
        for element in marked:
            assert _ancestors(element)[-2:] == ["/Part", "/Document"]
            part = element
            while part["/S"] != "/Part":
                part = part["/P"].get_object()
            assert part.indirect_reference.idnum == document["/K"][section].idnum, index
        assert page.extract_text()  # text on every page, read back


def test_a_long_answer_grid_is_laid_out_in_bounded_pieces_in_order() -> None:
    """A 2,000-line grid in one compile took typst 250 MB: no piece may hold more than GRID_ROWS
    lines or PIECE problems, and the pieces together give every line and problem once, in order."""
    entries = [{"number": n, "code": f"C{n}", "answers": [["a", str(n)]]} for n in range(1, 501)]
    lines = [[str(n), f"C{n}", f"(a) {n}"] for n in range(1, 501)]
    pieces = list(_pieces([Section("key", "Answer key", len(entries), entries, lambda: lines)]))
    grid = [line for meta, _ in pieces for line in meta["grid"]]
    assert grid == lines
    assert [entry for _, chunk in pieces for entry in chunk] == entries
    assert all(len(meta["grid"]) <= GRID_ROWS and len(chunk) <= PIECE for meta, chunk in pieces)
    assert [meta["first"] for meta, _ in pieces] == [True] + [False] * (len(pieces) - 1)
    assert [meta["last"] for meta, _ in pieces] == [False] * (len(pieces) - 1) + [True]


def test_a_grid_split_over_pieces_prints_whole_under_one_heading(
    tmp_path: Path, run_cli, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(pdf, "GRID_ROWS", 2)  # five problems: grid pieces of 2, 2, then 1 with the key
    target = tmp_path / "set.pdf"
    args = ("--count", "5", "--question", "roofline/faster-chip", "--no-plots", "--answers", "key")
    code, _, err = run_cli("generate", *args, "--seed", "1", "-o", str(target))
    assert code == 0, err
    reader = pypdf.PdfReader(target)
    key = "\n".join(page.extract_text() for page in reader.pages if "Answer key" in page.extract_text())
    assert key.count("Answer grid") == 1
    lines = [
        line.split(".")[0]
        for line in key.splitlines()
        if re.match(r"[1-5]\. [0-9A-Z]{4}-[0-9A-Z]{4} \(a\)", line)
    ]
    assert lines == ["1", "2", "3", "4", "5"]


def test_a_copied_object_renumbers_its_references_and_never_a_strings_text() -> None:
    """Tag elements are copied as bytes: a reference outside a string is renumbered; inside a
    literal string (escaped and nested parentheses, the word endobj) nothing is; a stream is left
    to pypdf (its data may hold anything)."""
    data = b"%PDF-1.7\n12 0 obj\n<</T(a \\) 5 0 R (nested 6 0 R) endobj)/P 7 0 R/K[3 0 R 4]>>\nendobj\n"
    renumbered = {7: 70, 3: 30}
    body = _renumbered_body(data, data.index(b"12 0 obj"), renumbered.__getitem__)
    assert body == b"<</T(a \\) 5 0 R (nested 6 0 R) endobj)/P 70 0 R/K[30 0 R 4]>>"
    stream = b"9 0 obj\n<</Length 3 0 R>>\nstream\n1 0 R endobj\nendstream\nendobj\n"
    assert _renumbered_body(stream, 0, renumbered.__getitem__) is None


def test_a_title_that_looks_like_pdf_syntax_survives_the_join(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """A heading's tag carries the title as a PDF string; copied as bytes, a title holding a
    reference's shape, a parenthesis and the word endobj must read back unchanged."""
    title = r"Why 3 0 R (and a lone ) or \ ) ends no endobj"
    questions = tmp_path / "q"
    write_template(questions, "matmul/h100-4096", MATMUL.replace("4096 cubed on an H100", json.dumps(title)))
    target = tmp_path / "set.pdf"
    args = ("--questions", str(questions), "--question", "matmul/h100-4096", "--versions", "2", "--no-plots")
    code, _, err = run_cli("generate", *args, "--seed", "1", "-o", str(target))
    assert code == 0, err
    reader = pypdf.PdfReader(target, strict=True)
    headings = [
        reader.get_object(number).get("/T")
        for number in range(1, reader.trailer["/Size"])
        if isinstance(reader.get_object(number), dict) and reader.get_object(number).get("/S") == "/H2"
    ]
    assert headings and all(
        f". {title}" in heading for heading in headings
    )  # "1. TITLE", in a key "…  problem CODE"


def test_a_key_is_worked_out_as_it_is_laid_out_not_while_its_problems_are(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The key's explanations held up the problems' pages (typst waited on them, then the main
    thread waited on typst): they are worked out when the key asks, from the problems kept on disk,
    and come out as a fresh generation of the same set gives them."""
    from perfdrill.engine.model import load_specs
    from perfdrill.engine.output import ParallelSet, PrintOptions, combined_sections, sections
    from perfdrill.engine.output.document import key_entry
    from perfdrill.engine.practice import Plan, Practice
    from perfdrill.engine.problems import load_bank

    bank, specs = load_bank([]), load_specs([])
    options = PrintOptions("Lazy key", "2026-11-22", 5, "key")

    def printed_set() -> Any:
        practice = Practice(Plan(count=8, seed=5), bank, specs)
        return ParallelSet(practice.problem, practice.specs, count=8, versions=1, seed=5)

    worked: list[int] = []
    counted = lambda slot, o: worked.append(slot.number) or key_entry(slot, o)  # noqa: E731
    monkeypatch.setattr(sections, "key_entry", counted)
    problems_section, key_section = combined_sections(printed_set(), options)
    assert len(list(problems_section.entries)) == 8 and worked == []
    grid = key_section.grid()
    assert worked == []  # the grid needs answers only
    keys = list(key_section.entries)
    assert worked == list(range(1, 9))
    fresh = [key_entry(slot, options) for slot in printed_set().slots(0)]
    assert keys == fresh
    assert [line[2] for line in grid] == ["   ".join(f"({a}) {b}" for a, b in k["answers"]) for k in fresh]
