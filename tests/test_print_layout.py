"""Page layout, checked on rendered pages: no heading alone at a page's foot; plots that can be read.

Headings are found by their text and size in the PDF; the page is rendered to PNG by typst from
the same piece, and the ink below each heading is counted in text lines down to the bottom margin.
"""

from __future__ import annotations

import io
import json
import math
import re
from pathlib import Path
from typing import Any

import pypdf
import typst
from PIL import Image

from perfdrill.engine.model import load_specs
from perfdrill.engine.output import ParallelSet, PrintOptions, combined_sections, document_head
from perfdrill.engine.output.document import key_entry
from perfdrill.engine.output.pdf import TEMPLATE
from perfdrill.engine.output.plots import log_ticks, roofline_plot
from perfdrill.engine.practice import Plan, Practice
from perfdrill.engine.problems import OperatingPoint, Roof, RooflineView, generate, load_bank
from perfdrill.engine.problems.roofline_view import what_if_names

PAGE_HEIGHT = 841.89  # A4 in points; at 72 ppi one pixel is one point
BOTTOM_MARGIN = 56.69  # 2 cm, as set.typ sets it
HEADING_SIZE = 12.6  # a level-2 heading over 10.5 pt text


def _ink_lines(image: Image.Image, top: int, bottom: int) -> int:
    """Runs of rows with dark pixels between `top` and `bottom`: the text lines printed there."""
    grey = image.convert("L")
    width = grey.width
    lines, inked = 0, False
    for row in range(max(top, 0), min(bottom, grey.height)):
        dark = any(grey.getpixel((x, row)) < 160 for x in range(0, width, 2))  # type: ignore[operator]
        if dark and not inked:
            lines += 1
        inked = dark
    return lines


def lonely_headings(pdf: bytes, pngs: list[bytes], lines_below: int = 2) -> list[str]:
    """Headings with fewer than `lines_below` lines of text under them on their page."""
    found = []
    for page, png in zip(pypdf.PdfReader(io.BytesIO(pdf)).pages, pngs, strict=True):
        runs: dict[float, str] = {}  # heading-sized text by baseline: a heading may come in pieces

        def visit(text: str, cm: list[float], tm: list[float], font: Any, size: float) -> None:
            if abs(size - HEADING_SIZE) < 0.3:
                runs[round(cm[5], 1)] = runs.get(round(cm[5], 1), "") + text  # noqa: B023

        page.extract_text(visitor_text=visit)
        image = Image.open(io.BytesIO(png))
        headings = [(y, text.strip()) for y, text in runs.items() if re.match(r"\d+\. ", text)]
        for baseline, text in headings:
            below = _ink_lines(image, round(PAGE_HEIGHT - baseline) + 4, round(PAGE_HEIGHT - BOTTOM_MARGIN))
            if below < lines_below:
                found.append(text)
    return found


def _render(source: str | Any, inputs: dict[str, str]) -> tuple[bytes, list[bytes]]:
    pdf = typst.compile(
        source, root=TEMPLATE.parent, format="pdf", sys_inputs=inputs, ignore_system_fonts=True
    )
    pngs = typst.compile(
        source, root=TEMPLATE.parent, format="png", ppi=72, sys_inputs=inputs, ignore_system_fonts=True
    )
    return pdf, pngs if isinstance(pngs, list) else [pngs]


def test_the_check_finds_a_heading_left_at_the_foot_of_a_page() -> None:
    """The check can fail: a heading pushed to the last line of a page is reported."""
    source = (
        b'#set page(paper: "a4", margin: (x: 2cm, top: 2.2cm, bottom: 2cm))\n#set text(size: 10.5pt)\n'
        b"#v(23.9cm)\n#heading(level: 2)[7. A lonely heading]\n#pagebreak()\nThe body it introduces.\n"
    )
    pdf, pngs = _render(source, {})
    assert lonely_headings(pdf, pngs) == ["7. A lonely heading"]


def test_no_heading_sits_alone_at_the_foot_of_a_page() -> None:
    bank, specs = load_bank([]), load_specs([])
    practice = Practice(Plan(count=50, seed=11), bank, specs)
    pset = ParallelSet(practice.problem, practice.specs, count=50, versions=1, seed=11)
    options = PrintOptions("Layout", "2026-11-22", 11, "key")
    head = document_head(options, 1)
    checked = 0
    for section in combined_sections(pset, options):
        piece = {"head": head, "section": {**section.meta(), "first": True, "last": True, "page_start": 1}}
        piece["entries"] = list(section.entries)
        pdf, pngs = _render(str(TEMPLATE), {"piece": json.dumps(piece)})
        assert len(pngs) > 20  # 50 problems, or their key, take many pages
        assert lonely_headings(pdf, pngs) == [], section.kind
        checked += len(pngs)
    assert checked > 50


def test_log_ticks_give_enough_values_to_read() -> None:
    assert log_ticks(1e12, 1e15) == [1e12, 1e13, 1e14, 1e15]  # four decades: decades suffice
    assert log_ticks(1, 30) == [1, 3, 10, 30]  # under two decades: 1-3 steps
    assert log_ticks(2, 9) == [2, 3, 4, 5, 6, 7, 8, 9]  # under one decade: every unit


