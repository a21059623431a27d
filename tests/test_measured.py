"""Published measurements in the bank: the tables as their sources print them, XLA's interpolation
worked by hand, `calc matmul`'s measured results, `specs measured`, and the templates that read them.

Expected values are copied from the sources, not computed by perfdrill:
- openxla/xla xla/service/gpu/model/matmul_interpolator_data.h @e97611c4 (Apache-2.0), rows `sm_90`
  and `sm_100_B200`;
- stas00/ml-engineering compute/accelerator/README.md @b9e2972 (MAMF table);
- stas00/ml-engineering network/benchmarks/README.md @0cc3de5 (nccl-tests column, 8 x H200).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perfdrill.engine.errors import SpecError
from perfdrill.engine.model import load_specs
from perfdrill.engine.model.measured import _load_cached, load_measurements
from perfdrill.engine.problems.bank import load_bank
from perfdrill.engine.problems.generation import generate

BOOK = load_measurements()
BANK = load_bank()
SPECS = load_specs()
MEASURED_TEMPLATES = [
    "runtime_check/measured-matmul",
    "matmul/measured-fraction",
    "roofline/mamf-vs-datasheet",
    "roofline/measured-upgrade",
    "parallelism/nccl-tests-measured",
    "training/mamf-step-check",
]


def test_xla_rows_as_the_file_prints_them() -> None:
    h100, b200 = BOOK.matmul["h100-sxm"], BOOK.matmul["b200"]
    # entries { b: 1 m: 512 n: 256 k: 256 flops { key: "bf16xbf16->bf16" value: 12336188235294 } ... }
    assert h100["bf16"][(1, 512, 256, 256)] == 12336188235294
    assert h100["bf16"][(1, 4096, 4096, 4096)] == 780193877565849
    # the f32xf32->f32 column, filed under tf32: 403 TFLOP/s is six times the H100's 67 TFLOP/s FP32
    assert h100["tf32"][(1, 4096, 4096, 4096)] == 403149640735319
    assert "fp32" not in h100
    assert b200["bf16"][(1, 4096, 4096, 4096)] == 1416867213789406
    assert len(h100["bf16"]) == len(b200["bf16"]) == 375  # b in 1, 2, 4 by m, n, k in 256..4096
    assert BOOK.matmul_source["h100-sxm"].commit == "e97611c4c41c1f2dd331aca646792089f7f86b66"
    assert BOOK.matmul_source["h100-sxm"].licence == "Apache-2.0"


def test_a_measured_shape_is_read_as_is() -> None:
    assert BOOK.matmul_flops("h100-sxm", "bf16", 512, 256, 256) == 12336188235294
    assert BOOK.is_measured_shape("h100-sxm", "bf16", 512, 256, 256)


def test_between_measured_shapes_as_xla_interpolates_by_hand() -> None:
    # XLA's EuclideanWeightedAverageInterpolator: each dimension's neighbours are the powers of two
    # around it, clamped to 256..4096; 16 corners weighted 1 / (squared distance + 1).
    # m = 768: corners m = 512 and 1024 at distance 256 each (equal weights), k = n = 256 exact.
    at_512, at_1024 = 12336188235294, 23563505617977  # rows (1, 512|1024, n 256, k 256)
    assert BOOK.matmul_flops("h100-sxm", "bf16", 768, 256, 256) == pytest.approx((at_512 + at_1024) / 2)
    # m = 300: neighbours 256 (distance 44) and 512 (distance 212): weights 1/1937 and 1/44945.
    at_256 = 6721641025641  # row (1, 256, 256, 256)
    by_hand = (at_256 / 1937 + at_512 / 44945) / (1 / 1937 + 1 / 44945)
    assert BOOK.matmul_flops("h100-sxm", "bf16", 300, 256, 256) == pytest.approx(by_hand, rel=1e-12)
    assert not BOOK.is_measured_shape("h100-sxm", "bf16", 300, 256, 256)


@pytest.mark.parametrize("shape", [(128, 256, 256), (256, 8192, 256), (256, 256, 300.5)])
def test_no_measurement_off_the_grid(shape: tuple[float, float, float]) -> None:
    assert BOOK.matmul_flops("h100-sxm", "bf16", *shape) is None
    assert BOOK.matmul_flops("a100-80gb", "bf16", 512, 512, 512) is None  # XLA measured no sm_80


def test_mamf_and_all_reduce_as_published() -> None:
    assert BOOK.mamf["h100-sxm"]["bf16"].flops == 794.5e12
    assert BOOK.mamf["h100-sxm"]["fp8"].flops == 1402.6e12
    assert BOOK.mamf["a100-80gb"]["bf16"].flops == 271.2e12
    assert BOOK.mamf["mi300x"]["bf16"].flops == 668.4e12
    h200 = BOOK.all_reduce["h200-node-nccl-tests"]
    assert (h200.chip, h200.ranks) == ("h200", 8)
    assert [4194304, 139.97] in h200.rows and [17179869184, 480.70] in h200.rows


def test_calc_matmul_reports_the_measured_time(run_cli) -> None:
    code, out, err = run_cli(
        "calc", "matmul", "--chip", "h100-sxm", "--m", "512", "--k", "256", "--n", "256", "--json"
    )
    assert code == 0, err
    results = json.loads(out)["results"]
    # 2·512·256·256 = 67,108,864 FLOP at 12.336 TFLOP/s = 5.4400 µs
    assert results["measured_time"] == {"value": pytest.approx(5.44000e-6, rel=1e-4), "unit": "s"}
    # roofline: 2·(512·256 + 256·256 + 512·256) = 655,360 B at 3.35 TB/s = 195.63 ns (memory-bound)
    assert results["fraction_of_roofline"]["value"] == pytest.approx(195.63e-9 / 5.44000e-6, rel=1e-4)
    assert "openxla/xla" in json.loads(out)["notes"][0] and "a measured shape" in json.loads(out)["notes"][0]


def test_calc_matmul_says_when_nothing_was_measured(run_cli) -> None:
    code, out, _ = run_cli(
        "calc",
        "matmul",
        "--chip",
        "h100-sxm",
        "--dtype",
        "fp32",
        "--m",
        "512",
        "--k",
        "512",
        "--n",
        "512",
        "--json",
    )
    document = json.loads(out)
    assert code == 0 and "measured_time" not in document["results"]
    assert any("no measurement of this matmul" in note for note in document["notes"])


def test_specs_lists_the_measured_tables_with_sources(run_cli) -> None:
    code, out, _ = run_cli("specs", "measured", "--json")
    measured = json.loads(out)["measured"]
    assert code == 0
    assert (
        measured["matmul"]["h100-sxm"]["source"]["path"] == "xla/service/gpu/model/matmul_interpolator_data.h"
    )
    assert measured["mamf"]["h100-sxm"]["bf16"]["source"]["repository"] == "stas00/ml-engineering"
    assert measured["all_reduce"]["h200-node-nccl-tests"]["rows"][0] == {"bytes": 32768, "busbw_GBps": 3.2}


def test_a_bad_measured_file_is_one_located_line(tmp_path: Path) -> None:
    good = (Path(__file__).parents[1] / "specs" / "measured" / "mamf.yaml").read_text()
    (tmp_path / "mamf.yaml").write_text(good.replace("value: 794.5", "value: -794.5"))
    with pytest.raises(SpecError) as caught:
        _load_cached((tmp_path,))
    assert caught.value.file.endswith("mamf.yaml") and caught.value.line is not None
    assert "mamf.h100-sxm.bf16.value" in str(caught.value)


@pytest.mark.parametrize("template_id", MEASURED_TEMPLATES)
def test_every_measured_prompt_says_who_measured_it(template_id: str) -> None:
    for seed in range(5):
        prompt = generate(BANK.get(template_id), seed, SPECS).prompt
        assert "Measured by" in prompt or "measured by" in prompt, (template_id, seed)
        assert "openxla/xla" in prompt or "stas00/ml-engineering" in prompt


def test_measured_matmul_reads_the_table() -> None:
    template = BANK.get("runtime_check/measured-matmul")
    for seed in range(40):
        problem = generate(template, seed, SPECS)
        m, k, n = (problem.variant.lookup(x, None) for x in ("m", "k", "n"))
        chip = problem.variant.params["chip"].id
        measured = float(problem.variant.lookup("measured_time", None))  # shown to 3 figures
        assert measured == pytest.approx(2 * m * k * n / BOOK.matmul_flops(chip, "bf16", m, k, n), rel=5e-3)
        exact = all(x in (256, 512, 1024, 2048, 4096) for x in (m, k, n))
        assert ("interpolating between the measured shapes" in problem.prompt) is not exact


def test_mamf_share_by_hand() -> None:
    # H100 SXM: the book's 794.5 of 989 TFLOP/s is 80.3%; the prompt shows 3 figures, and the
    # answer is read from what it shows (794 or 795: 80.28% or 80.38%)
    for seed in range(30):
        problem = generate(BANK.get("roofline/mamf-vs-datasheet"), seed, SPECS)
        if problem.variant.params["chip"].id == "h100-sxm":
            assert "79" in problem.prompt and problem.parts[0].value == pytest.approx(80.3, abs=0.1)  # in %
            return
    pytest.fail("no H100 variant in 30 seeds")


def test_training_step_against_the_mamf_by_hand() -> None:
    # Seed 347879: Llama 2 13B (shown and used as 13.0B params) on 256 x A100 SXM4 80GB (312 TFLOP/s
    # dense bf16; the book's MAMF 271.2, shown and used as 271 TFLOP/s), 2,048 x 2,048 tokens a step,
    # reported at 6.29 s. By hand: 6 · 13.0e9 · 4,194,304 = 327.156 PFLOP; MFU = 327.156e15 /
    # (6.29 · 256 · 312e12) = 65.12%; at the MAMF 327.156e15 / (256 · 271e12) = 4.7157 s; and the
    # reported step reaches 4.7157 / 6.29 = 74.97% of the MAMF.
    problem = generate(BANK.get("training/mamf-step-check"), 347879, SPECS)
    params = problem.variant.params
    assert (params["chip"].id, params["model"].id, params["chips"]) == ("a100-80gb", "llama-2-13b", 256)
    assert "**6.29\xa0s**" in problem.prompt and "**271\xa0TFLOP/s**" in problem.prompt
    values = [part.value for part in problem.parts]
    assert values == pytest.approx([327.156, 65.12, 4.7157, 74.97], rel=2e-4)  # PFLOP, %, s, %


def test_nccl_bucket_by_hand() -> None:
    # 4 MiB on 8 x H200: busbw 139.97 GB/s, shown and used as 140 GB/s -> algbw = 140 · 8 / 14
    # = 80.0 GB/s; the bucket shown and used as 4.19 MB -> 4.19e6 B · 14 / (8 · 140 GB/s) = 52.375 µs
    for seed in range(200):
        problem = generate(BANK.get("parallelism/nccl-tests-measured"), seed, SPECS)
        variant = problem.variant
        if variant.params["chip"].id == "h200" and variant.params["bucket"] == 4:
            assert problem.parts[0].value == pytest.approx(80.0, rel=1e-9)  # GB/s
            assert float(variant.lookup("measured_runtime", None)) == pytest.approx(52.375e-6, rel=1e-9)
            return
    pytest.fail("no 4 MiB H200 variant in 200 seeds")


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("training/pipeline-bubble", "training/pipeline-bubble-basics"),
        ("serving/chunked-prefill", "serving/chunked-prefill-steps"),
        ("quantization/kv-cache-batch", "quantization/kv-cache-bytes"),
    ],
)
def test_a_second_template_at_another_difficulty(first: str, second: str) -> None:
    assert BANK.get(first).difficulty != BANK.get(second).difficulty


def test_pipeline_basics_by_hand() -> None:
    # p = 2, m = 32, 37 ms a slot (seed 4): 33 slots, 1.221 s, 1/33 = 3.03% idle
    problem = generate(BANK.get("training/pipeline-bubble-basics"), 4, SPECS)
    p, m = problem.variant.params["stages"], problem.variant.params["microbatches"]
    slot = problem.variant.params["stage_time"]
    assert problem.parts[0].value == m + p - 1
    assert problem.parts[1].value == pytest.approx((m + p - 1) * slot * 1e3)  # in ms
    assert problem.parts[2].value == pytest.approx(100 * (p - 1) / (m + p - 1))


def test_int4_kv_bytes_by_hand() -> None:
    for seed in range(40):
        problem = generate(BANK.get("quantization/kv-cache-bytes"), seed, SPECS)
        v = problem.variant
        if v.params["kv_format"] != "int4":
            continue
        model, group = v.params["model"], v.params["kv_group"]
        # 2 · layers · KV heads · head dim values, each 4 + 16/G bits
        per_token = 2 * model.layers * model.kv_heads * model.head_dim * (4 + 16 / group) / 8
        assert problem.parts[1].value == pytest.approx(per_token / 1024)  # KiB/token
        return
    pytest.fail("no int4 variant in 40 seeds")


def test_chunked_steps_by_hand() -> None:
    problem = generate(BANK.get("serving/chunked-prefill-steps"), 0, SPECS)
    prompt, chunk = problem.variant.params["prompt"], problem.variant.params["chunk"]
    assert problem.parts[0].value == -(-prompt // chunk)  # ceil
