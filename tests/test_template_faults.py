"""Template-level faults a blind teacher review found in worked solutions (issue 21, task B):
each pinned at one seed, with the numbers worked by hand in the test from what the prompt shows."""

from __future__ import annotations

from perfdrill.engine.model import load_specs
from perfdrill.engine.problems.bank import load_bank
from tests.helpers import key_lines as _lines

BANK, SPECS = load_bank([]), load_specs([])
NBSP = "\u00a0"


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
    assert "- link bandwidth = datasheet link bandwidth × efficiency = 448 GB/s × 90 % = 403.2 GB/s" in lines
    per_peer = "- link bandwidth per peer = datasheet link bandwidth per peer × efficiency"
    assert f"{per_peer} = 64 GB/s × 90 % = 57.6 GB/s" in lines
    assert not any(line.startswith("Given:") and "link bandwidth" in line for line in lines)


def test_hierarchical_all_reduce_works_its_nic_bandwidth() -> None:
    """parallelism/hierarchical-all-reduce (a) appeared only as a given. Seed 1: a 400 Gb/s NIC
    is 400 ÷ 8 = 50 GB/s, of which the fabric delivers 95%: 50 × 0.95 = 47.5 GB/s, worked from the
    400 Gb/s the prompt quotes."""
    lines = _lines("parallelism/hierarchical-all-reduce", 1)
    assert (
        "- **(a)** network bandwidth = datasheet network bandwidth × fabric share"
        " = 400 Gb/s ÷ 8 × 95 % = **47.5 GB/s**" in lines
    )
    assert not any(line.startswith("Given:") and "network bandwidth" in line for line in lines)


def test_a_percent_is_compared_with_a_percent() -> None:
    """training/mfu-claim compared "97.7 % ≥ 0.3". Seed 1: 383 PFLOP ÷ 6.15 s = 62.3 PFLOP/s over
    256 × 459 TFLOP/s = 117.5 PFLOP/s is 53%, between the rule's 30% and 60%."""
    verdict = _lines("training/mfu-claim", 1)[-1]
    assert verdict.endswith(
        "achieved MFU 53 % ≥ 30 %, achieved MFU 53 % ≤ 60 %, so **typical of large published runs**"
    )


def _part_letters(lines: list[str]) -> list[str]:
    return [line[len("- **(") : line.index(")**")] for line in lines if line.startswith("- **(")]


def test_group_scales_work_bits_before_bytes_per_weight() -> None:
    """quantization/group-scales showed "bytes per weight = quantized bytes per param" before (a).
    Seed 1: 3-bit weights with an fp16 scale and a 4-bit zero point per 32 (16 + 4 = 20 bits, worked
    since the second teacher review rejected "scale bits = 20" as an unworked given): 20 ÷ 32 + 3 =
    3.625 bits, 3.625 ÷ 8 = 0.4531 B per weight; scales alone 72.7e9 × 20 ÷ (8 × 32) = 5.68 GB."""
    lines = _lines("quantization/group-scales", 1)
    steps = [line for line in lines if line.startswith("- ")]
    assert steps.pop(0) == "- bits stored per group = 16 + zero-point bits = 16 + 4 = 20"
    assert steps[0] == (
        "- **(a)** quantized bits per value = bits stored per group ÷ group size + quant bits"
        " = 20 ÷ 32 + 3 = **3.625**"
    )
    assert steps[1].endswith("= 72.7B params × 20 ÷ (8 × 32) = **5.68 GB**")
    assert steps[2] == "- bytes per weight = quantized bits per value ÷ 8 = 3.625 ÷ 8 = 0.4531 B/param"
    assert steps[3].startswith("- **(c)** weight bytes = params × bytes per weight")
    assert _part_letters(lines) == ["a", "b", "c", "d"]


def test_fp4_works_its_parts_in_order_from_the_bits() -> None:
    """quantization/fp4-blackwell seed 1 draws MXFP4: 4 bits plus an 8-bit (E8M0) scale per 32,
    8 ÷ 32 + 4 = 4.25 bits, 4.25 ÷ 8 = 0.53125, 0.5313 B per weight to four figures (a half rounds
    away from zero), shown after (a), never before it."""
    lines = _lines("quantization/fp4-blackwell", 1)
    steps = [line for line in lines if line.startswith("- ")]
    assert (
        steps[0] == "- **(a)** quantized bits per value = bits stored per group ÷ group size + quant bits"
        " = 8 ÷ 32 + 4 = **4.25**"
    )
    assert steps[1] == "- bytes per weight = quantized bits per value ÷ 8 = 4.25 ÷ 8 = 0.5313 B/param"
    assert _part_letters(lines) == ["a", "b", "c", "d", "e", "f"]


def test_chip_choice_says_which_chip_wins_and_keeps_the_fleets() -> None:
    """serving/chip-choice never said which chip wins, and its what-if dropped to 1 chip without
    saying so. Seed 7 (seed 1's 75.4 GB on an 80 GB chip is no longer drawn: a tenth of memory
    stays free), Mistral 7B at batch 64 and 4,096 tokens: 14.48 GB of weights + 64 × 131,072 B ×
    4,096 = 34.36 GB of cache = 48.8 GB on one chip of either kind. An A100 80GB steps in 48.8 GB ÷
    2.039 TB/s = 23.9 ms, 64 ÷ 23.9 ms = 2,670 tokens/s, 3.431 USD/h ÷ (3,600 × 2,670) × 10⁶ =
    0.357 USD; an H100 in 48.8 ÷ 3.35 = 14.6 ms, 4,390 tokens/s, 6.88 ÷ (3,600 × 4,390) × 10⁶ =
    0.435 USD: the A100 wins."""
    lines = _lines("serving/chip-choice", 7)
    assert "The NVIDIA A100 SXM4 80GB wins: 0.357 USD per million output tokens against 0.435 USD" in lines[0]
    assert "*With chips = 1 (the fleet chips):*" in lines
    assert "*With the other chip NVIDIA H100 SXM5 80GB and chips = 1 (the other fleet chips):*" in lines
    assert _part_letters(lines) == ["a", "b", "c", "d", "e", "f"]


