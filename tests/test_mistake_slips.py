"""Each named mistake is the slip a person really makes, offered only where it can happen.

Every expected value is worked out by hand in the comments, from the spec sheets' figures:
Llama 3.1 8B has 8,030,261,248 parameters (safetensors total), 32 layers, 8 KV heads of 128; the
H100 SXM has 80 GB, 3.35 TB/s, 989 TFLOP/s dense bf16 (1,979 with 2:4 sparsity) and NVLink 4 at
450 GB/s one way (900 GB/s both directions added); the TPU v4 has 32 GiB; an MI300X reaches each
peer over one 64 GB/s (one-way) Infinity Fabric link.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from perfdrill.engine.model import load_specs
from perfdrill.engine.problems.bank import load_bank, load_folders
from perfdrill.engine.problems.generation import Problem, generate
from tests.helpers import write_template

SPECS = load_specs()


def _problem(tmp_path: Path, question: str, seed: int = 0) -> Problem:
    folder = write_template(tmp_path, question.split("id: ")[1].split()[0], question)
    (template,) = load_folders([folder], tmp_path)
    return generate(template, seed, SPECS)


def _slips(problem: Problem, part: str) -> dict[str, float]:
    return dict(problem.part(part).mistakes)


# Free memory beside bf16 weights: 80e9 − 2·8,030,261,248 = 63,939,477,504 bytes. A token's KV cache:
# 32 layers · 2 (K and V) · 8 KV heads · 128 · 2 bytes = 131,072 bytes.
CAPACITY = """
id: kv_cache/capacity
title: Capacity
family: kv_cache
difficulty: easy
workload: decode
parameters:
  chip: {chip: {ids: [h100-sxm]}}
  model: {model: {ids: [llama-3.1-8b]}}
scenario: {chip: chip, model: model}
inputs: {batch: 1, context: 1}
parts:
  - name: capacity
    kind: numeric
    prompt: Tokens?
    answer: context_capacity
    unit: token
    mistakes: [query-heads-for-kv, kv-one-tensor, forgot-layers]
"""


def test_query_heads_scale_the_cache_and_keep_the_weights(tmp_path: Path) -> None:
    problem = _problem(tmp_path, CAPACITY)
    assert problem.part("capacity").value == 487_819  # floor(63,939,477,504 / 131,072)
    slips = _slips(problem, "capacity")
    # 32 query heads for 8 KV heads: four times the cache per token, the same weights (had the slip
    # grown the K and V projections too, less memory would be left and the count would be lower).
    assert slips["query-heads-for-kv"] == 121_954  # floor(63,939,477,504 / 524,288)
    assert slips["kv-one-tensor"] == 975_639  # floor(63,939,477,504 / 65,536)
    assert slips["forgot-layers"] == 15_610_224  # floor(63,939,477,504 / 4,096)


RIDGE = """
id: roofline/ridge-{name}
title: Ridge
family: roofline
difficulty: easy
workload: roofline
parameters:
  chip: {{chip: {{ids: [{chip}]}}}}
scenario: {{chip: chip, dtype: {dtype}}}
parts:
  - {{name: ridge, kind: numeric, prompt: Ridge?, answer: ridge_point, unit: FLOP/B, mistakes: [sparse-peak]}}
"""


def test_sparse_peak_only_where_a_sparse_figure_is_published(tmp_path: Path) -> None:
    h100 = _problem(tmp_path, RIDGE.format(name="h100", chip="h100-sxm", dtype="bf16"))
    assert h100.part("ridge").value == pytest.approx(989 / 3.35)  # 295.2 FLOP/B
    assert _slips(h100, "ridge") == {"sparse-peak": pytest.approx(1979 / 3.35)}  # 590.7
    for name, chip, dtype in (
        ("tpu", "tpu-v4", "bf16"),  # Google publishes no sparse figure
        ("volta", "v100-sxm", "fp16"),  # Volta has no structured sparsity
        ("turing", "t4", "fp16"),
        ("cuda-cores", "h100-sxm", "fp32"),  # the fp32 CUDA-core path has no sparse mode
    ):
        problem = _problem(tmp_path, RIDGE.format(name=name, chip=chip, dtype=dtype))
        assert _slips(problem, "ridge") == {}, chip


WEIGHTS = """
id: quantization/weights-{dtype}
title: Weights
family: quantization
difficulty: easy
workload: decode
parameters:
  model: {{model: {{ids: [llama-3.1-8b]}}}}
scenario: {{model: model, weight_dtype: {dtype}}}
inputs: {{batch: 1, context: 1}}
parts:
  - {{name: weights, kind: numeric, prompt: Bytes?, answer: weight_bytes, unit: GB, mistakes: [fp32-bytes]}}
"""


def test_fp32_bytes_only_for_sixteen_bit_weights(tmp_path: Path) -> None:
    bf16 = _problem(tmp_path, WEIGHTS.format(dtype="bf16"))
    assert bf16.part("weights").value == pytest.approx(16.060522496)  # 2 bytes × 8.03B
    assert _slips(bf16, "weights") == {"fp32-bytes": pytest.approx(32.121044992)}  # 4 bytes × 8.03B
    fp8 = _problem(tmp_path, WEIGHTS.format(dtype="fp8"))
    assert fp8.part("weights").value == pytest.approx(8.030261248)
    assert _slips(fp8, "weights") == {}  # nobody takes an 8-bit weight for a 16-bit one


MEMORY = """
id: training/memory-{name}
title: Memory
family: training
difficulty: easy
workload: roofline
parameters:
  chip: {{chip: {{ids: [{chip}]}}}}
