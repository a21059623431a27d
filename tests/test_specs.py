from pathlib import Path

import pytest

from perfdrill.engine.errors import SpecError
from perfdrill.engine.model import load_specs
from perfdrill.engine.model.evaluation import evaluate
from perfdrill.engine.model.formula_inputs import model_inputs

CHIPS = [
    "l4",
    "a10g",
    "t4",
    "v100-sxm",
    "a100-40gb",
    "a100-80gb",
    "h100-sxm",
    "h100-pcie",
    "h200",
    "b200",
    "rtx-4090",
    "mi300x",
    "tpu-v4",
    "tpu-v5e",
    "tpu-v5p",
    "tpu-v6e",
]
MODELS = [
    "gpt2-small",
    "llama-2-7b",
    "llama-2-13b",
    "llama-2-70b",
    "llama-3.1-8b",
    "llama-3.1-70b",
    "llama-3.1-405b",
    "mistral-7b",
    "mixtral-8x7b",
    "qwen2.5-7b",
    "qwen2.5-72b",
    "gemma-2-9b",
    "gemma-2-27b",
    "gpt3-175b",
    "deepseek-v3",
]


def test_every_required_chip_and_model_is_known() -> None:
    book = load_specs()
    assert set(CHIPS) <= set(book.chips)
    assert set(MODELS) <= set(book.models)


def test_peak_flops_are_dense_not_sparse() -> None:
    book = load_specs()
    # The datasheets headline 2:4-sparse figures (1,979 / 624 / 242 TFLOPS); dense is half.
    assert book.chip("h100-sxm").flops("bf16") == 989e12
    assert book.chip("a100-80gb").flops("bf16") == 312e12
    assert book.chip("l4").flops("bf16") == 121e12
    assert book.chip("mi300x").flops("bf16") == pytest.approx(1307.4e12)


def test_capacity_respects_gb_versus_gib() -> None:
    book = load_specs()
    assert book.chip("h100-sxm").memory.value == 80e9  # NVIDIA says GB
    assert book.chip("tpu-v4").memory.value == 32 * 2**30  # Google says GiB for v4
    assert book.chip("tpu-v5p").memory.value == 95 * 2**30


def test_link_bandwidth_is_one_way() -> None:
    book = load_specs()
    h100 = book.chip("h100-sxm")
    assert h100.link_bandwidth is not None and h100.link_bandwidth.value == 450e9  # not the 900 GB/s headline
    assert book.chip("l4").link_bandwidth is None


def test_chips_without_a_dtype_say_so() -> None:
    book = load_specs()
    with pytest.raises(SpecError, match="no fp8 peak"):
        book.chip("a100-80gb").flops("fp8")


def test_every_number_has_a_source() -> None:
    book = load_specs()
    for chip in book.chips.values():
        for sourced in (*chip.peak_flops.values(), chip.memory, chip.memory_bandwidth):
            assert sourced.source.strip(), chip.id
    for model in book.models.values():
        assert model.source.strip() and model.published_params is not None, model.id


@pytest.mark.parametrize("model_id", MODELS)
def test_parameter_count_within_one_percent_of_published(model_id: str) -> None:
    model = load_specs().model(model_id)
    values = evaluate("model", model_inputs(model, weight_dtype="bf16", kv_dtype="bf16"), ["params"])
    assert model.published_params is not None
    assert values["params"] == pytest.approx(model.published_params.value, rel=0.01)


def test_mixtral_active_parameters() -> None:
    model = load_specs().model("mixtral-8x7b")
    values = evaluate("model", model_inputs(model, weight_dtype="bf16", kv_dtype="bf16"), ["active_params"])
    # Hand count: 32 layers x (attention 41.94M + 2 of 8 experts x 176.16M + router 32,768 + norms 8,192)
    # + embeddings 2 x 32000 x 4096 + final norm 4096 = 12,879,925,248 (Mistral's 12.9B active).
    assert values["active_params"] == 12_879_925_248


