"""Moodle XML and QTI exports: every question's correct answer is the engine's, within the
engine's own tolerance, in the element names Moodle's XML format and Canvas's QTI 1.2 use."""

from __future__ import annotations

import html
import io
import re
import zipfile
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from perfdrill.engine.model import load_specs
from perfdrill.engine.problems import Problem, generate, load_bank
from perfdrill.engine.problems.grading import within
from tests.helpers import MATMUL, write_template

BANK, SPECS = load_bank([]), load_specs([])
# Moodle's question/format/xml imports a grade only from this list (percent, question/lib.php).
MOODLE_GRADES = {
    "100",
    "90",
    "83.33333",
    "80",
    "75",
    "70",
    "66.66667",
    "60",
    "50",
    "40",
    "33.33333",
    "30",
    "25",
}
MOODLE_GRADES |= {"20", "16.66667", "14.28571", "12.5", "11.11111", "10", "5", "0"}
CLOZE = re.compile(r"\{1:(NUMERICAL|MULTICHOICE_V|MULTIRESPONSE_V):(.*?)(?<!\\)\}")


def _export(tmp_path: Path, run_cli, fmt: str, *args: str) -> Path:  # type: ignore[no-untyped-def]
    target = tmp_path / f"pool.{fmt}"
    code, _, err = run_cli(
        "generate", "--format", fmt, "--count", "2", "--seed", "8", *args, "-o", str(target)
    )
    assert code == 0, err
    return target


def _problem(idnumber: str, bank=BANK) -> Problem:  # type: ignore[no-untyped-def]
    template, seed = idnumber.rsplit("#", 1)
    return generate(bank.get(template), int(seed), SPECS)


def _unescape(text: str) -> str:
    """A Cloze option as a student reads it: Cloze's backslash escapes undone, then the HTML ones
    (the question text is HTML, so "the GPU's work" travels as "the GPU&#x27;s work")."""
    return html.unescape(re.sub(r"\\(.)", r"\1", text))


def _past(edge: float, width: float, direction: float = 1.0) -> float:
    """Just past a tolerance band's edge; an exact count (width 0) is passed by the next whole number."""
    return edge + direction * (width * 0.01 if width > 0 else 1.0)


def _check_cloze(token: tuple[str, str], part) -> None:  # type: ignore[no-untyped-def]
    kind, body = token
    if part.kind == "numeric":
        assert kind == "NUMERICAL"
        value, tolerance = (float(x) for x in body.removeprefix("=").split(":"))
        assert value == pytest.approx(part.value, rel=1e-9)
        assert within(value + tolerance * (1 - 1e-6), part.value, part.tolerance)
        assert not within(_past(value + tolerance, tolerance), part.value, part.tolerance)
        return
    options = [_unescape(o) for o in re.split(r"(?<!\\)~", body)]
    if part.kind == "choice":
        assert kind == "MULTICHOICE_V"
        assert [o.removeprefix("=") for o in options if o.startswith("=")] == list(part.correct)
    else:
        assert kind == "MULTIRESPONSE_V"
        right = [re.sub(r"^%[\d.]+%", "", o) for o in options if re.match(r"%[\d.]+%", o)]
        assert right == (list(part.correct) or ["none of these"])


