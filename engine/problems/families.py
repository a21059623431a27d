"""Question families: the built-in ones, and those a template root declares for its own course.

A root declares a family with `family.yaml` in the family's folder, beside that family's template
folders (`ROOT/networking/family.yaml`, `ROOT/networking/<slug>/question.yaml`): a title and a
description. The folder's name is the family's id. A template may use a built-in family or the one
its own parent folder declares; the bank offers every family its templates use (`Bank.families`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from perfdrill.engine.errors import TemplateError
from perfdrill.engine.problems.question_file import FAMILIES, FAMILY_PATTERN, FAMILY_RULE, FamilyFile
from perfdrill.engine.safe_text import safe_text
from perfdrill.engine.schema import Where, decode
from perfdrill.engine.yamlio import check_inside, load_yaml

FAMILY_FILE = "family.yaml"


@dataclass(frozen=True)
class Family:
    id: str
    title: str
    description: str = ""
    builtin: bool = False


BUILTIN_FAMILIES = {family: Family(family, title, builtin=True) for family, title in FAMILIES.items()}


def shown_path(path: Path, display_root: Path | None) -> str:
    """`path` as messages show it: relative to the root it was found under, when there is one."""
    if display_root is None:
        return str(path)
    try:
        return str(path.relative_to(display_root))
    except ValueError:
        return str(path)


def declared_family(folder: Path, display_root: Path | None = None) -> Family | None:
    """The family `folder/family.yaml` declares, or None when the folder has no such file."""
    path = folder / FAMILY_FILE
    if not os.path.lexists(path):
        return None
    file = shown_path(path, display_root)
    check_inside(path, folder, TemplateError, display=file)
    if folder.name in FAMILIES:
        raise TemplateError(
            f"{folder.name!r} is a built-in family: its folder needs no {FAMILY_FILE}", file=file
        )
    if not re.fullmatch(FAMILY_PATTERN, folder.name):
        raise TemplateError(
            f"the folder's name {folder.name!r} is the family's id, and must be {FAMILY_RULE}", file=file
        )
    data = load_yaml(path, TemplateError, display=file)
    declared = decode(data, FamilyFile, Where(file, data, TemplateError))
    return Family(folder.name, safe_text(declared.title).strip(), safe_text(declared.description).strip())


def families_for(folder: Path, display_root: Path | None = None) -> dict[str, Family]:
    """The families a template in `folder` may use: the built-in ones and its parent's own."""
    declared = declared_family(folder.parent, display_root)
    return BUILTIN_FAMILIES | ({declared.id: declared} if declared else {})
