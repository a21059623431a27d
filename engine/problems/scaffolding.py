"""`perfdrill new FAMILY/SLUG`: a working template to edit, which passes `perfdrill check` as written.

A family that is not built in is declared too (`FAMILY/family.yaml`, a title and a description to
edit), so a course's own topics join the bank like the built-in ones.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from perfdrill.engine.errors import UsageError
from perfdrill.engine.problems.bank import builtin_root, load_folders, template_folders
from perfdrill.engine.problems.families import FAMILY_FILE
from perfdrill.engine.problems.question_file import FAMILIES, FAMILY_PATTERN, FAMILY_RULE, is_question_id
from perfdrill.engine.problems.templates import PROMPT_FILE, QUESTION_FILE

_SCAFFOLD = Path(__file__).resolve().parent / "scaffold_files"


@dataclass(frozen=True)
class Scaffolded:
    folder: Path  # the new template's folder
    family_file: Path | None  # the family declared for it, when the family was new
    near: tuple[str, ...] = ()  # built-in families whose names are close to a new family's


def scaffold(question_id: str, root: Path) -> Scaffolded:
    """Write `root/FAMILY/SLUG/` with a question.yaml and a prompt (and `root/FAMILY/family.yaml`
    for a family that is neither built in nor declared yet); never overwrites anything."""
    family, _, slug = question_id.partition("/")
    if not re.fullmatch(FAMILY_PATTERN, family):
        raise UsageError(f"{question_id!r}: the family before '/' must be {FAMILY_RULE}")
    if not is_question_id(question_id):  # the rule template loading applies
        raise UsageError(
            f"{question_id!r}: the slug after the family must be lowercase words or digits joined by '-'"
        )
    builtin = builtin_root()
    if any(t.id == question_id for t in load_folders(template_folders(builtin), builtin)):
        raise UsageError(
            f"{question_id!r} is a built-in question; pick another slug (to replace the built-in one, "
            "copy its folder and set `override: true`)"
        )
    folder = root / family / slug
    if folder.exists():
        raise UsageError(f"{folder} already exists; pick another slug or edit that template")
    family_file = root / family / FAMILY_FILE
    new_family = family not in FAMILIES and not family_file.exists()
    folder.mkdir(parents=True)
    question = (_SCAFFOLD / QUESTION_FILE).read_text(encoding="utf-8")
    (folder / QUESTION_FILE).write_text(question.format(id=question_id, family=family), encoding="utf-8")
    (folder / PROMPT_FILE).write_text((_SCAFFOLD / PROMPT_FILE).read_text(encoding="utf-8"), encoding="utf-8")
    if not new_family:
        return Scaffolded(folder, None)
    declaration = (_SCAFFOLD / FAMILY_FILE).read_text(encoding="utf-8")
    title = family.replace("_", " ").capitalize()
    family_file.write_text(declaration.format(family=family, title=title), encoding="utf-8")
    return Scaffolded(folder, family_file, tuple(difflib.get_close_matches(family, FAMILIES, n=2)))
