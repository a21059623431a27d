"""Golden worked explanations: fixed (template, seed) pairs whose keys a person has read and
approved, kept as text in tests/golden/. Any change to how a key reads shows up here as a diff,
so it is made on purpose: regenerate with PERFDRILL_UPDATE_GOLDEN=1, read the new files, commit."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from perfdrill.engine.model import load_specs
from perfdrill.engine.output.markdown import answers_markdown, part_markdown
from perfdrill.engine.problems.bank import load_bank
from perfdrill.engine.problems.generation import Problem, generate

GOLDEN = Path(__file__).parent / "golden"
# Each pair shows something a key must get right (see the comment beside it).
PAIRS = [
    ("performance_model/decode-batch", 493),  # a derived value worked as a step; a comparison (was #912564)
    ("moe/active-params", 86030),  # an MoE count: no dense-layer term, experts per token
    ("roofline/faster-chip", 252389),  # what-ifs as differences; ratio answers
    ("quantization/weight-only-decode", 4150),  # a scenario worked first; a whole batch (was #858871)
    ("kv_cache/mha-vs-gqa", 622608),  # a what-if that overrides a computed quantity
    ("runtime_check/timed-matmul", 540448),  # a verdict and the code's flaw in words
    ("overhead/kernel-chain", 0),  # a regime decided by two maxima
    ("performance_model/optimal-batch", 582652),  # a case chosen by a negative margin
    ("training/time-6nd", 62286),  # a power of ten and a time in days
    ("kv_cache/bytes-per-token", 0),  # a part asked in KiB, answered and worked in KiB
    ("parallelism/all-reduce-link", 495730),  # two links moving together in a what-if
    ("kv_cache/max-batch", 0),  # an expression answer placed where its quantities are known
]


def golden_text(problem: Problem) -> str:
    """The problem as a student reads it, then its key: what a reviewer reads in a golden file."""
    parts = "\n\n".join(part_markdown(index, part) for index, part in enumerate(problem.parts))
    return (
        f"# {problem.template.title} ({problem.id}, seed {problem.seed})\n\n{problem.prompt}\n\n{parts}\n\n"
        f"---\n\n{answers_markdown(problem)}\n"
    )


@pytest.mark.parametrize(("template_id", "seed"), PAIRS, ids=[f"{t}#{s}" for t, s in PAIRS])
def test_the_key_reads_as_approved(template_id: str, seed: int) -> None:
    problem = generate(load_bank([]).get(template_id), seed, load_specs([]))
    path = GOLDEN / f"{template_id.replace('/', '__')}__{seed}.txt"
    text = golden_text(problem)
    if os.environ.get("PERFDRILL_UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == text, f"{path.name} changed: read it, then update it"
