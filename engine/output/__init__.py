"""Problem sets as Markdown, JSON, HTML and PDF, with plots and spec tables.

Markdown and JSON come straight from `Problem`s; HTML and PDF render one document model
(`set_document`), so the two printed formats cannot drift apart.
"""

from perfdrill.engine.output.document import PrintOptions, set_document, version_label
from perfdrill.engine.output.html import render_html
from perfdrill.engine.output.markdown import (
    ANSWER_MODES,
    answers_markdown,
    explanation_markdown,
    problem_json,
    set_markdown,
)
from perfdrill.engine.output.pdf import render_pdf
from perfdrill.engine.output.spec_facts import SpecRow, SpecTable, spec_tables

__all__ = [
    "ANSWER_MODES",
    "PrintOptions",
    "SpecRow",
    "SpecTable",
    "answers_markdown",
    "explanation_markdown",
    "problem_json",
    "render_html",
    "render_pdf",
    "set_document",
    "set_markdown",
    "spec_tables",
    "version_label",
]