def test_a_second_what_if_is_said_against_the_question_s_own_values() -> None:
    """roofline/faster-chip (b) started from (a)'s what-if ("compute time doubles from 195 µs").
    Seed 1: 2 × 256 × 8,192 × 15,360 = 64.4 GFLOP ÷ 165.2 TFLOP/s = 390 µs of compute, 263.7 MB ÷
    1.008 TB/s = 262 µs of memory; twice the bandwidth halves memory to 131 µs and leaves the
    compute-bound 390 µs as it was: 390 ÷ 390 = 1."""
    lines = _lines("roofline/faster-chip", 1)
    b = lines.index(
        "*With twice the memory bandwidth (2.016 TB/s), and the question's own peak FLOP/s (165.2 TFLOP/s):*"
    )
    assert lines[b + 1 :] == [
        "",
        "- memory time halves from 262 µs to 131 µs",
        "- runtime stays at 390 µs",
        "- **(b)** runtime ÷ runtime with twice the memory bandwidth = 390 µs ÷ 390 µs = **1**",
    ]


def test_ridge_point_works_from_the_intensity_the_prompt_gives() -> None:
    """roofline/ridge-point listed "FLOPs = 59 GFLOP · bytes moved = 1 GB", which no prompt shows;
    the prompt gives the chip and the intensity only. Seed 1 (a TPU v5p, 459 TFLOP/s bf16, 2.765 TB/s):
    ridge 459 ÷ 2.765 = 166 FLOP/B; 190 FLOP/B is above it, compute-bound; the roof there is
    min(459, 2.765 × 190 = 525) = 459 TFLOP/s."""
    lines = _lines("roofline/ridge-point", 1)
    assert (
        "Given: peak FLOP/s = 459 TFLOP/s · memory bandwidth = 2.765 TB/s · arithmetic intensity = 190 FLOP/B"
        in lines
    )
    assert not any("FLOPs =" in line or "bytes moved" in line for line in lines)
    bound = "- **(b)** Bound: arithmetic intensity 190 FLOP/B ≥ ridge point 166 FLOP/B, so **compute-bound**"
    assert bound in lines
    assert lines[-1] == (
        "- **(c)** attainable FLOP/s = min(peak FLOP/s, memory bandwidth × arithmetic intensity)"
        " = min(459 TFLOP/s, 2.765 TB/s × 190 FLOP/B) = **459 TFLOP/s**"
    )


def test_a_what_if_worked_twice_reads_off_what_it_showed() -> None:
    """performance_model/batching-gain worked batch 1 in full for (a), then again for (c), each
    value "falling" anew. Seed 1: the first section is the lone request as a case of its own (a
    teacher rejected "instead of a batch of 128" before any batch was shown); the later return to
    it says only what is new: 1 ÷ 17.4 ms = 57.6 tokens/s against 128 ÷ 22.6 ms =
    5,670 tokens/s, 5,670 ÷ 57.6 = 98.4."""
    lines = _lines("performance_model/batching-gain", 1)
    assert lines[2] == "*With one request on its own:*"
    c = len(lines) - 1 - lines[::-1].index("*With one request on its own instead of a batch of 128:*")
    assert lines[c + 1 : c + 4] == [
        "",
        "- throughput falls from 5,670 tokens/s to 57.6 tokens/s",
        "- **(c)** throughput ÷ throughput with one request on its own"
        " = 5,670 tokens/s ÷ 57.6 tokens/s = **98.4**",
    ]


def test_the_1_gib_row_reads_as_1_gib() -> None:
    """parallelism/nccl-tests-table names "the 1 GiB row"; its what-if read "1.074 GB"
    (2³⁰ B = 1,073,741,824 B is 1 GiB exactly)."""
    headings = [line for line in _lines("parallelism/nccl-tests-table", 1) if line.startswith("*With")]
    assert headings[0].startswith("*With buffer per GPU = 1 GiB and measured time = ")


def test_a_swapped_model_s_size_is_not_named_as_a_template_count() -> None:
    """Naming a what-if by the count it is set from ("chips = 2 (the fleet chips)") is for counts;
    a swapped-in model is named by itself, its 7.62B params a given of its own block (by hand
    28 × 233.05M per layer + 2 × 3,584 × 152,064 embedding and head = 7.6155B; its card truncates
    7,615,616,512 to 7.61B). Task F3: never "params and active params at 7.62B params instead of…"."""
    lines = _lines("speculative/large-batch", 1)
    assert [line for line in lines if line.startswith("*With")] == ["*With the draft model Qwen2.5 7B:*"]
    assert "Given: active params = 7.62B params · layers = 28 · KV heads = 4 · params = 7.62B params" in lines


def test_an_mfu_the_prompt_gives_in_percent_stays_in_percent_in_the_steps() -> None:
    """The givens said "MFU = 55%" and the step "× 0.55". training/time-6nd seed 1: 128 × 312
    TFLOP/s × 0.55 = 21.96 PFLOP/s; 6 × 6.74e9 × 730e9 = 2.95e22 FLOP ÷ 21.96 PFLOP/s = 1.344e6 s =
    15.6 days."""
    lines = _lines("training/time-6nd", 1)
    assert "- system FLOP/s = chips × peak FLOP/s × MFU = 128 × 312 TFLOP/s × 55 % = 22 PFLOP/s" in lines
    assert lines[-1].endswith("= **15.6 days**")
