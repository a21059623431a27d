"""A QTI 1.2 package (zip) as Canvas imports it: one question group per template part.

Canvas asks one thing per question, so each part of a variant is an item that repeats the
variant's prompt; each group holds that part's variants and Canvas picks one per student
(`selection_number` 1). Numeric answers are accepted as a range (`vargte`/`varlte`) that is
the engine's tolerance; choice parts are multiple_choice or multiple_answers questions.
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


def _score(processing: ET.Element) -> ET.Element:
    condition = ET.SubElement(processing, "respcondition", {"continue": "No"})
    variables = ET.SubElement(condition, "conditionvar")
    ET.SubElement(condition, "setvar", {"action": "Set", "varname": "SCORE"}).text = "100"
    return variables


def item(problem: Problem, index: int, part: ProblemPart) -> ET.Element:
    """Part `index` of one variant as a Canvas item with its answer and the worked feedback."""
    element = ET.Element(
        "item", {"ident": ident(problem.id, problem.seed, part.name), "title": problem.template.title}
    )
    kind = {"numeric": "numerical_question", "choice": "multiple_choice_question"}.get(
        part.kind, "multiple_answers_question"
    )
    variant = f"{problem.id}#{problem.seed}"  # for the instructor; Canvas ignores fields it does not know
    _fields(
        ET.SubElement(element, "itemmetadata"),
        question_type=kind,
        points_possible="1.0",
        perfdrill_variant=variant,
    )
    presentation = ET.SubElement(element, "presentation")
    _material(presentation, markdown_html(problem.prompt) + part_html(index, part))
    processing = ET.SubElement(element, "resprocessing")
    outcomes = ET.SubElement(processing, "outcomes")
    ET.SubElement(
        outcomes, "decvar", {"maxvalue": "100", "minvalue": "0", "varname": "SCORE", "vartype": "Decimal"}
    )
    general = ET.SubElement(processing, "respcondition", {"continue": "Yes"})
    ET.SubElement(ET.SubElement(general, "conditionvar"), "other")
    ET.SubElement(general, "displayfeedback", {"feedbacktype": "Response", "linkrefid": "general_fb"})
    if part.kind == "numeric":
        response = ET.SubElement(
            presentation, "response_str", {"ident": "response1", "rcardinality": "Single"}
        )
        ET.SubElement(
            ET.SubElement(response, "render_fib", {"fibtype": "Decimal"}),
            "response_label",
            {"ident": "answer1"},
        )
        low, high = accepted_range(part)
        variables = _score(processing)
        ET.SubElement(variables, "vargte", {"respident": "response1"}).text = plain_number(low)
        ET.SubElement(variables, "varlte", {"respident": "response1"}).text = plain_number(high)
    else:
        cardinality = "Single" if part.kind == "choice" else "Multiple"
        response = ET.SubElement(
            presentation, "response_lid", {"ident": "response1", "rcardinality": cardinality}
        )
        render = ET.SubElement(response, "render_choice")
        pairs = choices(part)
        for number, (choice, _) in enumerate(pairs):
            label = ET.SubElement(render, "response_label", {"ident": letter(number)})
            _material(label, escape(choice), "text/plain")
        variables = _score(processing)
        if part.kind == "choice":
            correct = next(letter(n) for n, (_, ok) in enumerate(pairs) if ok)
            ET.SubElement(variables, "varequal", {"respident": "response1"}).text = correct
        else:
            every = ET.SubElement(variables, "and")
            for number, (_, ok) in enumerate(pairs):
                parent = every if ok else ET.SubElement(every, "not")
                ET.SubElement(parent, "varequal", {"respident": "response1"}).text = letter(number)
    feedback = ET.SubElement(element, "itemfeedback", {"ident": "general_fb"})
    _material(ET.SubElement(feedback, "flow_mat"), feedback_html(problem))
    return element


def _group(parent: ET.Element, title: str, key: str) -> ET.Element:
    group = ET.SubElement(parent, "section", {"ident": ident("group", key), "title": title})
    selection = ET.SubElement(ET.SubElement(group, "selection_ordering"), "selection")
    ET.SubElement(selection, "selection_number").text = "1"
    ET.SubElement(ET.SubElement(selection, "selection_extension"), "points_per_item").text = "1.0"
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
        groups = [
            _group(sections, f"{template.title} ({letter(i)})", f"{template.id}#{part.name}")
            for i, part in enumerate(template.parts)
        ]
        for problem in variants:
            for index, part in enumerate(problem.parts):
                groups[index].append(item(problem, index, part))
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