scenario: {{chip: chip, dtype: bf16}}
parts:
  - {{name: memory, kind: numeric, prompt: GB?, answer: system_memory, unit: GB, mistakes: [spec-gib-as-gb]}}
"""


def test_a_gib_datasheet_figure_read_as_gb(tmp_path: Path) -> None:
    tpu = _problem(tmp_path, MEMORY.format(name="tpu", chip="tpu-v4"))
    assert tpu.part("memory").value == pytest.approx(34.359738368)  # 32 GiB = 32 · 2^30 bytes
    assert _slips(tpu, "memory") == {"spec-gib-as-gb": pytest.approx(32.0)}  # read as 32 GB
    h100 = _problem(tmp_path, MEMORY.format(name="gpu", chip="h100-sxm"))
    assert _slips(h100, "memory") == {}  # quoted in GB: nothing to misread


LINK = """
id: parallelism/link-{name}
title: Link
family: parallelism
difficulty: easy
workload: group_collective
parameters:
  chip: {{chip: {{ids: [{chip}]}}}}
scenario: {{chip: chip}}
inputs: {{collective_bytes: 1000000000, participants: {chips}}}
parts:
  - name: bandwidth
    kind: numeric
    prompt: GB/s?
    answer: group_link_bandwidth
    unit: GB/s
    mistakes: [bidirectional-link]
"""


@pytest.mark.parametrize(
    ("name", "chip", "chips", "one_way"),
    [
        ("h100", "h100-sxm", 8, 450),  # NVSwitch: the full 450 GB/s to any peer
        ("mi300x-pair", "mi300x", 2, 64),  # two MI300X share one 64 GB/s link, not the 448 GB/s sum
        ("mi300x-four", "mi300x", 4, 192),  # three links of 64 GB/s reach the other three
        ("mi300x-node", "mi300x", 8, 448),  # all seven links
    ],
)
def test_bidirectional_link_figure_doubles_the_one_way_bandwidth(
    tmp_path: Path, name: str, chip: str, chips: int, one_way: float
) -> None:
    problem = _problem(tmp_path, LINK.format(name=name, chip=chip, chips=chips))
    assert problem.part("bandwidth").value == pytest.approx(one_way)
    assert _slips(problem, "bandwidth") == {"bidirectional-link": pytest.approx(2 * one_way)}


# 8 sequences of 4,096 tokens: 8 · 4,096 · 131,072 = 4,294,967,296 bytes of cache beside
# 16,060,522,496 bytes of weights; at 3.35 TB/s that is 6.076 ms, and 4.794 ms for the weights alone.
# (The FLOPs, 8 · 2 · 8.03e9 at 989 TFLOP/s, take 0.13 ms: the step is memory-bound.)
DECODE = """
id: performance_model/step
title: Step
family: performance_model
difficulty: easy
workload: decode
parameters:
  chip: {chip: {ids: [h100-sxm]}}
  model: {model: {ids: [llama-3.1-8b]}}
scenario: {chip: chip, model: model}
inputs: {batch: 8, context: 4096}
parts:
  - {name: step, kind: numeric, prompt: ms?, answer: runtime, unit: ms, mistakes: [forgot-kv-cache]}
"""


def test_forgetting_the_kv_cache_in_decode(tmp_path: Path) -> None:
    problem = _problem(tmp_path, DECODE)
    assert problem.part("step").value == pytest.approx(6.0763, rel=1e-4)
    assert _slips(problem, "step") == {"forgot-kv-cache": pytest.approx(4.7942, rel=1e-4)}


def test_matmul_missing_2_halves_time_to_first_token_exactly() -> None:
    """The prompt gives peak and MFU only, so the slip halves the compute time; it never crosses a
    memory roof the student was not shown."""
    template = load_bank().get("prefill_decode/time-to-first-token")
    for seed in range(100):
        part = generate(template, seed, SPECS).part("ttft")
        assert part.value is not None
        assert dict(part.mistakes)["matmul-missing-2"] == pytest.approx(part.value / 2, rel=1e-12)


def test_forgetting_the_layers_in_tensor_parallel_communication() -> None:
    template = load_bank().get("parallelism/tp-allreduce")
    for seed in range(50):
        problem = generate(template, seed, SPECS)
        layers = problem.models[0].layers
        for name in ("forward_comm", "across_pcie"):
            part = problem.part(name)
            assert part.value is not None
            assert dict(part.mistakes)["forgot-layers"] == pytest.approx(part.value / layers, rel=1e-12)


def test_a_slip_that_leaves_the_answer_exactly_alone_is_not_offered(tmp_path: Path) -> None:
    # 64 rows of bf16 against a 1024 × 1024 weight on an H100: 2.36 MB of traffic take 0.70 µs, the
    # 134 MFLOP 0.14 µs; memory-bound, so a doubled (sparse) peak changes nothing.
    problem = _problem(
        tmp_path,
        """
        id: matmul/skinny
        title: Skinny
        family: matmul
        difficulty: easy
        workload: matmul
        parameters:
          chip: {chip: {ids: [h100-sxm]}}
        scenario: {chip: chip, dtype: bf16}
        inputs: {m: 64, k: 1024, n: 1024, activation_bytes: 2, weight_bytes_per_param: 2}
        parts:
          - {name: runtime, kind: numeric, prompt: us?, answer: runtime, unit: us, mistakes: [sparse-peak]}
        """,
    )
    assert problem.part("runtime").value == pytest.approx(2_359_296 / 3.35e12 * 1e6)
    assert _slips(problem, "runtime") == {}
