"""Moodle XML (question bank import): one category per template holding its variants.

A one-part template becomes `numerical` questions (value, absolute tolerance, unit) or
`multichoice` ones; a template of several parts becomes Cloze (`multianswer`) questions, so a
random question from the category is one whole variant with all its parts. The worked answer is
each question's general feedback. Element names follow Moodle's question/format/xml/format.php.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import BinaryIO
from xml.etree import ElementTree as ET

from perfdrill.engine.output.lms import (
    Pool,
    accepted_range,
    choices,
    feedback_html,
    markdown_html,
    part_html,
    plain_number,
)
from perfdrill.engine.problems.generation import Problem, ProblemPart

CATEGORY_ROOT = "$course$/top/perfdrill"
# Moodle accepts only these answer grades (percent); k right answers share 100 as 100/k.
_GRADES = (100, 50, 33.33333, 25, 20, 16.66667, 14.28571, 12.5, 11.11111, 10)


def _text(parent: ET.Element, tag: str, text: str, **attributes: str) -> ET.Element:
    element = ET.SubElement(parent, tag, attributes)
    ET.SubElement(element, "text").text = text
    return element


def _value(parent: ET.Element, tag: str, text: str) -> None:
    ET.SubElement(parent, tag).text = text


def _share(count: int) -> str:
    return f"{_GRADES[count - 1]:g}" if 1 <= count <= len(_GRADES) else plain_number(100 / count)


def category(template_id: str, title: str) -> ET.Element:
    question = ET.Element("question", {"type": "category"})
    _text(question, "category", f"{CATEGORY_ROOT}/{template_id}")
    _text(question, "info", title, format="html")
    return question


def _common(question: ET.Element, problem: Problem, index: int, text: str) -> None:
    _text(question, "name", f"{problem.template.title} · variant {index + 1}")
    _text(question, "questiontext", text, format="html")
    _text(question, "generalfeedback", feedback_html(problem), format="html")
    _value(question, "defaultgrade", str(len(problem.parts)))
    _value(question, "penalty", "0.3333333")
    _value(question, "hidden", "0")
    _value(question, "idnumber", f"{problem.id}#{problem.seed}")


def _numerical(question: ET.Element, part: ProblemPart) -> None:
    assert part.value is not None
    low, high = accepted_range(part)
    answer = _text(question, "answer", plain_number(part.value), fraction="100", format="moodle_auto_format")
    _text(answer, "feedback", "", format="html")
    _value(answer, "tolerance", plain_number((high - low) / 2))
    if part.unit not in ("", "1"):
        unit = ET.SubElement(ET.SubElement(question, "units"), "unit")
        _value(unit, "multiplier", "1")
        _value(unit, "unit_name", part.unit)
    _value(question, "unitgradingtype", "0")  # the unit is optional and never costs marks
    _value(question, "unitpenalty", "0.1000000")
    _value(question, "showunits", "0" if part.unit not in ("", "1") else "3")  # a unit box, or none
    _value(question, "unitsleft", "0")


def _multichoice(question: ET.Element, part: ProblemPart) -> None:
    pairs = choices(part)
    right = sum(correct for _, correct in pairs)
    wrong = len(pairs) - right
    _value(question, "single", "true" if part.kind == "choice" else "false")
    _value(question, "shuffleanswers", "false")  # the choices read in their printed order
    _value(question, "answernumbering", "abc")
    for choice, correct in pairs:
        fraction = _share(right) if correct else ("0" if part.kind == "choice" else f"-{_share(wrong)}")
        answer = _text(question, "answer", escape(choice), fraction=fraction, format="html")
        _text(answer, "feedback", "", format="html")


def _cloze_escape(text: str) -> str:
    for special in ("\\", "}", "#", "~", "/", '"'):
        text = text.replace(special, "\\" + special)
    return text


def cloze(part: ProblemPart) -> str:
    """One part as an embedded Cloze answer, e.g. {1:NUMERICAL:=139:6.95}."""
    if part.kind == "numeric":
        assert part.value is not None
        low, high = accepted_range(part)
        unit = f" {part.unit}" if part.unit not in ("", "1") else ""
        return f"{{1:NUMERICAL:={plain_number(part.value)}:{plain_number((high - low) / 2)}}}{unit}"
    pairs = choices(part)
    if part.kind == "choice":
        return (
            "{1:MULTICHOICE_V:"
            + "~".join(f"{'=' if ok else ''}{_cloze_escape(escape(c))}" for c, ok in pairs)
            + "}"
        )
    right = sum(ok for _, ok in pairs)
    wrong = len(pairs) - right
    weights = [f"%{_share(right)}%" if ok else f"%-{_share(wrong)}%" for _, ok in pairs]
    return (
        "{1:MULTIRESPONSE_V:"
        + "~".join(w + _cloze_escape(escape(c)) for w, (c, _) in zip(weights, pairs, strict=True))
        + "}"
    )


def question(problem: Problem, index: int) -> ET.Element:
    """Variant `index` of a template as one Moodle question."""
    prompt = markdown_html(problem.prompt)
    if len(problem.parts) == 1:
        part = problem.parts[0]
        kind = "numerical" if part.kind == "numeric" else "multichoice"
        element = ET.Element("question", {"type": kind})
        _common(element, problem, index, prompt + part_html(0, part))
        (_numerical if kind == "numerical" else _multichoice)(element, part)
        return element
    element = ET.Element("question", {"type": "multianswer"})
    parts = "".join(part_html(i, part, cloze(part)) for i, part in enumerate(problem.parts))
    _common(element, problem, index, prompt + parts)
    return element


def write_moodle(pool: Pool, out: BinaryIO, checkpoint: Callable[[], None] = lambda: None) -> int:
    """The pool as a Moodle XML file, written one question at a time; returns the question count."""
    out.write(b'<?xml version="1.0" encoding="UTF-8"?>\n<quiz>\n')
    written = 0
    for template, variants in pool.groups(checkpoint):
        out.write(ET.tostring(category(template.id, template.title), encoding="unicode").encode() + b"\n")
        for index, problem in enumerate(variants):
            out.write(ET.tostring(question(problem, index), encoding="unicode").encode() + b"\n")
            written += 1
    out.write(b"</quiz>\n")
    return written
