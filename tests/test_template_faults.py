"""Template-level faults a blind teacher review found in worked solutions (issue 21, task B):
each pinned at one seed, with the numbers worked by hand in the test from what the prompt shows."""

from __future__ import annotations

from perfdrill.engine.model import load_specs
from perfdrill.engine.output.markdown import explanation_markdown
from perfdrill.engine.problems.bank import load_bank
from perfdrill.engine.problems.generation import Problem, generate

BANK, SPECS = load_bank([]), load_specs([])
NBSP = "\u00a0"


def _lines(template_id: str, seed: int) -> list[str]:
    """The worked solution as the key prints it (Markdown), line by line."""
    problem: Problem = generate(BANK.get(template_id), seed, SPECS)
    return explanation_markdown(problem).replace(NBSP, " ").replace("\\", "").splitlines()


def _index(lines: list[str], start: str) -> int:
    """The line that works a part: "- **(a)** …"."""
    return next(i for i, line in enumerate(lines) if line.startswith(start))


def test_moe_critical_batch_works_the_dense_batch_first() -> None:
    """moe/critical-batch worked (b) before (a). Seed 1, an A100: 312 TFLOP/s ÷ 1.555 TB/s =
    200.6 FLOP/B; (a) a dense model at 1 B per weight: 200.6 × 1 ÷ 2 = 100.3 → 100;
    (b) 32 experts, top-1: 200.6 × 1 × 32 ÷ (2 × 1) = 3,210."""
    lines = _lines("moe/critical-batch", 1)
    a, b = _index(lines, "- **(a)**"), _index(lines, "- **(b)**")
    assert a < b
    assert lines[a].endswith("= 201 FLOP/B × 1 B/param ÷ 2 = **100**")
    assert lines[b].endswith("**3,210**")
