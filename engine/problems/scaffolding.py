"""`perfdrill new FAMILY/SLUG`: a working template to edit, which passes `perfdrill check` as written."""

from __future__ import annotations

from pathlib import Path

from perfdrill.engine.errors import UsageError
from perfdrill.engine.problems.question_file import is_question_id
from perfdrill.engine.problems.templates import FAMILIES, PROMPT_FILE, QUESTION_FILE

_SCAFFOLD = Path(__file__).resolve().parent / "scaffold_files"


def scaffold(question_id: str, root: Path) -> Path:
    """Write `root/FAMILY/SLUG/` with a question.yaml and a prompt; never overwrites anything."""
    family, _, slug = question_id.partition("/")
    if family not in FAMILIES:
        raise UsageError(f"unknown family {family!r} in {question_id!r}; families: {', '.join(FAMILIES)}")
    if not is_question_id(question_id):  # the rule template loading applies
        raise UsageError(
            f"{question_id!r}: the slug after the family must be lowercase words or digits joined by '-'"
        )
    folder = root / family / slug
    if folder.exists():
        raise UsageError(f"{folder} already exists; pick another slug or edit that template")
    folder.mkdir(parents=True)
    question = (_SCAFFOLD / QUESTION_FILE).read_text(encoding="utf-8")
    (folder / QUESTION_FILE).write_text(question.format(id=question_id, family=family), encoding="utf-8")
    (folder / PROMPT_FILE).write_text((_SCAFFOLD / PROMPT_FILE).read_text(encoding="utf-8"), encoding="utf-8")
    return folder
