"""perfdrill's headless core. It never imports Textual, Rich, the app or the command line.

The sub-packages follow the data's path, each with a small public API in its `__init__`:

- `model`: units, chip and model specs, the sympy formulas, their evaluation and worked steps;
- `problems`: templates, variants, generation, answers, grading, mistakes and the bank's check;
- `output`: Markdown, JSON, HTML and PDF sets, with plots and spec tables;
- `practice`: what a session asks, the running session, and the saved progress.

Shared by all of them: `errors` (one error family), `resources` (shipped and user folders, atomic
writes), `yamlio` (bounded, located YAML reading), `schema` (decoding it into declared msgspec
Structs, with located errors) and `cache` (the one JSON cache).
"""

from perfdrill.engine.errors import (
    AnswerFormatError,
    PerfdrillError,
    SpecError,
    TemplateError,
    UnitError,
    UsageError,
)
from perfdrill.engine.resources import user_data_dir, write_atomically

__all__ = [
    "AnswerFormatError",
    "PerfdrillError",
    "SpecError",
    "TemplateError",
    "UnitError",
    "UsageError",
    "user_data_dir",
    "write_atomically",
]