def test_a_plot_names_chip_and_dtype_and_reads_its_roofs() -> None:
    # H100 SXM bf16: 989 TFLOP/s over 3.35 TB/s puts the ridge at 989/3.35 = 295 FLOP/byte.
    view = RooflineView(
        (
            Roof("NVIDIA H100 SXM, bf16", 989e12, 3.35e12, 295.2),
            Roof(
                "NVIDIA H100 SXM, bf16 (what-if: 2× bandwidth)",
                989e12,
                6.7e12,
                147.6,
                "what-if: 2× bandwidth",
            ),
        ),
        (OperatingPoint("operation", 64.0, 64.0 * 3.35e12),),
    )
    plot = roofline_plot(view, "Roofline of NVIDIA H100 SXM, bf16")
    assert plot["title"] == "Roofline of NVIDIA H100 SXM, bf16"
    labels = [roof["label"].split(":")[0] for roof in plot["roofs"]]  # issue 21: each names what it draws
    assert labels == ["NVIDIA H100 SXM, bf16", "NVIDIA H100 SXM, bf16 (what-if"]
    assert "2× bandwidth" in plot["roofs"][1]["label"] and "more_bandwidth" not in json.dumps(plot)
    roof = plot["roofs"][0]["label"].replace("\u00a0", " ")
    assert "989 TFLOP/s" in roof and "295 FLOP/B" in roof
    assert len(plot["y_ticks"]) >= 4 and all(0 <= y <= 1 for y, _ in plot["y_ticks"])
    # The ridge (295) sits between the 100 and 1000 ticks on the log axis.
    x_ticks = dict((label, x) for x, label in plot["x_ticks"])
    assert x_ticks["100"] < plot["ridge"] < x_ticks["1,000"]


def test_what_if_roofs_of_a_bank_template_have_human_names() -> None:
    bank, specs = load_bank([]), load_specs([])
    problem = generate(bank.get("roofline/faster-chip"), 3, specs)
    names = what_if_names(problem.variant)
    assert names == {
        "more_flops": "what-if: twice the peak FLOP/s",
        "more_bandwidth": "what-if: twice the memory bandwidth",
    }
    entry = key_entry(_slot(problem), PrintOptions("t", "2026-11-22", 3, "key"))
    text = json.dumps(entry["plot"], ensure_ascii=False)
    assert "more_flops" not in text and "what-if: twice the memory bandwidth" in text
    assert problem.chips[0].name in entry["plot"]["title"] and "bf16" in entry["plot"]["title"]


def _slot(problem: Any) -> Any:
    from perfdrill.engine.output import Slot

    return Slot(0, 1, problem, "TEST-CODE")


def test_a_printed_plot_names_the_roof_it_draws() -> None:
    """Issue 21: the title said "bf16 dense peak" over a roof derated by MFU and chip count. Seed 0
    of prefill-quadratic runs on 4 H100 SXM at 50% MFU: 4 × 989 TFLOP/s × 0.5 = 1.978 PFLOP/s
    (H100 SXM dense bf16 989 TFLOP/s, NVIDIA H100 datasheet)."""
    problem = generate(load_bank([]).get("attention_memory/prefill-quadratic"), 0, load_specs([]))
    assert problem.roofline is not None
    plot = roofline_plot(problem.roofline, "title")
    label = plot["roofs"][0]["label"].replace("\u00a0", " ")
    assert label.startswith("4 × NVIDIA H100 SXM5 80GB, bf16 at 50% MFU: 1.98 PFLOP/s"), label


def test_a_what_if_that_leaves_the_roof_alone_does_not_name_it() -> None:
    """A batch-1 what-if moves the operation, not the roof: no roof is called "what-if: batch 1"."""
    bank, specs = load_bank([]), load_specs([])
    for template in bank.select():
        for seed in range(3):
            problem = generate(template, seed, specs)
            view = problem.roofline
            if view is None:
                continue
            own = [float(problem.variant.lookup(name, None)) for name in ("system_flops", "system_bandwidth")]
            for roof in view.roofs:
                moved = not all(map(math.isclose, (roof.peak_flops, roof.bandwidth), own))
                assert bool(roof.what_if) == moved, (template.id, seed, roof.label)


def test_every_operator_a_worked_step_can_print_is_typeset() -> None:
    # hierarchical-all-reduce's NIC step reads "400 Gb/s ÷ 8 × 95 %": set.typ had no "÷", and every
    # PDF with that template failed ('dictionary does not contain key "÷"'). Each operator the
    # engine's display code writes (op("…") literals and the comparisons it shows) must be mapped.
    source = "\n".join(path.read_text() for path in Path("engine").rglob("*.py"))
    emitted = set(re.findall(r'\bop\("([^"]+)"\)', source)) | {"×", "+", "−", "=", "≥", ">", "≤", "<", "≠"}
    mapped = set(re.findall(r'"([^"]+)": sym\.', TEMPLATE.read_text()))
    assert "÷" in emitted
    assert emitted <= mapped, emitted - mapped


