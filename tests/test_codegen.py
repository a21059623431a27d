"""The committed formula modules are exactly what codegen.py writes from today's sympy formulas."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from perfdrill.engine.model import codegen, generated_display, spoken
from perfdrill.engine.model.inefficiencies import FLAWS

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


def test_value_words_have_one_home_beside_the_what_if_words() -> None:
    """generated_display.py imports the words, sympy-free, from spoken.py rather than copying them."""
    assert generated_display.VALUE_WORDS is spoken.VALUE_WORDS
    # Six flaws (inefficiencies.FLAWS: none, fp32, host copy, Python loop, eager chain, no KV
    # cache), and the three paths formulas.py gives transfer_link: chip-to-chip, PCIe, network.
    assert set(spoken.VALUE_WORDS["flaw"]) == set(FLAWS.values()) == {1, 2, 3, 4, 5, 6}
    assert set(spoken.VALUE_WORDS["transfer_link"]) == set(spoken.SETTING_WORDS["transfer_link"]) == {1, 2, 3}
