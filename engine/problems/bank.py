"""The question bank: built-in templates, the user's own folder and any `--questions DIR`.

A user's template that cannot be loaded (broken, or reusing an id) never takes the bank down: it
is left out and kept in `Bank.skipped`, for the command line and the app to report in one line
each. Only `perfdrill check` fails on it. Built-in templates are tested, so any problem there is
raised.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from perfdrill.engine.errors import PerfdrillError, TemplateError, UsageError
from perfdrill.engine.problems.families import BUILTIN_FAMILIES, Family, families_for
from perfdrill.engine.problems.template_loading import load_template
from perfdrill.engine.problems.templates import DIFFICULTIES, QUESTION_FILE, Template
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
    families: dict[str, Family] = field(default_factory=lambda: dict(BUILTIN_FAMILIES))
    builtin: frozenset[str] = frozenset()  # ids of the built-in templates in the bank
    skipped: tuple[PerfdrillError, ...] = ()  # user templates left out, each one line to report

    def get(self, template_id: str) -> Template:
        if template_id not in self.templates:
            for problem in self.skipped:  # a template of yours that did not load: say why, once
                if problem.file and "/".join(Path(problem.file).parent.parts[-2:]) == template_id:
                    raise UsageError(f"question {template_id!r} was left out: {problem.one_line()}")
            near = difflib.get_close_matches(template_id, list(self.templates), n=3)
            hint = f"; did you mean {', '.join(near[:3])}?" if near else "; see `perfdrill list`"
            raise UsageError(f"unknown question {template_id!r}{hint}")
        return self.templates[template_id]

    def only(self, questions: Sequence[str] = (), *, builtin: bool = True) -> Bank:
        """The bank cut down to the `questions` named (all when none are), without the built-in
        templates unless `builtin`."""
        chosen = [self.get(question) for question in questions] or list(self.templates.values())
        if not builtin:
            chosen = [t for t in chosen if t.id not in self.builtin]
            if not chosen:
                raise UsageError("no question of your own to use: add templates with --questions DIR")
        return replace(self, templates={t.id: t for t in chosen})

    def select(self, families: Sequence[str] = (), difficulty: str | None = None) -> list[Template]:
        for family in families:
            if family not in self.families:
                raise UsageError(f"unknown family {family!r}; families: {', '.join(self.families)}")
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


def _display_root(root: Path) -> Path | None:
    return root.parent if root.is_dir() else None


def load_folders(folders: Iterable[Path], root: Path) -> list[Template]:
    """The templates in `folders`, found under `root`; the first problem is raised."""
    display = _display_root(root)
    return [load_template(folder, display_root=display) for folder in folders]


def clash(template: Template, first: Template | None, builtin_ids: set[str]) -> TemplateError | None:
    """Why `template` may not join a bank already holding `first` under its id, or None."""
    if first is None:
        return None
    if template.id in builtin_ids and template.override:
        return None
    reason = (
        "set `override: true` to replace a built-in" if template.id in builtin_ids else "ids must be unique"
    )
    return TemplateError(
        f"id {template.id!r} is already defined in {first.file}; {reason}",
        file=template.file,
        line=template.line("id"),
        field="id",
    )


def templates_under(root: Path) -> Iterable[Template | PerfdrillError]:
    """Each template under `root`, or the error that keeps it out."""
    display = _display_root(root)
    families: dict[Path, dict[str, Family] | PerfdrillError] = {}  # one family.yaml per folder
    for folder in template_folders(root):
        try:
            if folder.parent not in families:
                try:
                    families[folder.parent] = families_for(folder, display)
                except PerfdrillError as exc:
                    families[folder.parent] = exc
            known = families[folder.parent]
            if isinstance(known, PerfdrillError):
                raise known
            yield load_template(folder, display_root=display, families=known)
        except PerfdrillError as exc:
            yield exc


def _build(extra: tuple[Path, ...]) -> Bank:
    builtin = builtin_root()
    templates = {t.id: t for t in load_folders(template_folders(builtin), builtin)}
    builtin_ids = set(templates)
    families = dict(BUILTIN_FAMILIES)
    skipped: dict[str, PerfdrillError] = {}
    for root in [user_data_dir() / "questions", *extra]:
        if not root.is_dir():
            continue
        for loaded in templates_under(root):
            problem = (
                loaded
                if isinstance(loaded, PerfdrillError)
                else clash(loaded, templates.get(loaded.id), builtin_ids)
            )
            if problem is not None:
                skipped.setdefault(problem.one_line(), problem)
                continue
            assert isinstance(loaded, Template)
            templates[loaded.id] = loaded
            builtin_ids.discard(loaded.id)  # replaced by the user's own
            if loaded.family_info is not None:
                families.setdefault(loaded.family, loaded.family_info)
    return Bank(dict(sorted(templates.items())), families, frozenset(builtin_ids), tuple(skipped.values()))


def load_bank(extra: Iterable[Path] = ()) -> Bank:
    """Every template: the built-in ones, then the user's; a user template may replace a built-in
    only with `override: true`, and one that cannot join is left out and named in `skipped`."""
    folders = tuple(extra)
    for folder in folders:
        if not folder.is_dir():
            raise UsageError(f"--questions {folder}: not a folder")
    return _build(folders)
