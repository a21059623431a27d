"""The question bank: built-in templates, the user's own folder and any `--questions DIR`."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from perfdrill.engine.errors import TemplateError, UsageError
from perfdrill.engine.problems.templates import DIFFICULTIES, FAMILIES, QUESTION_FILE, Template, load_template
from perfdrill.engine.resources import data_dir, user_data_dir


def template_folders(root: Path) -> list[Path]:
    """Folders under `root` (or `root` itself) that hold a question.yaml, in a stable order."""
    if (root / QUESTION_FILE).is_file():
        return [root]
    # "*", not the name itself: a literal name is only matched when it exists, hiding a broken link
    return sorted(path.parent for path in root.rglob("*") if path.name == QUESTION_FILE)


@dataclass(frozen=True)
class Bank:
    templates: dict[str, Template]

    def get(self, template_id: str) -> Template:
        if template_id not in self.templates:
            near = difflib.get_close_matches(template_id, list(self.templates), n=3)
            hint = f"; did you mean {', '.join(near[:3])}?" if near else "; see `perfdrill list`"
            raise UsageError(f"unknown question {template_id!r}{hint}")
        return self.templates[template_id]

    def select(self, families: Sequence[str] = (), difficulty: str | None = None) -> list[Template]:
        for family in families:
            if family not in FAMILIES:
                raise UsageError(f"unknown family {family!r}; families: {', '.join(FAMILIES)}")
        if difficulty is not None and difficulty not in DIFFICULTIES:
            raise UsageError(f"unknown difficulty {difficulty!r}; allowed: {', '.join(DIFFICULTIES)}")
        chosen = [
            t
            for t in self.templates.values()
            if (not families or t.family in families) and (difficulty is None or t.difficulty == difficulty)
        ]
        if not chosen:
            raise UsageError("no question matches those filters")
        return chosen


def builtin_root() -> Path:
    return data_dir("questions")


def load_folders(folders: Iterable[Path], root: Path) -> list[Template]:
    display = root.parent if root.is_dir() else None
    return [load_template(folder, display_root=display) for folder in folders]


def _build(extra: tuple[Path, ...]) -> Bank:
    templates: dict[str, Template] = {}
    builtin = builtin_root()
    for template in load_folders(template_folders(builtin), builtin):
        templates[template.id] = template
    builtin_ids = set(templates)
    for root in [user_data_dir() / "questions", *extra]:
        if not root.is_dir():
            continue
        for template in load_folders(template_folders(root), root):
            if template.id in templates and not (template.id in builtin_ids and template.override):
                first = templates[template.id].file
                reason = (
                    "set `override: true` to replace a built-in"
                    if template.id in builtin_ids
                    else "ids must be unique"
                )
                raise TemplateError(
                    f"id {template.id!r} is already defined in {first}; {reason}",
                    file=template.file,
                    field="id",
                )
            templates[template.id] = template
    return Bank(dict(sorted(templates.items())))


def load_bank(extra: Iterable[Path] = ()) -> Bank:
    """Every template, validated; a user template may replace a built-in only with `override: true`."""
    folders = tuple(extra)
    for folder in folders:
        if not folder.is_dir():
            raise UsageError(f"--questions {folder}: not a folder")
    return _build(folders)