def test_a_key_with_a_division_sign_lays_out(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "key.pdf"
    code, _, err = run_cli(
        "generate", "--question", "parallelism/hierarchical-all-reduce", "--count", "1",
        "--answers", "inline", "--no-plots", "-o", str(out),
    )  # fmt: skip
    assert code == 0, err
    assert "÷ 8" in "".join(page.extract_text() for page in pypdf.PdfReader(out).pages)


def _one_problem_pdf(
    source: str, entry: dict[str, Any], answers: str, grid: list[list[str]] | None = None
) -> bytes:
    """A set of one hand-made problem `entry` (and an answer `grid`), laid out by the template at
    `source` as its only piece."""
    options = PrintOptions(entry["title"], "2026-11-22", 1, answers)
    section = {"kind": "problems", "name": "", "total": 1, "problems": "1 problem", "grid": grid or []}
    section |= {"first": True, "last": True, "page_start": 1}
    piece = {"head": document_head(options, 1), "section": section, "entries": [entry]}
    pdf, _ = _render(source, {"piece": json.dumps(piece)})
    return pdf


def _rates_text() -> str:
    """Rates preceded by words of every length, so that some line of a page ends at each place
    a rate can break, its slash included ("1,008 GB/" over "s" before units were tied)."""
    return " ".join(f"{'m' * (n % 9 + 1)} {n % 97},008\u00a0GB/s and {n}\u00a0TFLOP/s" for n in range(160))


def _lines(pdf: bytes) -> list[str]:
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    return [line.rstrip() for page in reader.pages for line in page.extract_text().splitlines()]


def test_the_check_finds_a_rate_broken_after_its_slash() -> None:
    """The check can fail: the same text with its rates untied breaks after a slash somewhere."""
    source = f'#set page(paper: "a4")\n#set text(font: "Libertinus Serif", size: 10.5pt)\n{_rates_text()}'
    pdf, _ = _render(source.encode(), {})
    assert any(line.endswith("/") for line in _lines(pdf))


def test_a_rate_never_breaks_after_its_slash() -> None:
    """Every rate in a prompt's plain and bold runs and in a key's answer grid stays on one line:
    the template ties "GB/s" and "TFLOP/s" by splitting the string (a `show regex` rule did it, at
    a quarter of the layout time)."""
    text = _rates_text()
    entry = {
        "number": 1, "code": "TEST-CODE", "title": "Rates", "meta": "", "parts": [],
        "specs": [],
        "prompt": [{"kind": "paragraph", "runs": [{"style": s, "text": text} for s in ("", "strong")]}],
    }  # fmt: skip
    lines = _lines(_one_problem_pdf(str(TEMPLATE), entry, "key", grid=[["1", "TEST-CODE", text]]))
    assert sum(line.count("GB/s") for line in lines) >= 3 * 160  # the runs' and the grid's, whole
    assert [line for line in lines if line.endswith("/")] == []


def _answer_pages(source: str, filler_lines: int) -> list[list[str]]:
    """The text of each page of one problem with inline answers, its prompt `filler_lines` lines
    long, so that its "Answer" heading falls at some place of the page."""
    text = " ".join(
        f"Line {n} of the prompt, long enough to fill most of one printed line of the page."
        for n in range(filler_lines)
    )
    key = {
        "answers": [[letter, f"{n + 1}.5 GB"] for n, letter in enumerate("abcde")],
        "ref": "a/b · seed 1", "command": "perfdrill preview a/b --seed 1", "plot": None,
        "explanation": {"lead": [], "sections": []},
    }  # fmt: skip
    entry = {
        "number": 1, "code": "TEST-CODE", "title": "Answers", "meta": "", "parts": [], "specs": [],
        "prompt": [{"kind": "paragraph", "runs": [{"style": "", "text": text}]}], "key": key,
    }  # fmt: skip
    pdf = _one_problem_pdf(source, entry, "inline")
    return [page.extract_text().splitlines() for page in pypdf.PdfReader(io.BytesIO(pdf)).pages]


def test_inline_answers_stay_together_under_their_heading() -> None:
    """A teacher reviewer's PDF broke a page after "(a) 5.662 GB" (prefix-caching) and after
    "(a) 13.1 %" (decode-mfu), leaving the other answers overleaf. With the heading at every place
    near a page's foot, the five answer lines are always on its page."""
    for filler in range(55, 65):  # the heading from mid-page to the foot of page 1
        pages = _answer_pages(str(TEMPLATE), filler)
        where = [
            (p, i)
            for p, lines in enumerate(pages)
            for i, line in enumerate(lines)
            if line.strip() == "Answer"
        ]
        assert len(where) == 1, filler
        page, index = where[0]
        answers = [line for line in pages[page][index + 1 :] if re.match(r"\([a-e]\) ", line)]
        assert len(answers) == 5, (filler, pages[page][index:])
