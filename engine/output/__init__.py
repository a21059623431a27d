"""Problem sets as Markdown, JSON, HTML and PDF, and question pools for Moodle and Canvas (QTI).

Markdown and JSON stream straight from `Problem`s; HTML and PDF render one document model
(`document`, `sections`), so the two printed formats cannot drift apart. Versions are parallel
forms (`ParallelSet`); students see opaque problem codes and only keys map them to variants.
"""

from perfdrill.engine.output.codes import find_problem, problem_code
from perfdrill.engine.output.document import PrintOptions, document_head, running_title
from perfdrill.engine.output.html import render_html
from perfdrill.engine.output.lms import Pool
from perfdrill.engine.output.markdown import (
    ANSWER_MODES,
    ExplanationLine,
    answers_markdown,
    explanation_lines,
    explanation_markdown,
    json_items,
    problem_json,
    write_json,
    write_markdown_version,
)
from perfdrill.engine.output.pdf import render_pdf, unprintable
from perfdrill.engine.output.sections import Section, combined_sections, key_section, problems_section
from perfdrill.engine.output.spec_facts import SpecRow, SpecTable, spec_tables
from perfdrill.engine.output.versions import ParallelSet, Slot, version_label, version_letter
from perfdrill.engine.resources import atomic_output

__all__ = [
    "ANSWER_MODES",
    "ExplanationLine",
    "ParallelSet",
    "Pool",
    "PrintOptions",
    "Section",
    "Slot",
    "SpecRow",
    "SpecTable",
    "answers_markdown",
    "atomic_output",
    "combined_sections",
    "document_head",
    "explanation_lines",
    "explanation_markdown",
    "find_problem",
    "json_items",
    "key_section",
    "problem_code",
    "problem_json",
    "problems_section",
    "render_html",
    "render_pdf",
    "running_title",
    "spec_tables",
    "unprintable",
    "version_label",
    "version_letter",
    "write_json",
    "write_markdown_version",
]
