"""Readers for what the LMS exports write, written from the formats' own definitions and not from
perfdrill's writers: Moodle's Cloze grammar and a small QTI 1.2 response processor.

The Cloze grammar is Moodle's question/type/multianswer/questiontype.php (ANSWER_REGEX and
ANSWER_ALTERNATIVE_REGEX, Moodle 4.x), ported to Python's `re`: PHP's lookbehind `(?<!\\\\|&|&amp;)`
is written as three lookbehinds, which is the same test. Moodle replaces each blank it matches by
`{#n}` and parses the next one, so text that only looks like a blank is left behind as text.
`validate` is what Moodle's importer then requires of the blanks: question/format/xml/format.php
(moodle/moodle at 9094211d277bef39ad1ac09635c200850248b7da) has import_multianswer call
qtype_multianswer_extract_question, then qtype_multianswer_validate_question (Moodle 4.x
question/type/multianswer/questiontype.php), and refuse the question on any error.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from xml.etree import ElementTree as ET

_FRACTION = r"=|%(-?[0-9]+(?:[.,][0-9]*)?)%"
_ANSWER = r".+?(?<!\\)(?<!&)(?<!&amp;)(?=[~#}]|$)"
_FEEDBACK = r".*?(?<!\\)(?=[~}]|$)"
_ALTERNATIVE = f"({_FRACTION})?({_ANSWER})(#({_FEEDBACK}))?"
_TYPES = (
    "(NUMERICAL|NM)|(MULTICHOICE|MC)|(MULTICHOICE_V|MCV)|(MULTICHOICE_H|MCH)|"
    "(SHORTANSWER|SA|MW)|(SHORTANSWER_C|SAC|MWC)|"
    "(MULTICHOICE_S|MCS)|(MULTICHOICE_VS|MCVS)|(MULTICHOICE_HS|MCHS)|"
    "(MULTIRESPONSE|MR)|(MULTIRESPONSE_H|MRH)|(MULTIRESPONSE_S|MRS)|(MULTIRESPONSE_HS|MRHS)"
)
ANSWER_REGEX = re.compile(
    r"\{([0-9]*):(" + _TYPES + "):(" + _ALTERNATIVE + "(~" + _ALTERNATIVE + r")*)\}", re.S
)
_ALTERNATIVE_REGEX = re.compile("~?" + _ALTERNATIVE, re.S)
_NUMBER = r"-?(([0-9]+[.,]?[0-9]*|[.,][0-9]+)([eE][-+]?[0-9]+)?)"
_NUMERICAL = re.compile(f"^({_NUMBER})(:{_NUMBER})?$", re.S)
# What a blank looks like to a reader, whether or not Moodle's grammar accepts it.
LOOKS_LIKE_A_BLANK = re.compile(r"\{[0-9]*:[A-Za-z_]+:")


@dataclass
class Option:
    fraction: float  # 1 for "=", the percentage / 100, or 0
    answer: str  # as Moodle stores it: references decoded, \} and \# undone
    feedback: str
    value: float | None = None  # NUMERICAL only
    tolerance: float = 0.0


@dataclass
class Blank:
    kind: str  # the type as written, e.g. NUMERICAL or MULTIRESPONSE
    single: bool  # False for the MULTIRESPONSE family
    options: list[Option]


def _decoded(text: str) -> str:
    return html.unescape(text).replace("\\}", "}").replace("\\#", "#")


def extract(text: str) -> tuple[list[Blank], str]:
    """Moodle's qtype_multianswer_extract_question: the blanks, and the text with each replaced."""
    blanks: list[Blank] = []
    while match := ANSWER_REGEX.search(text):
        kind = match.group(2)
        rest, options = match.group(int(_TYPES.count("(") + 3)), []
        while rest and (alt := _ALTERNATIVE_REGEX.match(rest)):
            fraction_text, percent, answer, feedback = alt.group(1), alt.group(2), alt.group(3), alt.group(5)
            fraction = (
                1.0 if fraction_text == "=" else (float(percent.replace(",", ".")) / 100 if percent else 0.0)
            )
            option = Option(fraction, _decoded(answer), _decoded(feedback or ""))
            if kind in ("NUMERICAL", "NM") and (number := _NUMERICAL.match(answer)):
                option.value = float(number.group(1))
                option.tolerance = float(number.group(6)) if number.group(6) else 0.0
            options.append(option)
            rest = rest[alt.end() :]
        blanks.append(Blank(kind, not kind.startswith(("MULTIRESPONSE", "MR")), options))
        text = text[: match.start()] + f"{{#{len(blanks)}}}" + text[match.end() :]
    return blanks, text


