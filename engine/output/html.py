"""Problem sets as one standalone HTML file: inline CSS and SVG plots, no scripts, no CDN.

The page is rendered by Jinja2 with autoescaping on, so every string from a template or a spec
reaches the page as text; only perfdrill's own matplotlib SVG is inserted as markup.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import jinja2

_FOLDER = Path(__file__).resolve().parent / "templates"


@cache
def _template() -> jinja2.Template:
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(_FOLDER), autoescape=True, undefined=jinja2.StrictUndefined
    )
    return environment.get_template("set.html.j2")


def render_html(document: dict[str, Any]) -> str:
    return _template().render(doc=document) + "\n"
