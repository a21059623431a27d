"""Writing small templates into a temporary folder, for tests that need fixed, hand-checkable values."""

from __future__ import annotations

import textwrap
from pathlib import Path


def write_template(root: Path, template_id: str, question: str, prompt: str = "A question.\n") -> Path:
    folder = root / template_id
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "question.yaml").write_text(textwrap.dedent(question).lstrip(), encoding="utf-8")
    (folder / "prompt.md.j2").write_text(textwrap.dedent(prompt), encoding="utf-8")
    return folder