def validate(blanks: list[Blank]) -> list[str]:
    """Moodle's qtype_multianswer_validate_question, which question/format/xml/format.php's
    import_multianswer runs on every Cloze question it imports, refusing the question on any error:
    at least one blank; a numerical answer is a number or *; a multichoice blank (the MULTIRESPONSE
    family is multichoice too) has two non-empty answers, any other blank one; and each blank has an
    answer worth 100% (a MULTIRESPONSE blank, one worth more than 0%)."""
    if not blanks:
        return ["questionsmissing"]
    errors = []
    for number, blank in enumerate(blanks, 1):
        given = [o for o in blank.options if o.answer.strip()]
        numerical = blank.kind in ("NUMERICAL", "NM")
        errors += [
            f"sub_{number}: answermustbenumberorstar"
            for o in given
            if numerical and o.value is None and o.answer.strip() != "*"
        ]
        multichoice = blank.kind.startswith(("MULTICHOICE", "MC", "MULTIRESPONSE", "MR"))
        if len(given) < (2 if multichoice else 1):
            errors.append(f"sub_{number}: notenoughanswers")
        if not any(o.fraction == 1 or (not blank.single and o.fraction > 0) for o in given):
            errors.append(f"sub_{number}: fractionsnomax")
    return errors


QTI = "{http://www.imsglobal.org/xsd/ims_qtiasiv1p2}"


def _holds(condition: ET.Element, responses: dict[str, object]) -> bool:
    """One QTI 1.2 condition (conditionvar's children are ANDed) over the responses given."""
    tag = condition.tag.removeprefix(QTI)
    if tag in ("conditionvar", "and"):
        return all(_holds(child, responses) for child in condition)
    if tag == "or":
        return any(_holds(child, responses) for child in condition)
    if tag == "not":
        return not all(_holds(child, responses) for child in condition)
    if tag == "other":
        return True
    given = responses.get(condition.get("respident") or "")
    if tag == "varequal":
        return condition.text in (given if isinstance(given, (set, frozenset)) else {given})
    number = float(given) if isinstance(given, (int, float, str)) and given != "" else None  # type: ignore[arg-type]
    if number is None:
        return False
    bound = float(condition.text or "")
    return {
        "vargte": number >= bound,
        "varlte": number <= bound,
        "vargt": number > bound,
        "varlt": number < bound,
    }[tag]


def process(item: ET.Element, responses: dict[str, object]) -> tuple[float, list[str]]:
    """QTI 1.2 response processing of `item`: the SCORE and the feedback idents displayed."""
    score, shown = 0.0, []
    for condition in item.iterfind(f"{QTI}resprocessing/{QTI}respcondition"):
        if not _holds(condition.find(f"{QTI}conditionvar"), responses):  # type: ignore[arg-type]
            continue
        for setvar in condition.iterfind(f"{QTI}setvar"):
            amount = float(setvar.text or "0")
            score = score + amount if setvar.get("action") == "Add" else amount
        shown += [d.get("linkrefid") or "" for d in condition.iterfind(f"{QTI}displayfeedback")]
        if condition.get("continue") == "No":
            break
    return score, shown
