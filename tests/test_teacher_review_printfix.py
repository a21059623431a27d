"""Teacher review 4 (printfix): what printed keys show around the working.

Each test pins one rejection from /work/teacher4/rejections.txt with its expected text written here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pypdf

from perfdrill.engine.model import load_specs
from perfdrill.engine.model.specs import Sourced
from perfdrill.engine.output.spec_facts import chip_table, model_table
from perfdrill.engine.problems import RooflineView, generate, load_bank
from perfdrill.engine.problems.roofline_view import roofline_view

# What a student cannot look up: a file name, a snake_case key, code comparison, `x` for times.
CODE_LIKE = re.compile(r"\.yaml|\.json|[a-z0-9]+_[a-z0-9_]+|!=| x ")


def _citations(entry: msgspec.Struct) -> Iterator[tuple[str, str]]:
    """(field, text) for the entry's own source/note and every figure's source and note."""
    for field in entry.__struct_fields__:
        value = getattr(entry, field)
        figures = value.items() if isinstance(value, dict) else [(field, value)]
        for name, figure in figures:
            if isinstance(figure, Sourced):
                yield f"{field}.{name}", figure.source
                yield f"{field}.{name}.note", figure.note
        if field in ("source", "note"):
            yield field, value


def test_no_spec_source_or_note_prints_a_code_identifier() -> None:
    # Rejected: 'specs_reference.yaml infinity_fabric_aggregate_per_direction' (MI300X),
    # 'alt_values.nvidia_hgx_b200_revised_datasheet', 'fp4_tensor_dense_tflops' (B200),
    # 'gpu_configs/a10g-pcie-24gb.json peak_fp16_TFLOPS' (A10G), 'heads x head_dim != d_model' (Gemma 2).
    book = load_specs()
    found = [
        f"{entry.id}.{field}: {text!r}"
        for entry in (*book.chips.values(), *book.models.values())
        for field, text in _citations(entry)
        if CODE_LIKE.search(text)
    ]
    assert found == []


def test_the_pattern_catches_what_was_rejected() -> None:
    for rejected in (
        "specs_reference.yaml infinity_fabric_aggregate_per_direction",
        "cli99/llm-analysis gpu_configs/a10g-pcie-24gb.json peak_fp16_TFLOPS",
        "head_dim 256: heads x head_dim != d_model",
        "7 links x 64 GB/s",
    ):
        assert CODE_LIKE.search(rejected), rejected
    assert not CODE_LIKE.search("PCIe 3.0 x16: 8 GT/s per lane, 16 lanes")


def test_printed_cards_cite_the_same_sources_in_words() -> None:
    book = load_specs()
    mi300x = {row.fact: row.source for row in chip_table(book.chip("mi300x")).rows}
    # stas00/ml-engineering network/README.md: 7 Infinity Fabric links of 64 GB/s each way = 448 GB/s.
    assert mi300x["chip-to-chip link (one-way)"] == (
        "AMD Infinity Fabric: 7 links of 64 GB/s each way = 448 GB/s one way in all "
        "(Stas Bekman, Machine Learning Engineering (stas00/ml-engineering), Network chapter)"
    )
    b200 = {row.fact: row.source for row in chip_table(book.chip("b200")).rows}
    assert b200["memory"] == "NVIDIA HGX B200 datasheet, revised per-GPU table (180 GB HBM3e)"
    a10g = {row.fact: row.source for row in chip_table(book.chip("a10g")).rows}
    assert a10g["fp16 peak (dense)"].startswith("llm-analysis (cli99/llm-analysis on GitHub), A10G PCIe")
    assert "70 TFLOPS fp16" in a10g["fp16 peak (dense)"]
    gemma = model_table(book.model("gemma-2-9b"))
    assert gemma.source == (
        "Hugging Face model config, google/gemma-2-9b (heads are 256 wide: 16 heads span 4,096, "
        "not the 3,584 model width)"
    )


def _baselines(pdf: Path) -> dict[str, float]:
    """Each text run on page 1 by its first baseline, in points from the page's foot."""
    found: dict[str, float] = {}

    def visit(text: str, cm: list[float], tm: list[float], font: Any, size: float) -> None:
        found.setdefault(text.strip(), cm[5] + tm[5])

    pypdf.PdfReader(pdf).pages[0].extract_text(visitor_text=visit)
    return found