def test_deepseek_v3_mla_kv_cache_is_the_latent() -> None:
    model = load_specs().model("deepseek-v3")
    values = evaluate(
        "model",
        model_inputs(model, weight_dtype="bf16", kv_dtype="bf16"),
        ["kv_bytes_per_token", "active_params"],
    )
    assert values["kv_bytes_per_token"] == 61 * (512 + 64) * 2  # 70,272 B, not the 128-head MHA size
    # The README's 37B is rounded; counting embeddings and the LM head gives 37.55B.
    assert values["active_params"] == pytest.approx(37e9, rel=0.02)


def _write(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "specs"
    folder.mkdir(exist_ok=True)
    (folder / "mine.yaml").write_text(text)
    return folder


GOOD_CHIP = """chips:
  my-chip:
    name: Mine
    vendor: Me
    peak_flops:
      bf16: {value: 100, unit: TFLOP/s, source: me}
    memory: {value: 24, unit: GB, source: me}
    memory_bandwidth: {value: 1, unit: TB/s, source: me}
"""


GOOD_MODEL = """models:
  tiny:
    name: Tiny
    source: me
    layers: 2
    d_model: 64
    heads: 4
    kv_heads: 2
    head_dim: 16
    ffn: 128
    vocab: 1000
    gated_mlp: true
    tied_embeddings: false
    context_window: {value: 2048, source: me}
"""


def test_user_specs_join_the_built_in_ones(tmp_path: Path) -> None:
    book = load_specs([_write(tmp_path, GOOD_CHIP + GOOD_MODEL)])
    assert book.chip("my-chip").flops("bf16") == 100e12
    assert book.chip("my-chip").memory.shown == "24 GB"  # as written: an int stays an int
    assert book.model("tiny").kv_heads == 2 and book.model("tiny").experts == 1
    assert "h100-sxm" in book.chips


def test_the_cached_book_equals_the_one_built_from_yaml(tmp_path: Path) -> None:
    from perfdrill.engine.model.spec_files import _load_cached

    folder = _write(tmp_path, GOOD_CHIP + GOOD_MODEL)
    built = load_specs([folder])
    _load_cached.cache_clear()  # the next load decodes the JSON cache entry written just now
    assert load_specs([folder]) == built


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            GOOD_CHIP.replace("{value: 24, unit: GB, source: me}", "{value: lots, unit: GB, source: me}"),
            r"mine.yaml:7: chips.my-chip.memory.value: must be a number",
        ),
        (
            GOOD_CHIP.replace("    memory: {value: 24, unit: GB, source: me}\n", ""),
            r"chips.my-chip.memory: missing field",
        ),
        (
            GOOD_CHIP.replace("value: 24,", "value: -24,"),
            r"mine.yaml:7: chips.my-chip.memory.value: must be positive, not -24",
        ),
        (GOOD_CHIP.replace("bf16:", "bf17:"), r"mine.yaml:6: chips.my-chip.peak_flops.bf17: unknown dtype"),
        (
            GOOD_CHIP.replace("unit: TB/s", "unit: TB"),
            r"chips.my-chip.memory_bandwidth.unit: .* is not a bandwidth",
        ),
        (GOOD_CHIP.replace("my-chip", "h100-sxm"), r"chips.h100-sxm: duplicate id"),
        (
            GOOD_CHIP + "  my-chip:\n    name: again\n",
            r"mine.yaml:9: duplicate key 'my-chip' \(first on line 2\)",
        ),
        (
            GOOD_CHIP.replace("    name: Mine", "    name: [Mine"),
            r"mine.yaml:\d+: column \d+: YAML syntax error",
        ),
        # Unknown fields are errors everywhere, at their own line, with what is allowed.
        (
            GOOD_CHIP + "    host_link_bandwith: {value: 32, unit: GB/s, source: me}\n",
            r"mine.yaml:9: chips.my-chip.host_link_bandwith: unknown field; allowed: name, note, vendor, "
            r"peak_flops, memory, memory_bandwidth, link_bandwidth, link_peer_bandwidth, link_topology, "
            r"link_domain, host_link_bandwidth(, \w+)*$",  # fields added later follow
        ),
        (
            GOOD_CHIP.replace("unit: GB, source: me}", "unit: GB, sauce: me}"),
            r"mine.yaml:7: chips.my-chip.memory.sauce: unknown field; "
            r"allowed: value, source, unit, note, sparse$",
        ),
        (GOOD_CHIP + "gpus: {}\n", r"mine.yaml:9: gpus: unknown field; allowed: chips, models$"),
        (
            GOOD_MODEL + "    context: 8192\n",
            r"mine.yaml:15: models.tiny.context: unknown field; allowed: name,",
        ),
        # Types are strict: a list, a mapping or a bool where text or a number belongs.
        (
            GOOD_CHIP.replace("name: Mine", "name: [Mine]"),
            r"mine.yaml:3: chips.my-chip.name: must be text, not a list",
        ),
        (
            GOOD_CHIP.replace("vendor: Me", "vendor: {a: 1}"),
            r"mine.yaml:4: chips.my-chip.vendor: must be text, not a mapping",
        ),
        (
            GOOD_MODEL.replace("layers: 2", "layers: 2.5"),
            r"models.tiny.layers: must be a whole number, not 2.5",
        ),
        (
            GOOD_MODEL.replace("layers: 2", "layers: true"),
            r"models.tiny.layers: must be a whole number, not true",
        ),
        (
            GOOD_MODEL.replace("gated_mlp: true", "gated_mlp: 1"),
            r"models.tiny.gated_mlp: must be true or false",
        ),
        (GOOD_MODEL.replace("    vocab: 1000\n", ""), r"mine.yaml:2: models.tiny.vocab: missing field"),
        # A peak, a capacity or a bandwidth of zero or less is nonsense (issue 11).
        (
            GOOD_CHIP.replace("bf16: {value: 100", "bf16: {value: 0"),
            r"mine.yaml:6: chips.my-chip.peak_flops.bf16.value: must be positive, not 0",
        ),
        (
            GOOD_CHIP.replace("bf16: {value: 100", "bf16: {value: -2.5"),
            r"mine.yaml:6: chips.my-chip.peak_flops.bf16.value: must be positive, not -2.5",
        ),
        (
            GOOD_CHIP.replace("bf16: {value: 100", "bf16: {value: .nan"),
            r"mine.yaml:6: chips.my-chip.peak_flops.bf16.value: must be positive, not nan",
        ),
        (
            GOOD_CHIP.replace("bf16: {value: 100", "bf16: {value: .inf"),
            r"mine.yaml:6: chips.my-chip.peak_flops.bf16.value: must be a finite number, not inf",
        ),
        (
            GOOD_CHIP.replace("value: 24,", "value: 0,"),
            r"mine.yaml:7: chips.my-chip.memory.value: must be positive",
        ),
        (
            GOOD_CHIP.replace("{value: 1, unit: TB/s", "{value: 0.0, unit: TB/s"),
            r"mine.yaml:8: chips.my-chip.memory_bandwidth.value: must be positive, not 0.0",
        ),
        (
            GOOD_CHIP + "    link_bandwidth: {value: 0, unit: GB/s, source: me}\n",
            r"mine.yaml:9: chips.my-chip.link_bandwidth.value: must be positive",
        ),
        (
            GOOD_CHIP.replace(
                "peak_flops:\n      bf16: {value: 100, unit: TFLOP/s, source: me}", "peak_flops: {}"
            ),
            r"mine.yaml:5: chips.my-chip.peak_flops: must not be empty",
        ),
        # Rules across fields: grouped-query attention shares each KV head among whole groups.
        (
            GOOD_MODEL.replace("kv_heads: 2", "kv_heads: 8"),
            r"mine.yaml:8: models.tiny.kv_heads: must not exceed heads \(4\)",
        ),
        (
            GOOD_MODEL.replace("kv_heads: 2", "kv_heads: 3"),
            r"mine.yaml:8: models.tiny.kv_heads: must divide heads \(4\)",
        ),
        (
            GOOD_MODEL + "    experts: 8\n    experts_per_token: 9\n",
            r"mine.yaml:16: models.tiny.experts_per_token: must not exceed experts \(8\)",
        ),
    ],
)
def test_bad_specs_name_file_entry_field_and_line(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        load_specs([_write(tmp_path, text)])
