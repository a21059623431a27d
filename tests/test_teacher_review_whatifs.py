"""What-ifs, labels and wording a blind teacher review rejected (issue 21, task F3): each pinned at
the reviewed seed, the expected lines written by hand from what the prompt shows."""

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


def test_a_verdict_step_is_labelled_by_its_comparison_not_a_verdict() -> None:
    """speculative/draft-length (d), seed 75845 (teacher set 4, P218) printed "Speculation pays:
    speed-up 0.89 ≤ 1, so speculation does not pay". 1.21 ÷ (0.36 + 1) = 0.89 ≤ 1: it does not pay."""
    lines = _lines("speculative/draft-length", 75845)
    assert (
        "- **(d)** Speculation against plain decoding: speed-up 0.89 ≤ 1, so speculation does not pay"
        in lines
    )
    assert not any("Speculation pays:" in line for line in lines)


def test_the_ring_term_step_names_the_comparison() -> None:
    """parallelism/alpha-beta (b), seed 107795 (set 2, P91) printed "Latency bound: …, so
    bandwidth-bound". 2 × 8 µs × (8 − 1) = 112 µs of latency against a 781 µs bandwidth term."""
    lines = _lines("parallelism/alpha-beta", 107795)
    assert (
        "- **(b)** Larger term: all-reduce time 781 µs > 2 × link latency × (GPUs taking part − 1)"
        " = 112 µs, so bandwidth-bound" in lines
    )
    assert not any("Latency bound:" in line for line in lines)


def test_the_fit_step_names_the_comparison() -> None:
    """The same fault waits in "Fits: …, so it does not fit". performance_model/fits-sweep seed 1:
    19.9 GB against 96 GB, which fits."""
    lines = _lines("performance_model/fits-sweep", 1)
    assert any(
        line.endswith("Memory check at batch 1: memory needed 19.9 GB ≤ system memory 96 GB, so it fits")
        for line in lines
    )
    assert not any("Fits" in line for line in lines)
