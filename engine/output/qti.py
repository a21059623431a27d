"""A QTI 1.2 package (zip) as Canvas imports it: one question group per template.

Each group holds the template's variants and Canvas picks one per student (`selection_number`
1). A variant is one item with all its parts, so a follow-up part ("and with the quantized
weights?") keeps the numbers it follows from: one response per part, numeric ones accepted as a
range (`vargte`/`varlte`) that is the engine's tolerance, each part adding its share of the score.
A one-part template gives Canvas's own numerical_question, multiple_choice_question or
multiple_answers_question. Each catalogued mistake's range shows that slip's explanation.
"""

from __future__ import annotations

import hashlib
import zipfile
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
    named_mistakes,
    part_html,
    plain_number,
)
from perfdrill.engine.problems.answers import letter
from perfdrill.engine.problems.generation import Problem, ProblemPart

QTI_NAMESPACE = "http://www.imsglobal.org/xsd/ims_qtiasiv1p2"
_MANIFEST = """<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="{ident}_manifest" xmlns="http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1">
  <metadata><schema>IMS Content</schema><schemaversion>1.1.3</schemaversion></metadata>
  <organizations/>
  <resources>
    <resource identifier="{ident}" type="imsqti_xmlv1p2"><file href="{ident}/{ident}.xml"/></resource>
  </resources>
</manifest>
"""


def ident(*parts: object) -> str:
    """A stable identifier: the same set gives the same package, byte for byte."""
    return "g" + hashlib.sha256("#".join(map(str, parts)).encode()).hexdigest()[:24]


def _fields(parent: ET.Element, **fields: str) -> None:
    metadata = ET.SubElement(parent, "qtimetadata")
    for label, entry in fields.items():
        field = ET.SubElement(metadata, "qtimetadatafield")
        ET.SubElement(field, "fieldlabel").text = label
        ET.SubElement(field, "fieldentry").text = entry


def _material(parent: ET.Element, text: str, kind: str = "text/html") -> None:
    ET.SubElement(ET.SubElement(parent, "material"), "mattext", {"texttype": kind}).text = text


_CANVAS_TYPES = {
    "numeric": "numerical_question",
    "choice": "multiple_choice_question",
    "multi": "multiple_answers_question",
}


def _condition(processing: ET.Element) -> tuple[ET.Element, ET.Element]:
    condition = ET.SubElement(processing, "respcondition", {"continue": "Yes"})
    return condition, ET.SubElement(condition, "conditionvar")


def _in_range(variables: ET.Element, response: str, low: float, high: float) -> None:
    ET.SubElement(variables, "vargte", {"respident": response}).text = plain_number(low)
    ET.SubElement(variables, "varlte", {"respident": response}).text = plain_number(high)


def _response(presentation: ET.Element, part: ProblemPart, response: str) -> None:
    if part.kind == "numeric":
        field = ET.SubElement(presentation, "response_str", {"ident": response, "rcardinality": "Single"})
        render = ET.SubElement(field, "render_fib", {"fibtype": "Decimal"})
        ET.SubElement(render, "response_label", {"ident": f"{response}_answer"})
        return
    cardinality = "Single" if part.kind == "choice" else "Multiple"
    field = ET.SubElement(presentation, "response_lid", {"ident": response, "rcardinality": cardinality})
    render = ET.SubElement(field, "render_choice")
    for number, (choice, _) in enumerate(choices(part)):
        label = ET.SubElement(render, "response_label", {"ident": letter(number)})
        _material(label, choice, "text/plain")  # plain text: the XML writer escapes it, nothing else


def _scoring(processing: ET.Element, part: ProblemPart, response: str, share: str) -> None:
    """The part's share of the score when its answer is right."""
    condition, variables = _condition(processing)
    if part.kind == "numeric":
        _in_range(variables, response, *accepted_range(part))
    else:
        pairs = choices(part)
        every = ET.SubElement(variables, "and")
        for number, (_, ok) in enumerate(pairs):
            parent = every if ok else ET.SubElement(every, "not")
            ET.SubElement(parent, "varequal", {"respident": response}).text = letter(number)
    ET.SubElement(condition, "setvar", {"action": "Add", "varname": "SCORE"}).text = share


def _feedback(element: ET.Element, name: str, html: str) -> None:
    feedback = ET.SubElement(element, "itemfeedback", {"ident": name})
    _material(ET.SubElement(feedback, "flow_mat"), html)