def test_moodle_questions_carry_the_engines_answers(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    quiz = ET.parse(_export(tmp_path, run_cli, "moodle")).getroot()
    assert quiz.tag == "quiz"
    category, counts = "", {}
    for question in quiz:
        kind = question.get("type")
        if kind == "category":
            category = question.findtext("category/text") or ""
            continue
        idnumber = question.findtext("idnumber") or ""
        problem = _problem(idnumber)
        assert category == f"$course$/top/perfdrill/{problem.id}"  # one category per template
        counts[category] = counts.get(category, 0) + 1
        assert question.find("questiontext").get("format") == "html"  # type: ignore[union-attr]
        feedback = question.findtext("generalfeedback/text") or ""
        assert problem.parts[0].shown_answer in feedback and "<li>" in feedback  # the worked answer
        if kind == "multianswer":
            tokens = CLOZE.findall(question.findtext("questiontext/text") or "")
            assert len(tokens) == len(problem.parts)
            for token, part in zip(tokens, problem.parts, strict=True):
                _check_cloze(token, part)
        elif kind == "numerical":
            (part,) = problem.parts
            answer = question.find("answer")
            assert answer is not None and answer.get("fraction") == "100"
            assert float(answer.findtext("text") or "") == pytest.approx(part.value, rel=1e-9)
            tolerance = float(answer.findtext("tolerance") or "")
            assert within(part.value + tolerance * (1 - 1e-6), part.value, part.tolerance)  # type: ignore[operator]
            if part.unit not in ("", "1"):
                assert question.findtext("units/unit/unit_name") == part.unit
        else:
            assert kind == "multichoice"
            (part,) = problem.parts
            fractions = {a.findtext("text"): a.get("fraction") for a in question.findall("answer")}
            assert {text for text, f in fractions.items() if not f.startswith(("0", "-"))} == set(
                part.correct
            )
            assert all(f.lstrip("-") in MOODLE_GRADES for f in fractions.values())
    assert len(counts) == len(BANK.templates) and set(counts.values()) == {2}


def test_a_hand_worked_matmul_reaches_moodle_and_qti_with_its_value(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """2·4096³ = 137,438,953,472 FLOP = 137.44 GFLOP, and 137.44e9 / 989e12 FLOP/s = 138.97 µs."""
    questions = tmp_path / "q"
    write_template(questions, "matmul/h100-4096", MATMUL, "Multiply two 4096×4096 bf16 matrices.\n")
    moodle = _export(tmp_path, run_cli, "moodle", "--questions", str(questions), "--family", "matmul")
    quiz = ET.parse(moodle).getroot()
    mine = next(q for q in quiz if (q.findtext("idnumber") or "").startswith("matmul/h100-4096#"))
    tokens = CLOZE.findall(mine.findtext("questiontext/text") or "")
    flops, runtime = (float(body.removeprefix("=").split(":")[0]) for _, body in tokens[:2])
    assert flops == pytest.approx(137.438953472, rel=1e-9)
    assert runtime == pytest.approx(137.438953472e9 / 989e12 * 1e6, rel=1e-6)
    assert tokens[2][0] == "MULTICHOICE_V"
    assert [o for o in tokens[2][1].split("~") if o.startswith("=")] == ["=compute"]  # 139 > 30.05 µs
    qti = _export(tmp_path, run_cli, "qti", "--questions", str(questions), "--family", "matmul")
    with zipfile.ZipFile(qti) as package:
        xml = next(n for n in package.namelist() if n != "imsmanifest.xml")
        root = ET.fromstring(package.read(xml))
    ns = {"q": "http://www.imsglobal.org/xsd/ims_qtiasiv1p2"}
    runtime_items = [
        item
        for item in root.iterfind(".//q:item", ns)
        if "4096 cubed" in (item.get("title") or "")
        and "<strong>(b)</strong>" in (item.findtext(".//q:mattext", namespaces=ns) or "")
    ]
    low = float(runtime_items[0].findtext(".//q:vargte", namespaces=ns) or "")
    high = float(runtime_items[0].findtext(".//q:varlte", namespaces=ns) or "")
    assert low == pytest.approx(138.97 * 0.95, rel=1e-3) and high == pytest.approx(138.97 * 1.05, rel=1e-3)


def test_qti_package_is_what_canvas_imports_with_the_engines_answers(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    ns = {"q": "http://www.imsglobal.org/xsd/ims_qtiasiv1p2"}
    with zipfile.ZipFile(
        _export(tmp_path, run_cli, "qti", "--family", "roofline", "--family", "kv_cache")
    ) as package:
        manifest = ET.fromstring(package.read("imsmanifest.xml"))
        manifest_ns = {"m": "http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1"}
        resource = manifest.find(".//m:resource", manifest_ns)
        assert resource is not None and resource.get("type") == "imsqti_xmlv1p2"
        href = resource.find("m:file", manifest_ns).get("href")  # type: ignore[union-attr]
        root = ET.fromstring(package.read(href))  # type: ignore[arg-type]
    groups = root.findall(".//q:section[@ident='root_section']/q:section", ns)
    assert groups and all(g.findtext(".//q:selection_number", namespaces=ns) == "1" for g in groups)
    checked = 0
    for group in groups:
        for item in group.iterfind("q:item", ns):
            fields = {
                f.findtext("q:fieldlabel", namespaces=ns): f.findtext("q:fieldentry", namespaces=ns)
                for f in item.iterfind(".//q:qtimetadatafield", ns)
            }
            feedback = item.findtext(".//q:itemfeedback//q:mattext", namespaces=ns) or ""
            text = item.findtext("q:presentation/q:material/q:mattext", namespaces=ns) or ""
            label = re.findall(r"<strong>\((\w)\)</strong>", text)[-1]
            problem = _problem(fields["perfdrill_variant"] or "")
            assert problem.template.title == item.get("title")
            part = problem.parts[ord(label) - ord("a")]
            assert f"({label}) {part.shown_answer}" in feedback
            if part.kind == "numeric":
                assert fields["question_type"] == "numerical_question"
                low = float(item.findtext(".//q:vargte", namespaces=ns) or "")
                high = float(item.findtext(".//q:varlte", namespaces=ns) or "")
                assert within(low, part.value, part.tolerance) and within(high, part.value, part.tolerance)  # type: ignore[arg-type]
                assert not within(_past(low, high - low, -1.0), part.value, part.tolerance)  # type: ignore[arg-type]
            else:
                labels = {
                    r.get("ident"): r.findtext(".//q:mattext", namespaces=ns)
                    for r in item.iterfind(".//q:response_label", ns)
                }
                scored = item.find(".//q:respcondition[@continue='No']/q:conditionvar", ns)
                right = [labels[v.text] for v in scored.iter(f"{{{ns['q']}}}varequal")  # type: ignore[union-attr]
                         if v not in set(scored.iterfind(".//q:not/q:varequal", ns))]  # type: ignore[union-attr]  # fmt: skip
                assert right == (list(part.correct) or ["none of these"])
            checked += 1
    assert checked > 10


def test_the_exports_are_the_same_bytes_for_the_same_arguments(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    for fmt in ("moodle", "qti"):
        first = _export(tmp_path, run_cli, fmt, "--family", "matmul").read_bytes()
        assert _export(tmp_path, run_cli, fmt, "--family", "matmul").read_bytes() == first
    assert io.BytesIO(first).read(2) == b"PK"
