"""Authoring: `new` scaffolds a template that passes `check`, `preview` shows a variant with its
answers and mistake values, and the shipped JSON Schema matches the engine's own lists."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from perfdrill.engine.problems.bank import builtin_root, template_folders
from perfdrill.engine.problems.mistakes import CATALOGUE
from perfdrill.engine.problems.templates import FAMILIES

ROOT = Path(__file__).resolve().parents[1]


def test_new_then_check_passes(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run_cli("new", "kv_cache/long-context", "--into", str(tmp_path))
    assert code == 0, err
    folder = tmp_path / "kv_cache" / "long-context"
    assert str(folder) in out and (folder / "question.yaml").is_file() and (folder / "prompt.md.j2").is_file()
    code, out, _ = run_cli("check", str(folder), "--seeds", "100")
    assert code == 0 and "1 passed, 0 failed" in out


def test_new_refuses_to_overwrite_and_names_bad_ids(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    assert run_cli("new", "matmul/mine", "--into", str(tmp_path))[0] == 0
    (tmp_path / "matmul" / "mine" / "prompt.md.j2").write_text("my edits\n")
    code, _, err = run_cli("new", "matmul/mine", "--into", str(tmp_path))
    assert code == 2 and "already exists" in err
    assert (tmp_path / "matmul" / "mine" / "prompt.md.j2").read_text() == "my edits\n"
    assert "the family before '/' must be lowercase" in run_cli("new", "Mat/x", "--into", str(tmp_path))[2]
    assert "lowercase words" in run_cli("new", "matmul/My Thing", "--into", str(tmp_path))[2]


def test_preview_shows_answers_and_mistake_values(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    from tests.helpers import MATMUL, write_template

    folder = write_template(tmp_path, "matmul/h100-4096", MATMUL, "Multiply on **H100**.\n")
    code, out, err = run_cli("preview", str(folder))
    assert code == 0, err
    # 2·4096³ = 137.4 GFLOP; forgetting the 2 gives 68.72 GFLOP; 138.97 µs at 989 TFLOP/s. Answers
    # show three figures, as the explanation does, and µs never as "us".
    out = out.replace("\u00a0", " ")
    assert "137 GFLOP" in out and "68.7 GFLOP" in out and "139 µs" in out and "139 us" not in out
    assert "Missing the 2 in FLOPs" in out and "explanation" in out


def test_the_shipped_schema_is_the_engine_schema(run_cli) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run_cli("schema")
    assert code == 0
    assert (ROOT / "docs" / "question.schema.json").read_text(encoding="utf-8") == out
    schema = json.loads(out)
    # Any family a template root declares is allowed; the built-in ones are offered as examples.
    assert schema["properties"]["family"]["examples"] == list(FAMILIES)
    assert schema["properties"]["family"]["pattern"] == "^[a-z][a-z0-9_]*$"
    assert schema["properties"]["parts"]["items"]["properties"]["mistakes"]["items"]["enum"] == list(
        CATALOGUE
    )


def test_every_builtin_template_uses_only_schema_fields() -> None:
    schema = json.loads((ROOT / "docs" / "question.schema.json").read_text(encoding="utf-8"))
    part_fields = set(schema["properties"]["parts"]["items"]["properties"])
    for folder in template_folders(builtin_root()):
        data = yaml.safe_load((folder / "question.yaml").read_text(encoding="utf-8"))
        assert set(data) <= set(schema["properties"]), folder
        assert set(schema["required"]) <= set(data), folder
        for part in data["parts"]:
            assert set(part) <= part_fields, f"{folder}: {part['name']}"


def test_watch_wakes_on_an_edit(tmp_path: Path) -> None:
    from perfdrill.cli.authoring import changes

    (tmp_path / "question.yaml").write_text("a: 1\n")
    watcher = changes(tmp_path)
    next(watcher)  # the first render happens at once
    (tmp_path / "question.yaml").write_text("a: 2\n# longer now\n")
    next(watcher)  # returns only because the file changed (polling twice a second)


def test_the_guide_covers_every_mistake_family_and_check_command(run_cli) -> None:  # type: ignore[no-untyped-def]
    guide = (ROOT / "docs" / "authoring.md").read_text(encoding="utf-8")
    for mistake_id, mistake in CATALOGUE.items():
        assert f"| `{mistake_id}` | {mistake.title} |" in guide
    for family in FAMILIES:
        assert f"`{family}`" in guide
    code, out, _ = run_cli("quantities", "decode")
    assert code == 0 and "kv_cache_bytes" in out and "[byte]" in out


def test_the_guide_s_worked_example_passes_check(run_cli) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run_cli("check", str(ROOT / "docs" / "examples" / "kv_cache" / "long-context"))
    assert code == 0 and "1 passed, 0 failed" in out


def test_the_guide_s_own_course_example_passes_check_and_explains_its_formulas(run_cli) -> None:  # type: ignore[no-untyped-def]
    """A family of its own, two models, parameters with units and formulas of its own (issue 17)."""
    examples = ROOT / "docs" / "examples"
    code, out, _ = run_cli("check", str(examples), "--seeds", "60")
    assert code == 0 and "2 templates checked over 60 seeds: 2 passed, 0 failed" in out
    from perfdrill.engine.model import load_specs
    from perfdrill.engine.output.markdown import explanation_markdown
    from perfdrill.engine.problems.bank import load_bank
    from perfdrill.engine.problems.generation import generate

    bank = load_bank([examples])
    assert bank.families["serving_lab"].title == "Serving lab"
    problem = generate(bank.get("serving_lab/speculative-draft"), 3, load_specs())
    text = explanation_markdown(problem).replace("\u00a0", " ")
    assert "*With the draft model Qwen2.5 7B:*" in text
    assert text.index("**(c)**") < text.index("**(d)**")  # each part in the order asked (issue 21)
    # The guide quotes this seed's steps; each is worked by hand here. (1 - 0.9^7) / 0.1 = 5.217;
    # 16,384 tokens in pages of 32 tokens are 512 pages.
    assert (
        "tokens per round = (1 − alpha^(k + 1)) ÷ (1 − alpha) = (1 − 0.9^(6 + 1)) ÷ (1 − 0.9) = 5.22" in text
    )
    assert "⌈context ÷ page⌉ = ⌈16,384 tokens ÷ 32⌉ = **512**" in text
    guide = (ROOT / "docs" / "authoring.md").read_text(encoding="utf-8")
    assert (
        "- tokens per round = (1 − alpha^(k + 1)) ÷ (1 − alpha) = (1 − 0.9^(6 + 1)) ÷ (1 − 0.9) = 5.22"
        in guide
    )
    assert "⌈context ÷ page⌉ = ⌈16,384 tokens ÷ 32⌉ = 512" in guide
