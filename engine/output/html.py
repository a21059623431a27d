"""Problem sets as one standalone HTML file: inline CSS and SVG plots, no scripts, no CDN.

The page is rendered by Jinja2 with autoescaping on, so every string from a template or a spec
reaches the page as text. It is written as it is rendered, one problem at a time.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any, BinaryIO

import jinja2

from perfdrill.engine.output.mathml import mathml
from perfdrill.engine.output.sections import Section

_FOLDER = Path(__file__).resolve().parent / "templates"


@cache
def _template() -> jinja2.Template:
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(_FOLDER), autoescape=True, undefined=jinja2.StrictUndefined
    )
    environment.filters["mathml"] = mathml
    return environment.get_template("set.html.j2")


def render_html(head: dict[str, Any], sections: Iterable[Section], out: BinaryIO) -> None:
    """Write the page for `sections` to `out` as it renders: memory stays flat for any set."""
    for text in _template().generate(head=head, sections=sections):
        out.write(text.encode())
    out.write(b"\n")