def _shares(parts: int) -> list[str]:
    """Each part's share of a score of 100, to 4 decimals, the last taking what rounding leaves so
    that full marks add up to exactly 100 (3 parts: 33.3333, 33.3333, 33.3334)."""
    each = 1_000_000 // parts  # in ten-thousandths
    return [
        f"{share / 10_000:.4f}".rstrip("0").rstrip(".")
        for share in [each] * (parts - 1) + [1_000_000 - each * (parts - 1)]
    ]


def item(problem: Problem, feedback: bool = True) -> ET.Element:
    """One variant as a Canvas item: every part a response, with the worked feedback and each
    named mistake's explanation (without `feedback`, neither)."""
    element = ET.Element("item", {"ident": ident(problem.id, problem.seed), "title": problem.template.title})
    single = len(problem.parts) == 1
    fields = {"question_type": _CANVAS_TYPES[problem.parts[0].kind]} if single else {}
    # perfdrill_variant is for the instructor; Canvas ignores fields it does not know.
    _fields(
        ET.SubElement(element, "itemmetadata"),
        **fields,
        points_possible=f"{len(problem.parts)}.0",
        perfdrill_variant=f"{problem.id}#{problem.seed}",
    )
    presentation = ET.SubElement(element, "presentation")
    _material(presentation, markdown_html(problem.prompt))
    processing = ET.SubElement(element, "resprocessing")
    outcomes = ET.SubElement(processing, "outcomes")
    ET.SubElement(
        outcomes, "decvar", {"maxvalue": "100", "minvalue": "0", "varname": "SCORE", "vartype": "Decimal"}
    )
    if feedback:
        general, variables = _condition(processing)
        ET.SubElement(variables, "other")
        ET.SubElement(general, "displayfeedback", {"feedbacktype": "Response", "linkrefid": "general_fb"})
    slips: list[tuple[str, str]] = []
    for index, (part, share) in enumerate(zip(problem.parts, _shares(len(problem.parts)), strict=True)):
        response = "response1" if single else f"response_{letter(index)}"
        _material(presentation, part_html(index, part))
        _response(presentation, part, response)
        _scoring(processing, part, response, share)
        for number, (value, text) in enumerate(named_mistakes(part) if feedback else []):
            name = f"{response}_slip{number + 1}"
            condition, variables = _condition(processing)
            _in_range(variables, response, *accepted_range(part, value))
            _in_range(ET.SubElement(variables, "not"), response, *accepted_range(part))  # right wins
            ET.SubElement(condition, "displayfeedback", {"feedbacktype": "Response", "linkrefid": name})
            slips.append((name, f"<p>({letter(index)}) {escape(text)}</p>"))
    if feedback:
        _feedback(element, "general_fb", feedback_html(problem))
    for name, html in slips:
        _feedback(element, name, html)
    return element


def _group(parent: ET.Element, title: str, key: str, points: int) -> ET.Element:
    group = ET.SubElement(parent, "section", {"ident": ident("group", key), "title": title})
    selection = ET.SubElement(ET.SubElement(group, "selection_ordering"), "selection")
    ET.SubElement(selection, "selection_number").text = "1"
    ET.SubElement(ET.SubElement(selection, "selection_extension"), "points_per_item").text = f"{points}.0"
    return group


def write_qti(pool: Pool, out: BinaryIO, title: str, checkpoint: Callable[[], None] = lambda: None) -> int:
    """The pool as a QTI 1.2 zip Canvas imports; returns the number of items."""
    name = ident("assessment", title, pool.seed, pool.count, *(t.id for t in pool.templates))
    root = ET.Element("questestinterop", {"xmlns": QTI_NAMESPACE})
    assessment = ET.SubElement(root, "assessment", {"ident": name, "title": title})
    _fields(assessment, cc_maxattempts="1")
    sections = ET.SubElement(assessment, "section", {"ident": "root_section"})
    written = 0
    for template, variants in pool.groups(checkpoint):
        group = _group(sections, template.title, template.id, len(template.parts))
        for problem in variants:
            group.append(item(problem, pool.feedback))
            written += 1
    checkpoint()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        # A fixed timestamp: the same arguments give the same package.
        for path, text in (
            ("imsmanifest.xml", _MANIFEST.format(ident=name)),
            (
                f"{name}/{name}.xml",
                '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode"),
            ),
        ):
            package.writestr(zipfile.ZipInfo(path, date_time=(2020, 1, 1, 0, 0, 0)), text)
    return written
