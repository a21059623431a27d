"""Issue 22 §1: an architecture flag given with `--model` changes every result that rests on it, or
is refused with the reason; it is never echoed in the JSON and left unused.

The property: for each flag and each built-in model, `--model M --FLAG v` gives the same results as
the same architecture written out (a) as flags alone and (b) as a model YAML with the field changed.
"""

import json
from pathlib import Path

import pytest
import yaml

MODELS_YAML = Path(__file__).parents[1] / "specs" / "models.yaml"
ENTRIES: dict[str, dict] = yaml.safe_load(MODELS_YAML.read_text())["models"]
STATED = ("layers", "d_model", "heads", "kv_heads", "head_dim", "ffn", "vocab")
OPTIONAL = (
    "experts",
    "experts_per_token",
    "shared_experts",
    "dense_layers",
    "dense_ffn",
    "position_embeddings",
)
# Every result that rests on the architecture: the model's own counts, and a decode step with
# attention FLOPs (layers x d_model x context), its KV cache and memory.
RUNS = (
    ["calc", "model"],
    ["calc", "decode", "--chip", "h100-sxm", "--batch", "8", "--context", "4096", "--attention-flops"],
)


def _flag(field: str) -> str:
    return "--" + field.replace("_", "-")


def _changed(entry: dict, field: str) -> object:
    """A different, valid value for `field` of this model."""
    heads, kv_heads = entry["heads"], entry["kv_heads"]
    return {
        "layers": max(entry["layers"] // 2, entry.get("dense_layers", 0)),
        "d_model": entry["d_model"] * 2,
        "heads": heads * 2,
        "kv_heads": heads if kv_heads != heads else heads // 2,
        "head_dim": entry["head_dim"] * 2,
        "ffn": entry["ffn"] // 2,
        "vocab": entry["vocab"] + 1000,
        "experts": entry.get("experts", 1) * 2,
        "experts_per_token": 1 if entry.get("experts_per_token", 1) != 1 else 2,
        "shared_experts": entry.get("shared_experts", 0) + 1,
        "dense_layers": entry["layers"] // 2,
        "dense_ffn": entry["ffn"] * 2,
        "position_embeddings": entry.get("position_embeddings", 0) + 512,
        "gated_mlp": not entry["gated_mlp"],
        "tied_embeddings": True,
    }[field]


def _override_args(field: str, value: object) -> list[str]:
    if field == "gated_mlp":
        return ["--mlp", "gated" if value else "plain"]
    if field == "tied_embeddings":
        return ["--tied-embeddings"]
    return [_flag(field), str(value)]


def _as_flags(entry: dict) -> list[str] | None:
    """The architecture as flags alone; None where flags cannot state it (MLA's given attention)."""
    if "attention_params_per_layer" in entry or "kv_elements_per_token_per_layer" in entry:
        return None
    args = [arg for field in STATED for arg in (_flag(field), str(entry[field]))]
    args += [arg for field in OPTIONAL if field in entry for arg in (_flag(field), str(entry[field]))]
    args += ["--mlp", "gated" if entry["gated_mlp"] else "plain"]
    return args + (["--tied-embeddings"] if entry["tied_embeddings"] else [])


def _results(run_cli, *args: str) -> tuple[int, dict | str]:
    code, out, err = run_cli(*args, "--json")
    return code, (json.loads(out)["results"] if code == 0 else err)


CASES = [
    (model, field)
    for model, entry in ENTRIES.items()
    for field in (*STATED, *OPTIONAL, "gated_mlp", "tied_embeddings")
    if not (field == "tied_embeddings" and entry["tied_embeddings"])
]


@pytest.mark.parametrize(("model", "field"), CASES)
def test_a_flag_with_model_equals_the_architecture_written_out(run_cli, tmp_path, model, field) -> None:
    entry = ENTRIES[model]
    value = _changed(entry, field)
    edited = {k: v for k, v in entry.items() if not k.startswith("published_")}
    edited[field] = value
    (tmp_path / "edited.yaml").write_text(yaml.safe_dump({"models": {"edited": edited}}))
    flags = _as_flags(entry)
    for run in RUNS:
        code, by_override = _results(run_cli, *run, "--model", model, *_override_args(field, value))
        if code != 0:  # refused: in one line that says why, and never for a flag stated by flags too
            assert code == 2
            assert any(why in by_override for why in ("cannot apply to", "must not exceed", "exceed the")), (
                by_override
            )
            assert flags is None or field in ("experts", "experts_per_token"), by_override
            return
        yaml_code, by_yaml = _results(run_cli, *run, "--specs", str(tmp_path), "--model", "edited")
        assert yaml_code == 0, by_yaml
        assert by_override == by_yaml
        if flags is not None:
            written = [*flags]
            replaced = _override_args(field, value)
            if replaced[0] in written and len(replaced) == 2:
                written[written.index(replaced[0]) + 1] = replaced[1]
            elif replaced[0] in written:  # --mlp
                written[written.index("--mlp") + 1] = replaced[1]
            else:
                written += replaced
            flag_code, by_flags = _results(run_cli, *run, *written)
            assert flag_code == 0, by_flags
            assert by_override == by_flags


def test_the_issue_s_ffn_override_is_applied(run_cli) -> None:
    """Llama 2 7B with --ffn 5504, by hand: embeddings 2 x 4096 x 32000 + 4096 (final norm)
    = 262,148,096; a layer 4 x 4096^2 (attention) + 3 x 4096 x 5504 (MLP) + 2 x 4096 (norms)
    = 134,750,208, x 32 = 4,312,006,656; total 4,574,154,752 (the issue's figure by flags)."""
    code, results = _results(run_cli, "calc", "model", "--model", "llama-2-7b", "--ffn", "5504")
    assert code == 0
    assert results["params"]["value"] == 4_574_154_752


def test_fewer_layers_leave_no_negative_moe_term(run_cli) -> None:
    """--layers 16 on a dense model: all 16 layers dense, none MoE (it used to explain -16 x (...))."""
    code, out, err = run_cli("calc", "model", "--model", "llama-2-7b", "--layers", "16", "--explain")
    assert code == 0, err
    assert "MoE layers =" not in out and "-16" not in out and "−16" not in out
    # by hand: 262,148,096 + 16 x (67,108,864 + 3 x 4096 x 11008 + 8192) = 3,500,281,856
    code, results = _results(run_cli, "calc", "model", "--model", "llama-2-7b", "--layers", "16")
    assert results["params"]["value"] == 3_500_281_856


@pytest.mark.parametrize("flag", ["--heads", "--d-model", "--kv-heads", "--head-dim"])
def test_a_flag_the_mla_spec_overrules_is_refused_with_why(run_cli, flag) -> None:
    code, _out, err = run_cli("calc", "model", "--model", "deepseek-v3", flag, "64")
    assert code == 2
    assert f"{flag} cannot apply to deepseek-v3: its spec gives" in err
    assert "directly" in err
