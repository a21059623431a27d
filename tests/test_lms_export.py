"""Moodle XML and QTI exports: every question's correct answer is the engine's, within the
engine's own tolerance, in the element names Moodle's XML format and Canvas's QTI 1.2 use."""

from __future__ import annotations

import html
import io
import zipfile
from decimal import Decimal
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from perfdrill.engine.model import load_specs
from perfdrill.engine.problems import Problem, generate, load_bank
from perfdrill.engine.problems.grading import within
from perfdrill.engine.problems.mistakes import CATALOGUE
from tests.helpers import MATMUL, RIDGE, write_template
from tests.lms_readers import LOOKS_LIKE_A_BLANK, QTI, Blank, extract, process, validate

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


def _export(tmp_path: Path, run_cli, fmt: str, *args: str, count: str = "2") -> Path:  # type: ignore[no-untyped-def]
    target = tmp_path / f"pool.{fmt}"
    code, _, err = run_cli(
        "generate", "--format", fmt, "--count", count, "--seed", "8", *args, "-o", str(target)
    )
    assert code == 0, err
    return target


def _problem(idnumber: str, bank=BANK) -> Problem:  # type: ignore[no-untyped-def]
    template, seed = idnumber.rsplit("#", 1)
    return generate(bank.get(template), int(seed), SPECS)


def _past(edge: float, width: float, direction: float = 1.0) -> float:
    """Just past a tolerance band's edge; an exact count (width 0) is passed by the next whole number."""
    return edge + direction * (width * 0.01 if width > 0 else 1.0)


def _check_blank(blank: Blank, part) -> None:  # type: ignore[no-untyped-def]
    """A blank as Moodle parsed it grades as the engine does, and carries the named mistakes."""
    if part.kind == "numeric":
        assert blank.kind == "NUMERICAL"
        right, *slips = blank.options
        assert right.fraction == 1 and right.value == pytest.approx(part.value, rel=1e-9)
        assert within(right.value + right.tolerance * (1 - 1e-6), part.value, part.tolerance)
        assert not within(_past(right.value + right.tolerance, right.tolerance), part.value, part.tolerance)
        slipped = dict(part.mistakes)
        for slip in slips:  # each 0% answer is a catalogued mistake's value, its feedback the slip's name
            assert slip.fraction == 0 and slip.feedback.startswith("Not quite.")
            named = [m for m, v in slipped.items() if v == pytest.approx(slip.value, rel=1e-9)]
            assert named and all(CATALOGUE[m].title in slip.feedback for m in named)
        return
    labels = [html.unescape(o.answer) for o in blank.options]  # Moodle shows the stored HTML
    if part.kind == "choice":
        assert blank.kind == "MULTICHOICE_V" and blank.single
        assert [label for label, o in zip(labels, blank.options, strict=True) if o.fraction == 1] == list(
            part.correct
        )
    else:
        assert blank.kind == "MULTIRESPONSE" and not blank.single
        right = [label for label, o in zip(labels, blank.options, strict=True) if o.fraction > 0]
        assert right == (list(part.correct) or ["none of these"])


