"""What-ifs, labels and wording a blind teacher review rejected (issue 21, task F3): each pinned at
the reviewed seed, the expected lines written by hand from what the prompt shows."""

from __future__ import annotations

from perfdrill.engine.model import load_specs
from perfdrill.engine.problems.bank import load_bank
from tests.helpers import key_lines as _lines

BANK, SPECS = load_bank([]), load_specs([])
NBSP = "\u00a0"


def test_a_verdict_step_is_labelled_by_its_comparison_not_a_verdict() -> None:
    """speculative/draft-length (d), seed 75845 (teacher set 4, P218) printed "Speculation pays:
    speed-up 0.89 ≤ 1, so **speculation does not pay**". 1.21 ÷ (0.36 + 1) = 0.89 ≤ 1: it does not pay."""
    lines = _lines("speculative/draft-length", 75845)
    assert (
        "- **(d)** Speculation against plain decoding: speed-up 0.89 ≤ 1, so **speculation does not pay**"
        in lines
    )
    assert not any("Speculation pays:" in line for line in lines)


def test_the_ring_term_step_names_the_comparison() -> None:
    """parallelism/alpha-beta (b), seed 107795 (set 2, P91) printed "Latency bound: …, so
    bandwidth-bound". 2 × 8 µs × (8 − 1) = 112 µs of latency against a 781 µs bandwidth term."""
    lines = _lines("parallelism/alpha-beta", 107795)
    assert (
        "- **(b)** Larger term: all-reduce time 781 µs > 2 × link latency × (GPUs taking part − 1)"
        " = 2 × 8 µs × (8 − 1) = 112 µs, so **bandwidth-bound**" in lines
    )
    assert not any("Latency bound:" in line for line in lines)


def test_the_fit_step_names_the_comparison() -> None:
    """The same fault waits in "Fits: …, so it does not fit". performance_model/fits-sweep seed 1:
    19.9 GB against 96 GB, which fits."""
    lines = _lines("performance_model/fits-sweep", 1)
    assert any(
        line.endswith("Memory check at batch 1: memory needed 19.9 GB ≤ system memory 96 GB, so **it fits**")
        for line in lines
    )
    assert not any("Fits" in line for line in lines)


def test_the_draft_model_is_worked_as_its_own_block() -> None:
    """speculative/draft-cost, seed 579880 (set 4, P214): the draft's step was "worked" as a what-if
    on the target ("weight bytes falls from 145 GB to 15.2 GB"), headed "With the model Qwen2.5 7B
    and params and active params at 7.62B params instead of 72.7B params", and read "draft step time
    = runtime with the model … = 1.482 ms". By hand, on 2 × MI300X (10.6 TB/s), batch 4 at 2,048
    tokens: Qwen2.5 7B's KV is 28 layers × 2 × 4 heads × 128 × 2 B = 57,344 B = 57.3 kB per token,
    × 4 × 2,048 = 470 MB; weights 7.62B × 2 B = 15.2 GB; (15.24 + 0.47) GB ÷ 10.6 TB/s = 1.482 ms."""
    lines = _lines("speculative/draft-cost", 579880)
    heading = lines.index("*With the draft model Qwen2.5 7B:*")
    block = lines[heading : lines.index("*Back to the question's own values:*")]
    assert "Given: active params = 7.62B params · layers = 28 · KV heads = 4 · params = 7.62B params" in block
    assert "- weight bytes = params × bytes per weight = 7.62B params × 2 B/param = 15.2 GB" in block
    assert (
        "- KV cache per token = layers × KV elements per token per layer × bytes per KV element"
        " = 28 × 1,024 × 2 B = 57.3 kB/token" in block
    )
    assert "- memory time = bytes moved ÷ system bandwidth = 15.7 GB ÷ 10.6 TB/s = 1.48 ms" in block
    assert "- draft step time = 1.482 ms" in block
    assert not any(" falls " in line or " from " in line for line in block)
    assert not any("params and active params" in line or "runtime with" in line for line in lines)