def test_a_third_spec_card_starts_below_the_chip_card(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    # Rejected: speculative/large-batch's first variant printed the 'Llama 3.1 8B' card heading over the
    # B200 card's last row ('host link (one-way)'), 7.4 pt apart: the grid of cards had no row gap.
    # Seed 2 draws B200 with Llama 3.1 70B and the Llama 3.1 8B draft: three cards, two rows.
    out = tmp_path / "set.pdf"
    code, _, err = run_cli(
        "generate", "--question", "speculative/large-batch", "--count", "1", "--seed", "2",
        "--answers", "none", "-o", str(out),
    )  # fmt: skip
    assert code == 0, err
    at = _baselines(out)
    assert "NVIDIA B200 (HGX)" in at and "Llama 3.1 8B" in at
    # The 9 pt heading's capitals (about 6.5 pt) and the 8.5 pt row's descenders (about 2 pt) need
    # 8.5 pt between baselines to touch; 12 pt leaves a visible gap.
    assert at["host link (one-way)"] - at["Llama 3.1 8B"] >= 12


def _card(model_id: str) -> dict[str, str]:
    return {row.fact: row.value for row in model_table(load_specs().model(model_id)).rows}


def test_deepseek_v3_card_says_mla_and_what_the_engine_caches() -> None:
    # Rejected: the card read 'attention MHA' with '128 KV heads' of dim 128. DeepSeek-V3's config
    # (kv_lora_rank 512, qk_rope_head_dim 64) caches 512 + 64 = 576 elements per token per layer.
    card = _card("deepseek-v3")
    assert card["attention"] == "MLA: caches 576 elements per token per layer"
    assert "KV heads" not in card
    assert card["query heads"] == "128"


def test_sliding_window_models_say_so() -> None:
    # Mistral 7B v0.1 config: sliding_window 4096 on every layer; Gemma 2: 4,096-token local layers
    # alternate with global ones (Gemma 2 config and report).
    assert _card("mistral-7b")["attention"] == "GQA, sliding window 4,096"
    assert _card("gemma-2-9b")["attention"] == "GQA, sliding window 4,096 on alternate layers"
    assert _card("gemma-2-27b")["attention"] == "GQA, sliding window 4,096 on alternate layers"
    assert _card("llama-3.1-8b")["attention"] == "GQA"


def _view(template_id: str, seed: int) -> RooflineView | None:
    return roofline_view(generate(load_bank().get(template_id), seed, load_specs()).variant)


def _point_labels(template_id: str, seed: int) -> list[str]:
    view = _view(template_id, seed)
    assert view is not None, template_id
    return [point.label for point in view.points]


def test_a_point_whose_label_states_the_what_if_is_not_labelled_a_what_if() -> None:
    # Rejected: 'decode step, batch 11 (what-if: batch = 11)' (serving/slo-cost) and 'batch 325
    # (what-if: batch = 325)' (quantization/kv-cache-batch): the label already says the batch.
    for template_id in ("serving/slo-cost", "quantization/kv-cache-batch", "serving/decode-profile"):
        for seed in (1, 2, 3):
            for label in _point_labels(template_id, seed):
                assert not re.search(r"batch ([\d,]+) \(what-if: batch = \1\)", label), label
                assert re.fullmatch(r"decode step, batch [\d,]+( \(what-if: .*\))?", label), label
    # A what-if that changes more than the label shows keeps its name: the quantized KV cache.
    labels = _point_labels("quantization/kv-cache-batch", 1)
    assert any("(what-if: bytes per KV element = " in label for label in labels), labels
    # ...and so does one that swaps the chip, which a matmul's shape does not show.
    labels = _point_labels("roofline/measured-upgrade", 1)
    assert any(label.endswith("(what-if: the newer chip NVIDIA B200 (HGX))") for label in labels), labels


def test_a_roof_at_the_bf16_peak_is_labelled_bf16() -> None:
    # Rejected: w8a8-compute's legend named the weight-only roof (the chip's bf16 peak) 'int8 (what-if:
    # ...)'. Since wave 4 the weight-only case is the question's own (bf16 math) and W8A8 the what-if
    # at the int8 peak. H200 datasheet: 989 TFLOP/s dense bf16, 1,979 TOPS int8 and 1,979 TFLOP/s
    # fp8, equal: the what-if roof is int8's because the template sets the int8 peak, not fp8's.
    roofs = [roof.label for seed in (1, 2, 3) for roof in _view("quantization/w8a8-compute", seed).roofs]  # type: ignore[union-attr]
    own = [label for label in roofs if "what-if" not in label]
    what_ifs = [label for label in roofs if "what-if" in label]
    assert own and all(label.endswith(", bf16") for label in own), roofs
    assert what_ifs and all(label.endswith(", int8 (what-if: int8 math)") for label in what_ifs), roofs
    assert "8 × NVIDIA H200 SXM 141GB, int8 (what-if: int8 math)" in roofs
    roofs = [roof.label for roof in _view("quantization/fp4-blackwell", 1).roofs]  # type: ignore[union-attr]
    assert roofs[1].startswith("2 × NVIDIA B200 (HGX), fp8 (what-if: fp8 math"), roofs


def test_no_plot_of_what_the_problem_does_not_define() -> None:
    # Rejected: speculative/measured-rounds plotted 'decode step, batch 256: 196 FLOP/B', whose
    # intensity needs a KV length the prompt never gives: its answers rest on the profiled times.
    # kernels/l2-resident-weights plotted the kernel at its HBM intensity (15.8 FLOP/B, 16 TFLOP/s)
    # while the working keeps the weights in L2 (6.44 us for 302 MFLOP is about 47 TFLOP/s).
    for seed in (1, 2, 3, 4, 5):
        assert _view("speculative/measured-rounds", seed) is None
        assert _view("kernels/l2-resident-weights", seed) is None
    # A decode step the prompt does define keeps its plot.
    assert _point_labels("serving/slo-cost", 1)[0] == "decode step, batch 1"


def test_l2_resident_weights_names_device_memory_not_hbm(run_cli) -> None:  # type: ignore[no-untyped-def]
    # Rejected: on a T4 (GDDR6) part (c) read 'repeat HBM bytes = ...'. Seed 2 draws a T4 (320 GB/s).
    code, out, err = run_cli(
        "generate", "--question", "kernels/l2-resident-weights", "--count", "1", "--seed", "2",
        "--answers", "inline",
    )  # fmt: skip
    assert code == 0, err
    assert "GDDR6" in out and "320\u00a0GB/s" in out
    assert "HBM" not in out
    assert "- **(c)** repeat device-memory bytes = " in out


def test_a_draft_and_its_target_on_one_chart_are_named_by_model() -> None:
    # Rejected (speculative/draft-cost, PDF legend): 'what-if: the model Llama 3.1 8B and params
    # 8.03B params and active params 8.03B params'. Seed 1 drafts Qwen2.5 7B for Qwen2.5 72B, batch 4.
    assert _point_labels("speculative/draft-cost", 1) == [
        "decode step, batch 4, Qwen2.5 72B",
        "decode step, batch 4, Qwen2.5 7B",
    ]
