"""Teacher review 4 (printfix): what printed keys show around the working.

Each test pins one rejection from /work/teacher4/rejections.txt with its expected text written here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import msgspec

from perfdrill.engine.model.specs import Sourced, load_specs
from perfdrill.engine.output.spec_facts import chip_table, model_table

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
