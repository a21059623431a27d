"""The committed formula modules are exactly what codegen.py writes from today's sympy formulas."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from perfdrill.engine.model import codegen

GENERATED = Path(codegen.__file__).resolve().parent


@pytest.mark.parametrize("vector", [False, True], ids=["scalar", "numpy"])
def test_generated_module_is_current(vector: bool) -> None:
    written = (GENERATED / codegen.GENERATED[vector]).read_text(encoding="utf-8")
    assert written == codegen.generate_source(vector), (
        "stale: run `python -m perfdrill.engine.model.codegen` and commit the result"
    )


def test_generated_display_module_is_current() -> None:
    """The formula trees explanations show are written from today's formulas too."""
    written = (GENERATED / codegen.DISPLAY).read_text(encoding="utf-8")
    assert written == codegen.generate_display_source(), (
        "stale: run `python -m perfdrill.engine.model.codegen` and commit the result"
    )


def test_generation_does_not_depend_on_hash_seed() -> None:
    """Interpreters with different string hashing write the same text, so the check is stable."""
    code = (
        "import hashlib; from perfdrill.engine.model import codegen; "
        "print(hashlib.sha256(codegen.generate_source(False).encode()).hexdigest())"
    )
    digests = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
            check=True,
        ).stdout
        for seed in ("1", "2")
    }
    assert len(digests) == 1