def test_every_templates_moodle_export_parses_with_moodles_cloze_grammar(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """Every blank of every template, read with Moodle's own ANSWER_REGEX: none is left behind as
    text (the MULTIRESPONSE_V blank was, showing its key to students), each grades as the engine."""
    quiz = ET.parse(_export(tmp_path, run_cli, "moodle")).getroot()
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
        assert kind == "multianswer"  # every built-in template has several parts
        assert (question.findtext("name/text") or "").strip()  # else Moodle names it from the text
        blanks, left = extract(question.findtext("questiontext/text") or "")
        assert not LOOKS_LIKE_A_BLANK.search(left), idnumber
        assert validate(blanks) == [], idnumber  # what import_multianswer refuses a question for
        assert len(blanks) == len(problem.parts) == int(question.findtext("defaultgrade") or "")
        for blank, part in zip(blanks, problem.parts, strict=True):
            _check_blank(blank, part)
    assert len(counts) == len(BANK.templates) and set(counts.values()) == {2}


def test_the_select_all_blank_of_the_reported_repro_is_a_blank(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """The issue's repro: fits-sweep's select-all part showed "%25%batch = 1~…" to students."""
    quiz = ET.parse(
        _export(tmp_path, run_cli, "moodle", "--question", "performance_model/fits-sweep", count="3")
    ).getroot()
    for question in quiz.iterfind("question[@type='multianswer']"):
        blanks, left = extract(question.findtext("questiontext/text") or "")
        assert "%25%" not in left and "batch = 1" not in left
        assert [b.kind for b in blanks].count("MULTIRESPONSE") == 1


HOSTILE = """
id: matmul/hostile
title: Hostile text
family: matmul
difficulty: easy
workload: matmul
parameters:
  chip: {chip: {ids: [h100-sxm]}}
scenario: {chip: chip, dtype: bf16}
inputs: {m: 4096, k: 4096, n: 4096, activation_bytes: 2, weight_bytes_per_param: 2}
parts:
  - {name: flops, kind: numeric, prompt: "FLOPs {1:NUMERICAL:=99:0}?", answer: flops, unit: GFLOP}
  - name: pick
    kind: choice
    prompt: Pick one.
    choices: ["a ~ b", "c # d", "e } f", "g < h & i", "the GPU's {2:SA:=x}"]
    correct: "c # d"
"""
HOSTILE_PROMPT = (
    "Type {1:NUMERICAL:=99:0} here. See [the answers](https://evil.example/key) and "
    "![tracker](https://evil.example/pixel.png).\n"
)


def test_template_text_cannot_make_a_blank_a_link_or_an_image(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    questions = tmp_path / "q"
    write_template(questions, "matmul/hostile", HOSTILE, HOSTILE_PROMPT)
    args = ("--questions", str(questions), "--question", "matmul/hostile", "--no-builtin")
    quiz = ET.parse(_export(tmp_path, run_cli, "moodle", *args)).getroot()
    for question in quiz.iterfind("question[@type='multianswer']"):
        text = question.findtext("questiontext/text") or ""
        blanks, left = extract(text)
        assert len(blanks) == 2 and not LOOKS_LIKE_A_BLANK.search(left)  # only the two parts are blanks
        assert "{1:NUMERICAL:=99:0}" in html.unescape(left)  # shown as the text it is
        assert "<a" not in text and "<img" not in text and "evil.example" not in text
        assert "the answers" in text  # a link keeps its text, as in the printed HTML and PDF
        shown = [html.unescape(o.answer) for o in blanks[1].options]
        assert shown == ["a ~ b", "c # d", "e } f", "g < h & i", "the GPU's {2:SA:=x}"]
        assert [o.fraction for o in blanks[1].options] == [0, 1, 0, 0, 0]
    with zipfile.ZipFile(_export(tmp_path, run_cli, "qti", *args)) as package:
        xml = next(n for n in package.namelist() if n != "imsmanifest.xml")
        text = package.read(xml).decode()
    assert "evil.example" not in text and "&lt;a " not in text and "&lt;img" not in text


def _roofline_one_part(tmp_path: Path) -> Path:
    questions = tmp_path / "q"
    write_template(questions, "roofline/l4-ridge", RIDGE, "The **L4** in bf16.\n")
    return questions


def test_a_one_part_numerical_question_carries_its_units_and_its_named_mistake(
    tmp_path: Path, run_cli
) -> None:  # type: ignore[no-untyped-def]
    """The L4's ridge is 121 TFLOP/s over 300 GB/s = 403.3 FLOP/B (the GPU workshop's figure); read
    off the sparse peak it is twice that, 806.7. A kFLOP/B is 1000 FLOP/B: multiplier 0.001."""
    args = ("--questions", str(_roofline_one_part(tmp_path)), "--question", "roofline/l4-ridge")
    quiz = ET.parse(_export(tmp_path, run_cli, "moodle", *args)).getroot()
    question = quiz.find("question[@type='numerical']")
    assert question is not None
    answers = {float(a.findtext("text") or ""): a for a in question.iterfind("answer")}
    right, slip = sorted(answers)
    assert right == pytest.approx(403.33, rel=1e-3) and answers[right].get("fraction") == "100"
    assert slip == pytest.approx(806.67, rel=1e-3) and answers[slip].get("fraction") == "0"
    assert CATALOGUE["sparse-peak"].title in (answers[slip].findtext("feedback/text") or "")
    units = {
        u.findtext("unit_name"): float(u.findtext("multiplier") or "")
        for u in question.iterfind("units/unit")
    }
    assert units["FLOP/B"] == 1 and units["kFLOP/B"] == pytest.approx(0.001)


def test_answers_none_leaves_the_worked_solution_out_of_both_exports(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    quiz = ET.parse(_export(tmp_path, run_cli, "moodle", "--family", "matmul", "--answers", "none")).getroot()
    questions = quiz.findall("question[@type='multianswer']")
    assert questions
    for question in questions:
        assert not (question.findtext("generalfeedback/text") or "")
        blanks, _ = extract(question.findtext("questiontext/text") or "")
        assert all(not o.feedback for b in blanks for o in b.options)
    with zipfile.ZipFile(
        _export(tmp_path, run_cli, "qti", "--family", "matmul", "--answers", "none")
    ) as package:
        xml = next(n for n in package.namelist() if n != "imsmanifest.xml")
        root = ET.fromstring(package.read(xml))
    assert root.find(f".//{QTI}item") is not None and root.find(f".//{QTI}itemfeedback") is None


def test_a_hand_worked_matmul_reaches_moodle_and_qti_with_its_value(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """2·4096³ = 137,438,953,472 FLOP = 137.44 GFLOP, and 137.44e9 / 989e12 FLOP/s = 138.97 µs;
    forgetting the 2 gives 68.72 GFLOP, the catalogued "Missing the 2 in FLOPs"."""
    questions = tmp_path / "q"
    write_template(questions, "matmul/h100-4096", MATMUL, "Multiply two 4096×4096 bf16 matrices.\n")
    moodle = _export(tmp_path, run_cli, "moodle", "--questions", str(questions), "--family", "matmul")
    quiz = ET.parse(moodle).getroot()
    mine = next(q for q in quiz if (q.findtext("idnumber") or "").startswith("matmul/h100-4096#"))
    (flops, runtime, bound), _ = extract(mine.findtext("questiontext/text") or "")
    assert flops.options[0].value == pytest.approx(137.438953472, rel=1e-9)
    assert runtime.options[0].value == pytest.approx(137.438953472e9 / 989e12 * 1e6, rel=1e-6)
    missing_2 = next(o for o in flops.options if o.fraction == 0)
    assert missing_2.value == pytest.approx(68.719476736, rel=1e-9)
    assert CATALOGUE["matmul-missing-2"].title in missing_2.feedback
    assert [o.answer for o in bound.options if o.fraction == 1] == ["compute"]  # 139 > 30.05 µs
    qti = _export(tmp_path, run_cli, "qti", "--questions", str(questions), "--family", "matmul")
    with zipfile.ZipFile(qti) as package:
        xml = next(n for n in package.namelist() if n != "imsmanifest.xml")
        root = ET.fromstring(package.read(xml))
    item = next(i for i in root.iter(f"{QTI}item") if i.get("title") == "4096 cubed on an H100")
    labels = {m.findtext(f".//{QTI}mattext"): m.get("ident") for m in item.iter(f"{QTI}response_label")}
    compute, memory = labels["compute"], labels["memory"]
    right = {"response_a": "137.4", "response_b": "139", "response_c": compute}
    assert process(item, right)[0] == pytest.approx(100, abs=0.01)
    # 100 / 3 to 4 decimals, the last part taking the remainder: full marks are 100, not 99.9999.
    assert [s.text for s in item.iter(f"{QTI}setvar")] == ["33.3333", "33.3333", "33.3334"]
    score, shown = process(item, {"response_a": "68.7", "response_b": "145.9", "response_c": memory})
    assert score == pytest.approx(100 / 3, rel=1e-3)  # only (b) is right: 5% of 138.97 µs is ±6.95
    assert "response_a_slip1" in shown and "general_fb" in shown


def test_every_templates_qti_item_is_a_whole_problem_a_qti_reader_grades(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """One group per template (a 3-problem quiz had 310 groups, one per part); each item holds every
    part of one variant, and answering with the engine's answers scores 100 under QTI 1.2's rules."""
    with zipfile.ZipFile(_export(tmp_path, run_cli, "qti", count="1")) as package:
        manifest = ET.fromstring(package.read("imsmanifest.xml"))
        manifest_ns = {"m": "http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1"}
        resource = manifest.find(".//m:resource", manifest_ns)
        assert resource is not None and resource.get("type") == "imsqti_xmlv1p2"
        href = resource.find("m:file", manifest_ns).get("href")  # type: ignore[union-attr]
        root = ET.fromstring(package.read(href))  # type: ignore[arg-type]
    groups = root.findall(f".//{QTI}section[@ident='root_section']/{QTI}section")
    assert len(groups) == len(BANK.templates)
    for group in groups:
        assert group.findtext(f".//{QTI}selection_number") == "1"
        (item,) = group.iterfind(f"{QTI}item")
        fields = {
            f.findtext(f"{QTI}fieldlabel"): f.findtext(f"{QTI}fieldentry")
            for f in item.iterfind(f".//{QTI}qtimetadatafield")
        }
        problem = _problem(fields["perfdrill_variant"] or "")
        assert problem.template.title == item.get("title") == group.get("title")
        responses: dict[str, object] = {}
        for index, part in enumerate(problem.parts):
            ident = f"response_{chr(ord('a') + index)}"
            if part.kind == "numeric":
                responses[ident] = repr(part.value)
                continue
            labels = {
                (r.findtext(f".//{QTI}mattext") or ""): r.get("ident")
                for r in item.iterfind(f".//{QTI}response_lid[@ident='{ident}']//{QTI}response_label")
            }
            assert all("&#" not in label for label in labels)  # plain text, no references shown
            picked = list(part.correct) or ["none of these"]
            responses[ident] = labels[picked[0]] if part.kind == "choice" else {labels[c] for c in picked}
        score, shown = process(item, responses)
        assert score == pytest.approx(100, abs=0.01), fields["perfdrill_variant"]
        shares = [Decimal(s.text or "") for s in item.iter(f"{QTI}setvar")]
        assert len(shares) == len(problem.parts) and sum(shares) == 100, fields["perfdrill_variant"]
        assert shown == ["general_fb"]  # a right answer shows no mistake's explanation
        _check_slips(item, problem, responses)


def _check_slips(item: ET.Element, problem: Problem, right: dict[str, object]) -> None:
    """Each numeric part answered with a catalogued mistake's value (one outside the right range)
    loses that part's share and shows feedback naming the mistake, the others staying right."""
    feedback = {  # what a student reads: the HTML's text, references decoded
        f.get("ident"): html.unescape(f.findtext(f".//{QTI}mattext") or "")
        for f in item.iterfind(f"{QTI}itemfeedback")
    }
    share = 100 / len(problem.parts)
    for index, part in enumerate(problem.parts):
        slips = [
            (m, v)
            for m, v in part.mistakes
            if part.value is not None and not within(v, part.value, part.tolerance)
        ]
        if not slips:
            continue
        mistake, value = slips[0]
        ident = f"response_{chr(ord('a') + index)}"
        score, shown = process(item, {**right, ident: repr(value)})
        assert score == pytest.approx(100 - share, abs=0.01), (problem.id, mistake)
        named = [feedback[s] for s in shown if s.startswith(f"{ident}_slip")]
        assert len(named) == 1 and CATALOGUE[mistake].title in named[0], (problem.id, mistake)


def test_qti_choice_labels_are_plain_text_without_references(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """kv_cache/max-batch's "the model's context window" showed as "the model&#x27;s context window"."""
    with zipfile.ZipFile(_export(tmp_path, run_cli, "qti", "--question", "kv_cache/max-batch")) as package:
        xml = next(n for n in package.namelist() if n != "imsmanifest.xml")
        root = ET.fromstring(package.read(xml))
    labels = [m.text for m in root.iter(f"{QTI}mattext") if m.get("texttype") == "text/plain"]
    assert "the model's context window" in labels


def test_the_exports_are_the_same_bytes_for_the_same_arguments(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    for fmt in ("moodle", "qti"):
        first = _export(tmp_path, run_cli, fmt, "--family", "matmul").read_bytes()
        assert _export(tmp_path, run_cli, fmt, "--family", "matmul").read_bytes() == first
    assert io.BytesIO(first).read(2) == b"PK"


@pytest.mark.parametrize(
    ("cloze", "errors"),
    [
        ("{1:NUMERICAL:=4.5:0.1~%0%9#Doubled}", []),
        ("{1:MULTIRESPONSE:%50%a~%50%b~%-100%c}", []),  # no 100% answer, yet one worth more than 0%
        ("{1:MULTICHOICE:=only}", ["sub_1: notenoughanswers"]),
        ("{1:NUMERICAL:%50%3}", ["sub_1: fractionsnomax"]),
        ("{1:NUMERICAL:=four}", ["sub_1: answermustbenumberorstar"]),
        ("no blank at all", ["questionsmissing"]),
    ],
)
def test_the_ported_import_checks_refuse_what_moodle_refuses(cloze: str, errors: list[str]) -> None:
    """Hand-written Cloze text against qtype_multianswer_validate_question's rules, so the check
    run over every export is known to fail where Moodle would refuse the question."""
    blanks, _ = extract(cloze)
    assert validate(blanks) == errors