def test_the_draft_block_keeps_one_unit_for_one_value() -> None:
    """speculative/large-batch, seed 454646 (set 4, P220) printed the draft's "memory time … 795 µs"
    then "runtime … 0.795 ms". By hand: Qwen2.5 7B at batch 1, 512 tokens on 4 × H100 (19.2 TB/s):
    15.24 GB + 28 × 2 × 4 × 128 × 2 B × 512 = 29.4 MB, 15.27 GB ÷ 19.2 TB/s = 795 µs."""
    lines = _lines("speculative/large-batch", 454646)
    heading = lines.index("*With the draft model Qwen2.5 7B:*")
    block = lines[heading : lines.index("*Back to the question's own values:*")]
    assert "- memory time = bytes moved ÷ system bandwidth = 15.27 GB ÷ 19.2 TB/s = 795 µs" in block
    step = "- plain decode step time = max(compute time, memory time) = max(3.85 µs, 795 µs) = 795 µs"
    assert step in block
    assert "- draft step time = 795.3 µs" in block
    assert not any("0.795 ms" in line for line in lines)


def test_the_dense_baseline_is_named_as_a_dense_model() -> None:
    """moe/critical-batch, seed 923082 (set 1, P69) headed the dense case "With half the experts per
    token (1) and experts at 1 instead of 16". One expert used by every token is a dense model: the
    seed draws an H200 since TPUs left fp8-weight draws, 989 TFLOP/s ÷ 4.8 TB/s = 206.0 FLOP/B,
    × 1 B/param ÷ 2 = 103."""
    lines = _lines("moe/critical-batch", 923082)
    assert "*With a dense model (one expert, used by every token):*" in lines
    assert not any("half the experts per token" in line for line in lines)
    assert any(line.endswith("= **103**") and line.startswith("- **(a)**") for line in lines)


def _opener(template_id: str, seed: int) -> str:
    return _lines(template_id, seed)[0]


def test_the_batching_sentence_follows_the_batched_step_s_regime() -> None:
    """performance_model/batching-gain, seed 146541 (set 2, P119), a TPU v5p at batch 1,024: the
    opener said "a lower-precision tensor-core path" (a TPU has MXUs) and then "while the step stays
    memory-bound" right after "Compute-bound". 459 TFLOP/s ÷ 2.765 TB/s = 166 FLOP/B, and the batched
    step's 686 FLOP/B is above it: compute-bound. Seed 1 is memory-bound and keeps the sentence."""
    opener = _opener("performance_model/batching-gain", 146541)
    assert "Compute-bound: an intensity of 686 FLOP/B is above the ridge point of 166 FLOP/B" in opener
    assert "lower-precision math on the matrix units" in opener
    assert "tensor-core" not in opener and "stays memory-bound" not in opener
    assert "until the step turns compute-bound, as this batch's has" in opener
    memory_bound = _opener("performance_model/batching-gain", 1)
    assert "Memory-bound" in memory_bound and "while the step stays memory-bound, batching" in memory_bound


def test_the_quantized_bytes_per_element_is_worked_as_a_step() -> None:
    """quantization/kv-cache-bytes, seed 871564 (set 3, P154): "bytes per KV element = 0.625 B" was
    only stated in the what-if heading, though the scales are the point of (b). By hand: int4 with a
    16-bit scale per 16 values is 4 + 16 ÷ 16 = 5 bits, ÷ 8 = 0.625 B; 32 × 2,048 × 0.625 B = 40 KiB."""
    lines = _lines("quantization/kv-cache-bytes", 871564)
    worked = "- quantized KV bytes per element = quantized bits per value ÷ 8 = 5 ÷ 8 = 0.625 B"
    assert (
        "- quantized bits per value = bits stored per group ÷ group size + quant bits = 16 ÷ 16 + 4 = 5"
    ) in lines
    assert lines.index(worked) < lines.index(
        "*With bytes per KV element = 0.625 B (the quantized KV bytes per element):*"
    )
    assert lines[-2].endswith("= 32 × 2,048 × 0.625 B = **40 KiB/token**")


def test_the_quantized_value_reads_as_its_step_showed_it() -> None:
    """kv-cache-bytes seed 213316 (set 3, P156): 4 + 16 ÷ 64 = 4.25 bits, ÷ 8 = 0.53125 B, shown
    0.531 B by its step, so the heading and (b) say 0.531 B too, not 0.5313 B:
    32 × 2,048 × 0.531 B = 34,800 B = 34 KiB."""
    lines = _lines("quantization/kv-cache-bytes", 213316)
    assert "- quantized KV bytes per element = quantized bits per value ÷ 8 = 4.25 ÷ 8 = 0.531 B" in lines
    assert "*With bytes per KV element = 0.531 B (the quantized KV bytes per element):*" in lines
    assert not any("0.5313" in line for line in lines)


