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


def test_an_efficiency_is_shown_where_it_enters() -> None:
    """parallelism/fsdp-collectives folded "the collectives reach 90% of that rate" into the
    givens. Seed 1 (an MI300X: 7 peers × 64 GB/s = 448 GB/s one way): 448 × 0.9 = 403.2 GB/s,
    64 × 0.9 = 57.6 GB/s, each worked as a step and never listed as a given."""
    lines = _lines("parallelism/fsdp-collectives", 1)
    assert "- link bandwidth = 448 GB/s × 90% = 403.2 GB/s" in lines
    assert "- link bandwidth per peer = 64 GB/s × 90% = 57.6 GB/s" in lines
    assert not any(line.startswith("Given:") and "link bandwidth" in line for line in lines)


def test_hierarchical_all_reduce_works_its_nic_bandwidth() -> None:
    """parallelism/hierarchical-all-reduce (a) appeared only as a given. Seed 1: a 400 Gb/s NIC
    is 400 ÷ 8 = 50 GB/s, of which the fabric delivers 95%: 50 × 0.95 = 47.5 GB/s."""
    lines = _lines("parallelism/hierarchical-all-reduce", 1)
    assert "- **(a)** network bandwidth = 50 GB/s × 95% = **47.5 GB/s**" in lines
    assert not any(line.startswith("Given:") and "network bandwidth" in line for line in lines)


def test_a_percent_is_compared_with_a_percent() -> None:
    """training/mfu-claim compared "97.7 % ≥ 0.3". Seed 1: 383 PFLOP ÷ 6.15 s = 62.3 PFLOP/s over
    256 × 459 TFLOP/s = 117.5 PFLOP/s is 53%, between the rule's 30% and 60%."""
    verdict = _lines("training/mfu-claim", 1)[-1]
    assert verdict.endswith("achieved MFU 53 % ≥ 30 %, achieved MFU 53 % ≤ 60 %, so typical of large published runs")
