"""What the second blind teacher review (wave 4, 267 keys) still rejected, each pinned at a seed
with the figures worked by hand here."""

from __future__ import annotations

import re

from perfdrill.engine.model import load_specs
from perfdrill.engine.problems.bank import load_bank
from perfdrill.engine.problems.generation import generate
from perfdrill.engine.problems.roofline_view import roofline_view
from tests.helpers import key_lines

BANK, SPECS = load_bank([]), load_specs([])


def test_back_to_the_question_works_what_it_never_showed() -> None:
    """prefill-quadratic printed "compute time falls from 1.88 s to 421 ms": the question's own
    prefill time appeared only as a move. Seed 1: 917 TFLOP ÷ 2.18 PFLOP/s = 420.6 ms = 421 ms."""
    lines = key_lines("attention_memory/prefill-quadratic", 1)
    back = lines[lines.index("*Back to the question's own values:*") :]
    assert "- compute time = FLOPs per prompt ÷ system FLOP/s = 917 TFLOP ÷ 2.18 PFLOP/s = 421 ms" in back
    assert not any("falls from" in line for line in back)


def test_a_yes_no_a_step_settled_is_read_as_its_case() -> None:
    """l2-resident-weights printed "1.18 MB × (1 − 1)". Seed 3 keeps the weights in L2, so a repeat
    call moves only activations: 2 B × (64 × 768 + 64 × 768) = 196,608 B = 0.197 MB."""
    lines = key_lines("kernels/l2-resident-weights", 3)
    assert (
        "- **(c)** repeat device-memory bytes = bytes per activation × (m × k + m × n)"
        " = 2 B × (64 × 768 + 64 × 768) = **0.197 MB**"
    ) in lines
    assert not any("(1 − 1)" in line or "(1 − 0)" in line for line in lines)


def test_a_what_if_worked_first_is_a_case_of_its_own() -> None:
    """batching-gain opened with "With one request on its own instead of a batch of 128" before any
    batch was shown; the question asks (a) for the lone request itself."""
    lines = key_lines("performance_model/batching-gain", 1)
    assert lines[2] == "*With one request on its own:*"


def test_a_spec_the_prompt_quotes_to_more_figures_keeps_them() -> None:
    """prefix-caching listed "peak FLOP/s = 1.307 PFLOP/s" where the prompt gives an MI300X's
    1.3074 PFLOP/s. roofline/attainable seed 6 draws an MI300X."""
    givens = next(line for line in key_lines("roofline/attainable", 6) if line.startswith("Given:"))
    assert "peak FLOP/s = 1.3074 PFLOP/s" in givens


def test_a_what_if_s_way_back_keeps_the_figures_the_prompt_quotes() -> None:
    """faster-chip's second what-if went back to "the question's own peak FLOP/s (1.307 PFLOP/s)"
    where the prompt and the steps above give an MI300X's 1.3074 PFLOP/s (a teacher reviewer,
    third round). Seed 30 draws an MI300X."""
    line = next(x for x in key_lines("roofline/faster-chip", 30) if "question's own" in x)
    assert "peak FLOP/s (1.3074 PFLOP/s)" in line


def test_a_scaled_roof_keeps_the_question_s_dtype() -> None:
    """faster-chip's legend named "a chip with twice the FLOP/s" int8, because an H100's doubled
    bf16 peak (2 × 989 = 1,978 TFLOP/s) is near its int8 peak (1,979 TOPS). Seed 5: an H100."""
    view = roofline_view(generate(BANK.get("roofline/faster-chip"), 5, SPECS).variant)
    assert view is not None
    labels = [roof.label for roof in view.roofs]
    assert labels and all(", bf16" in label and "int8" not in label for label in labels), labels


def test_a_floor_of_a_count_is_exact_from_its_printed_figures() -> None:
    """chunked-prefill printed ⌊(8.28 ms − 370 µs) ÷ 11.5 µs⌋ = 690, which gives 687 as printed.
    Every variant's floor step, recomputed from its printed figures, gives its printed count."""
    units = {"ms": 1e-3, "µs": 1e-6, "ns": 1e-9, "s": 1.0}
    figure = r"([\d,.]+) (ms|µs|ns|s)"
    checked = 0
    for seed in range(1, 13):
        for line in key_lines("serving/chunked-prefill", seed):
            found = re.search(rf"= ⌊\({figure} − {figure}\) ÷ {figure}⌋ = \*\*([\d,]+) tokens\*\*", line)
            if found:
                a, b, c = (float(found[i].replace(",", "")) * units[found[i + 1]] for i in (1, 3, 5))
                assert int((a - b) / c) == int(found[7].replace(",", "")), line
                checked += 1
    assert checked >= 6


def test_one_sequence_is_not_a_batch() -> None:
    """measured-rounds printed "for each of the 1 sequence of the batch" and "(the whole batch)"
    rows for a batch of one."""
    for seed in range(40):
        problem = generate(BANK.get("speculative/measured-rounds"), seed, SPECS)
        if problem.variant.params["batch"] == 1:
            assert "each of the **1" not in problem.prompt and "whole batch" not in problem.prompt
            assert "for the **one sequence** it serves" in problem.prompt
            return
    raise AssertionError("no variant with one sequence in 40 seeds")


def test_decode_mfu_insight_follows_the_verdict() -> None:
    """decode-mfu's closing said "a low MFU in decode is the batch's doing" beside a server at a
    third of its roofline whose kernels must be profiled first."""
    for seed in range(12):
        problem = generate(BANK.get("serving/decode-mfu"), seed, SPECS)
        text = " ".join(key_lines("serving/decode-mfu", seed))
        far = problem.parts[-1].correct[0].startswith("far")
        assert ("the kernels lose time before the batch does" in text) == far, seed


def test_prefill_leaves_room_beside_the_batch() -> None:
    """chunked-prefill ran 188.3 GB of weights and cache on 8 × L4 (192 GB): no room for the
    runtime. Drawn set-ups keep a tenth of the memory free."""
    for seed in range(60):
        v = generate(BANK.get("serving/chunked-prefill"), seed, SPECS).variant
        used = v.lookup("memory_required", None) + v.lookup("prompt", None) * v.lookup(
            "kv_bytes_per_token", None
        )
        assert used <= 0.9 * v.lookup("system_memory", None), seed


def test_a_speed_up_below_one_is_said_to_be_a_slowdown() -> None:
    """measured-rounds answered "0.687" times faster and never said the server got slower."""
    seen = set()
    for seed in range(1, 13):
        problem = generate(BANK.get("speculative/measured-rounds"), seed, SPECS)
        slower = problem.part("speedup").value < 1
        seen.add(slower)
        assert ("is a slowdown" in " ".join(key_lines("speculative/measured-rounds", seed))) == slower, seed
    assert seen == {True, False}