def test_the_fp8_case_works_its_own_cache_and_memory_time() -> None:
    """quantization/kv-cache-batch, seed 426264 (set 3, P152): (e)'s "max(27.1 ms, 23.9 ms)" reused
    the bf16 case's memory time. The fp8 cache at batch 1,474 is worked from its own inputs, though it
    comes out the same: 1,474 × 160 KiB × 2,048 = 494.6 GB, + 145.4 GB of weights = 640 GB,
    ÷ (8 × 3.35 TB/s) = 23.9 ms."""
    lines = _lines("quantization/kv-cache-batch", 426264)
    last = max(i for i, line in enumerate(lines) if line.startswith("*With"))
    block = lines[last:]
    assert "- quantized KV bytes per element = quant bits ÷ 8 = 8 ÷ 8 = 1 B" in lines[:last]
    assert (
        "- KV cache = batch × KV cache per token × context = 1,474 × 160 KiB/token × 2,048 tokens = 495 GB"
        in block
    )
    assert "- bytes moved = KV cache + weight bytes = 495 GB + 145 GB = 640 GB" in block
    assert "- memory time = bytes moved ÷ system bandwidth = 640 GB ÷ 26.8 TB/s = 23.9 ms" in block


def test_w8a8_works_the_weight_only_case_as_the_question_s_own() -> None:
    """quantization/w8a8-compute, seed 912295 (set 3, P157): the weight-only case that (a), (c) and
    (d) ask was framed as a what-if ("With half the peak FLOP/s") and the int8 peak called "the
    question's own values". By hand, 2 × A100 (312 TFLOP/s bf16, 624 int8, 2.039 TB/s each):
    ridge 624 ÷ 4.078 = 153 FLOP/B, batch 153 × 1 B ÷ 2 = 77; int8 ridge 1,248 ÷ 4.078 = 306, 153;
    weight-only step 7.62 GB ÷ 4.078 TB/s = 1.87 ms, memory-bound, so W8A8 is no faster: 1."""
    lines = _lines("quantization/w8a8-compute", 912295)
    what_if = "*With int8 math at the int8 peak (624 TFLOP/s per chip):*"
    assert lines[2].startswith("Given: chips = 2 · peak FLOP/s = 312 TFLOP/s")
    assert lines.index(what_if) > _index(lines, "- **(a)**")
    assert lines[_index(lines, "- **(a)**")].endswith("= 153 FLOP/B × 1 B/param ÷ 2 = **77**")
    assert lines[_index(lines, "- **(b)**")].endswith("= 306 FLOP/B × 1 B/param ÷ 2 = **153**")
    assert lines[_index(lines, "- **(d)**")].endswith("= max(391 µs, 1.87 ms) = **1.87 ms**")
    assert "- **(e)** runtime ÷ runtime with int8 math = 1.87 ms ÷ 1.87 ms = **1**" in lines
    assert not any("half the peak" in line or "Given: peak FLOP/s = 624" in line for line in lines)


def _index(lines: list[str], start: str) -> int:
    return next(i for i, line in enumerate(lines) if line.startswith(start))


def test_the_draft_step_time_keeps_the_unit_its_part_asks() -> None:
    """speculative/draft-cost asks the draft's step in ms: the step read off below (b) says it in ms
    too, not "0.385 ms" then "385.1 µs". Seed 38, 8 × MI300X (42.4 TB/s), Llama 3.1 8B at batch 4 and
    512 tokens: 16.06 GB + 4 × 32 × 2 × 8 × 128 × 2 B × 512 = 0.27 GB; 16.33 GB ÷ 42.4 TB/s = 0.385 ms."""
    lines = _lines("speculative/draft-cost", 38)
    b = _index(lines, "- **(b)**")
    assert lines[b].endswith("= max(6.14 µs, 385 µs) = **0.385 ms**")
    assert lines[b + 1] == "- draft step time = 0.3851 ms"
