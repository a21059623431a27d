"""Problem sets as PDF through the `typst` package: no TeX, no network, embedded fonts only."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

from perfdrill.engine.errors import PerfdrillError

TEMPLATE = Path(__file__).resolve().parent / "templates" / "set.typ"


def render_pdf(document: dict[str, Any]) -> bytes:
    """The set rendered to PDF. System fonts are ignored, so every machine prints the same pages."""
    import typst

    stamp = datetime.datetime.strptime(document["date"], "%Y-%m-%d").replace(tzinfo=datetime.UTC)
    try:
        return typst.compile(
            TEMPLATE,
            root=TEMPLATE.parent,
            format="pdf",
            sys_inputs={"doc": json.dumps(document, ensure_ascii=False)},
            ignore_system_fonts=True,
            timestamp=stamp,
        )
    except RuntimeError as exc:  # typst reports compile errors as RuntimeError
        raise PerfdrillError(f"typst could not lay out the set: {str(exc).splitlines()[0]}") from None
