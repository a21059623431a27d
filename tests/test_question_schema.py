"""question.yaml is declared once: loading, `perfdrill schema` and `perfdrill new` share its rules."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from perfdrill.engine.errors import TemplateError
from perfdrill.engine.model.evaluation import workload_names
from perfdrill.engine.problems.bank import builtin_root, load_folders, template_folders
from perfdrill.engine.problems.parameter_draws import CHIP_FILTERS, MODEL_FILTERS
from perfdrill.engine.problems.question_file import ParameterFields, PartFields, QuestionFile
from tests.helpers import MATMUL, write_template

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = json.loads((ROOT / "docs" / "question.schema.json").read_text(encoding="utf-8"))
# JSON Schema patterns are ECMA-262, where `$` ends the text; Python's fullmatch does the same.
ID_PATTERN = SCHEMA["properties"]["id"]["pattern"]

GOOD_IDS = ["matmul/x2", "matmul/4096-cubed", "kv_cache/long-context", "runtime_check/a-b-c"]
# Before one rule: `matmul/a_b` passed the shipped schema but failed to load; `matmul/x-` loaded
# but `perfdrill new` refused it.
BAD_IDS = ["matmul/a_b", "matmul/x-", "matmul/-x", "matmul/x--y", "matmul/X", "matmul/", "matmul/x\n"]


def _loads(tmp_path: Path, question_id: str) -> bool:
    family = question_id.split("/")[0]
    question = MATMUL.replace("matmul/h100-4096", json.dumps(question_id)).replace(
        "family: matmul", f"family: {family}"
    )
    folder = write_template(tmp_path / "root", "matmul/any", question)
    try:
        load_folders([folder], tmp_path / "root")
    except TemplateError as exc:
        assert exc.field == "id" and exc.line == 1, exc
        return False
    return True


@pytest.mark.parametrize("question_id", GOOD_IDS + BAD_IDS)
def test_one_id_rule_for_loading_the_schema_and_new(tmp_path: Path, question_id: str, run_cli) -> None:  # type: ignore[no-untyped-def]
    good = question_id in GOOD_IDS
    assert _loads(tmp_path, question_id) is good
    assert (re.fullmatch(ID_PATTERN, question_id) is not None) is good
    code, _, err = run_cli("new", question_id, "--into", str(tmp_path / "new"))
    assert (code == 0) is good, err


def test_every_builtin_id_follows_the_rule() -> None:
    ids = [
        yaml.safe_load((folder / "question.yaml").read_text(encoding="utf-8"))["id"]
        for folder in template_folders(builtin_root())
    ]
    assert len(ids) >= 33
    for question_id in ids:
        assert re.fullmatch(ID_PATTERN, question_id), question_id


def test_the_schema_is_the_declaration() -> None:
    properties = SCHEMA["properties"]
    assert list(properties) == list(QuestionFile.__struct_fields__)
    assert SCHEMA["additionalProperties"] is False
    part = properties["parts"]["items"]
    assert list(part["properties"]) == list(PartFields.__struct_fields__)
    assert part["additionalProperties"] is False
    assert properties["workload"]["enum"] == workload_names()
    assert properties["difficulty"]["enum"] == ["easy", "medium", "hard"]
    parameter = properties["parameters"]["additionalProperties"]
    assert list(parameter["properties"]) == list(ParameterFields.__struct_fields__)
    assert parameter["oneOf"] == [{"required": [kind]} for kind in ("chip", "model", "choice", "range")]
    assert parameter["dependentRequired"] == {"log": ["range"], "step": ["range"], "sig_figs": ["range"]}
    tolerance = part["properties"]["tolerance"]
    assert tolerance["oneOf"] == [{"required": [kind]} for kind in ("relative", "absolute", "sig_figs")]


def test_the_filters_are_the_ones_variants_apply() -> None:
    chip, model = (
        SCHEMA["properties"]["parameters"]["additionalProperties"]["properties"][k] for k in ("chip", "model")
    )
    chip_filters = next(option for option in chip["anyOf"] if option.get("type") == "object")
    model_filters = next(option for option in model["anyOf"] if option.get("type") == "object")
    assert tuple(chip_filters["properties"]) == CHIP_FILTERS
    assert tuple(model_filters["properties"]) == MODEL_FILTERS
    # `has:` names the chip figures a spec may leave out (null or absent).
    has = chip_filters["properties"]["has"]["anyOf"][0]
    assert has["enum"] == [
        "link_bandwidth",
        "link_peer_bandwidth",
        "link_topology",
        "link_domain",
        "host_link_bandwidth",
        "network_bandwidth",
        "network_nics",
        "sm_count",
        "l2_cache",
        "price_per_hour",
        "memory_type",
    ]
