"""Moodle XML (question bank import): one category per template holding its variants.

A one-part template becomes `numerical` questions (value, absolute tolerance, unit) or
`multichoice` ones; a template of several parts becomes Cloze (`multianswer`) questions, so a
random question from the category is one whole variant with all its parts. The worked answer is
each question's general feedback, and each catalogued mistake's value is a 0% answer whose
feedback names the slip. Element names follow Moodle's question/format/xml/format.php; Cloze
blanks follow the grammar of question/type/multianswer/questiontype.php (ANSWER_REGEX).
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import BinaryIO
from xml.etree import ElementTree as ET

from perfdrill.engine.output.lms import (
    Pool,
    accepted_range,
    accepted_units,
    choices,
    feedback_html,
    markdown_html,
    named_mistakes,
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


def _common(question: ET.Element, problem: Problem, index: int, text: str, feedback: bool) -> None:
    _text(question, "name", f"{problem.template.title} · variant {index + 1}")
    _text(question, "questiontext", text, format="html")
    _text(question, "generalfeedback", feedback_html(problem) if feedback else "", format="html")
    _value(question, "defaultgrade", str(len(problem.parts)))
    _value(question, "penalty", "0.3333333")
    _value(question, "hidden", "0")
    _value(question, "idnumber", f"{problem.id}#{problem.seed}")


def _numerical(question: ET.Element, part: ProblemPart, feedback: bool) -> None:
    assert part.value is not None
    slips = named_mistakes(part) if feedback else []
    for value, fraction, text in [(part.value, "100", ""), *((v, "0", t) for v, t in slips)]:
        low, high = accepted_range(part, value)
        answer = _text(
            question, "answer", plain_number(value), fraction=fraction, format="moodle_auto_format"
        )
        _text(answer, "feedback", escape(text), format="html")
        _value(answer, "tolerance", plain_number((high - low) / 2))
    if units := accepted_units(part):
        every = ET.SubElement(question, "units")
        for name, multiplier in units:
            unit = ET.SubElement(every, "unit")
            _value(unit, "multiplier", plain_number(multiplier))
            _value(unit, "unit_name", name)
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


# Characters Cloze's grammar reads as syntax, as numeric character references: "{" can open a
# blank, "~", "#" and "}" end an option or its feedback, "\\" glues the next one on. Moodle decodes
# references once after parsing, and "#" after "&" never ends an option.
_CLOZE_SYNTAX = str.maketrans({c: f"&#{ord(c)};" for c in "{}~#\\"})
_BRACES = str.maketrans({"{": "&#123;", "}": "&#125;"})
_BLANK = "\x00"  # where a part's blank goes, in HTML that holds no NUL of its own


def cloze_safe(html: str) -> str:
    """Question-text HTML in which no text can open a Cloze blank: template text stays text."""
    return html.translate(_BRACES)


def _cloze_text(text: str) -> str:
    """Plain text as a Cloze option or feedback: Moodle decodes an option's references once and
    then shows it as HTML, so the text is escaped twice before its syntax characters are."""
    return escape(escape(text, quote=False), quote=False).translate(_CLOZE_SYNTAX)


def cloze(part: ProblemPart, feedback: bool = True) -> str:
    """One part as an embedded Cloze answer, e.g. {1:NUMERICAL:=139:6.95~%0%69.5:3.48#Not quite…}."""
    if part.kind == "numeric":
        assert part.value is not None
        options = []
        slips = named_mistakes(part) if feedback else []
        for value, text in [(part.value, ""), *slips]:
            low, high = accepted_range(part, value)
            mark = "=" if not text else "%0%"
            note = f"#{_cloze_text(text)}" if text else ""
            options.append(f"{mark}{plain_number(value)}:{plain_number((high - low) / 2)}{note}")
        unit = f" {cloze_safe(escape(part.unit))}" if part.unit not in ("", "1") else ""
        return f"{{1:NUMERICAL:{'~'.join(options)}}}{unit}"
    pairs = choices(part)
    if part.kind == "choice":
        return "{1:MULTICHOICE_V:" + "~".join(f"{'=' if ok else ''}{_cloze_text(c)}" for c, ok in pairs) + "}"
    right = sum(ok for _, ok in pairs)
    wrong = len(pairs) - right
    weights = [f"%{_share(right)}%" if ok else f"%-{_share(wrong)}%" for _, ok in pairs]
    # MULTIRESPONSE is Moodle's vertical, unshuffled select-all blank (there is no _V form).
    return (
        "{1:MULTIRESPONSE:"
        + "~".join(w + _cloze_text(c) for w, (c, _) in zip(weights, pairs, strict=True))
        + "}"
    )


def question(problem: Problem, index: int, feedback: bool = True) -> ET.Element:
    """Variant `index` of a template as one Moodle question; without `feedback`, no worked
    solution and no mistake explanation."""
    prompt = markdown_html(problem.prompt)
    if len(problem.parts) == 1:
        part = problem.parts[0]
        element = ET.Element("question", {"type": "numerical" if part.kind == "numeric" else "multichoice"})
        _common(element, problem, index, prompt + part_html(0, part), feedback)
        if part.kind == "numeric":
            _numerical(element, part, feedback)
        else:
            _multichoice(element, part)
        return element
    element = ET.Element("question", {"type": "multianswer"})
    # The template's text is made Cloze-safe before the blanks are put in: only they are blanks.
    parts = "".join(
        cloze_safe(part_html(i, part, _BLANK)).replace(_BLANK, cloze(part, feedback))
        for i, part in enumerate(problem.parts)
    )
    _common(element, problem, index, cloze_safe(prompt) + parts, feedback)
    return element


def write_moodle(pool: Pool, out: BinaryIO, checkpoint: Callable[[], None] = lambda: None) -> int:
    """The pool as a Moodle XML file, written one question at a time; returns the question count."""
    out.write(b'<?xml version="1.0" encoding="UTF-8"?>\n<quiz>\n')
    written = 0
    for template, variants in pool.groups(checkpoint):
        out.write(ET.tostring(category(template.id, template.title), encoding="unicode").encode() + b"\n")
        for index, problem in enumerate(variants):
            element = question(problem, index, pool.feedback)
            out.write(ET.tostring(element, encoding="unicode").encode() + b"\n")
            written += 1
    out.write(b"</quiz>\n")
    return written
