"""What an instructor can now write (issue 17): a family of their own, two models or two chips in
one question, parameters with units, `given` in a scenario and in another unit, and their own
formulas worked out in the explanation. Every expected value is derived by hand in the test from
published figures (model cards, datasheets), never by the engine under test.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from perfdrill.engine.model import load_specs
from perfdrill.engine.output.markdown import explanation_markdown
from perfdrill.engine.problems.bank import load_bank, load_folders
from perfdrill.engine.problems.generation import generate
from tests.helpers import write_template

SPECS = load_specs()

# Speculative decoding on 4 × H100 SXM (3.35 TB/s each: 13.4 TB/s), batch 1, 4,096 tokens of context.
# Llama 3.1 70B: 70.6B parameters (Meta's model card) = 141.2 GB in bf16; KV cache 2·80 layers·8 KV
# heads·128·2 B = 327,680 B = 320 KiB per token, 1.342 GB for 4,096 tokens: 142.5 GB a step, 10.64 ms.
# Llama 3.1 8B: 8.03B parameters = 16.06 GB; KV 2·32·8·128·2 B = 131,072 B = 128 KiB per token,
# 0.537 GB: 16.60 GB a step, 1.239 ms. Both are memory-bound at batch 1.
# Leviathan et al. 2023 (eq. 1): k = 4 drafts accepted with probability 0.8 yield
# (1 - 0.8^5) / (1 - 0.8) = 3.3616 tokens a round, shown as 3.36; a round costs 4 draft steps and
# one target step, so the speed-up is 3.36 · 10.64 / (4 · 1.239 + 10.64) = 2.29.
SPECULATIVE = """
id: serving_lab/spec
title: Speculative decoding, fixed
family: serving_lab
difficulty: hard
workload: decode
parameters:
  chip: {chip: {ids: [h100-sxm]}}
  target: {model: {ids: [llama-3.1-70b]}}
  draft: {model: {ids: [llama-3.1-8b]}}
  context: {choice: [4096], unit: token}
  page: {choice: [16], unit: token}
  k: {choice: [4]}
  alpha: {choice: [0.8]}
scenario: {chip: chip, model: target, chips: 4, dtype: bf16}
inputs: {batch: 1, context: context}
scenarios:
  drafting: {model: draft}
derived:
  tokens_per_round: {value: (1 - alpha**(k + 1)) / (1 - alpha), sig_figs: 3}
  speedup: {value: tokens_per_round * runtime / (k * drafting.runtime + runtime), sig_figs: 3}
  block: {value: 16, unit: KiB, sig_figs: 2}
parts:
  - {name: target_step, kind: numeric, prompt: Target step?, answer: runtime, unit: ms}
  - {name: draft_step, kind: numeric, prompt: Draft step?, answer: drafting.runtime, unit: ms}
  - {name: speedup, kind: numeric, prompt: Speed-up?, answer: speedup, unit: "1"}
  - {name: tokens, kind: numeric, prompt: Tokens?, answer: (1 - alpha**(k + 1)) / (1 - alpha), unit: "1"}
  - {name: pages, kind: numeric, prompt: Pages?, answer: ceil(context / page), unit: "1"}
  - {name: block_bytes, kind: numeric, prompt: Block?, answer: block, unit: B}
"""
SPECULATIVE_PROMPT = """\
{{ target.name }} and {{ draft.name }}: {{ given.kv_bytes_per_token | qty('KiB/token') }} and \
{{ qty(given.drafting.kv_bytes_per_token, 'KiB/token') }}; steps of {{ given.runtime }} and \
{{ given.drafting.runtime }}; {{ given.context }} in pages of {{ given.page }} ({{ page }}); \
blocks of {{ given.block }}; the cache is {{ given.kv_cache_bytes | qty('GiB') }}.
"""


def _family(root: Path, family: str, title: str) -> None:
    (root / family).mkdir(parents=True, exist_ok=True)
    (root / family / "family.yaml").write_text(f"title: {title}\ndescription: Ours.\n", encoding="utf-8")


@pytest.fixture(scope="module")
def speculative(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("root")
    _family(root, "serving_lab", "Serving lab")
    folder = write_template(root, "serving_lab/spec", SPECULATIVE, SPECULATIVE_PROMPT)
    (template,) = load_folders([folder], root)
    return generate(template, 0, SPECS)


def test_two_models_in_one_question(speculative) -> None:  # type: ignore[no-untyped-def]
    target, draft = speculative.part("target_step").value, speculative.part("draft_step").value
    assert target == pytest.approx(10.64, rel=0.005) and draft == pytest.approx(1.239, rel=0.005)
    assert speculative.part("tokens").value == pytest.approx(3.3616, rel=1e-9)
    assert speculative.part("speedup").value == pytest.approx(2.29, abs=0.01)
    assert [m.id for m in speculative.models] == ["llama-3.1-70b", "llama-3.1-8b"]
    from perfdrill.engine.problems.roofline_view import what_if_names

    assert what_if_names(speculative.variant) == {
        "drafting": "what-if: the draft model Llama 3.1 8B"
    }  # plots


def test_given_shows_scenarios_and_converts_units(speculative) -> None:  # type: ignore[no-untyped-def]
    prompt = speculative.prompt.replace("\u00a0", " ")  # numbers are tied to units by no-break spaces
    assert prompt.startswith("Llama 3.1 70B and Llama 3.1 8B: 320 KiB/token and 128 KiB/token; steps of")
    shown = re.search(r"steps of ([\d.]+) ms and ([\d.]+) ms", prompt)
    assert (
        shown and float(shown[1]) == pytest.approx(10.6, abs=0.05) and float(shown[2]) == pytest.approx(1.24)
    )
    # 4,096 tokens × 320 KiB = 1,280 MiB = 1.25 GiB
    assert "4,096 tokens in pages of 16 tokens (16); blocks of 16 KiB; the cache is 1.25 GiB." in prompt


def test_parameters_and_derived_values_carry_units(speculative) -> None:  # type: ignore[no-untyped-def]
    assert speculative.part("pages").value == 256  # ceil(4,096 tokens / 16 tokens)
    assert speculative.part("block_bytes").value == 16 * 1024  # 16 KiB attached to a plain 16


def test_the_question_s_own_formulas_are_worked_steps(speculative) -> None:  # type: ignore[no-untyped-def]
    text = explanation_markdown(speculative).replace("\u00a0", " ")
    assert "*With the draft model Llama 3.1 8B:*" in text
    # (1 - 0.8^5) / 0.2 = 3.3616 tokens per round; 3.36 × 10.6 / (4 × 1.24 + 10.6) = 2.29.
    assert (
        "- tokens per round = (1 − alpha^(k + 1)) ÷ (1 − alpha) = (1 − 0.8^(4 + 1)) ÷ (1 − 0.8) = 3.36"
        in text
    )
    assert (
        "**(c)** speedup = tokens per round × runtime ÷ (k × runtime with the draft model Llama 3.1 8B + "
        "runtime) = 3.36 × 10.6 ms ÷ (4 × 1.24 ms + 10.6 ms) = **2.29**" in text
    )
    assert "**(e)** ⌈context ÷ page⌉ = ⌈4,096 tokens ÷ 16⌉ = **256**" in text


# "Which chip?": the same 4096³ bf16 matmul on an H100 SXM and on an A100 80GB. 2·4096³ =
# 137.4 GFLOP: 138.97 µs at 989 TFLOP/s and 440.51 µs at 312 TFLOP/s (both compute-bound: the
# 100.7 MB moved take 30 µs and 49 µs), so the A100 takes 989/312 = 3.17 times as long.
WHICH_CHIP = """
id: matmul/which-chip
title: Which chip
family: matmul
difficulty: easy
workload: matmul
parameters:
  chip: {chip: {ids: [h100-sxm]}}
  other: {chip: {ids: [a100-80gb]}}
scenario: {chip: chip, dtype: bf16}
scenarios:
  on_a100: {chip: other}
inputs: {m: 4096, k: 4096, n: 4096, activation_bytes: 2, weight_bytes_per_param: 2}
parts:
  - {name: ratio, kind: numeric, prompt: Ratio?, answer: on_a100.runtime / runtime, unit: "1"}
  - {name: bound, kind: choice, prompt: Bound there?, answer: on_a100.bound}
"""


def test_a_second_chip_in_one_question(tmp_path: Path) -> None:
    prompt = "{{ chip.name }} or {{ other.name }}: {{ given.runtime }} or {{ given.on_a100.runtime }}.\n"
    (template,) = load_folders([write_template(tmp_path, "matmul/which-chip", WHICH_CHIP, prompt)], tmp_path)
    problem = generate(template, 0, SPECS)
    assert problem.part("ratio").value == pytest.approx(989 / 312, rel=1e-3)
    assert problem.part("bound").correct == ("compute",)
    assert (
        problem.prompt.replace("\u00a0", " ")
        == "NVIDIA H100 SXM5 80GB or NVIDIA A100 SXM4 80GB: 139 µs or 441 µs."
    )
    assert "*With the other chip NVIDIA A100 SXM4 80GB:*" in explanation_markdown(problem)


# A ring all-reduce of 1 GB over 4 V100s' NVLink 2 (150 GB/s one way): 2·(3/4)·1 GB / 150 GB/s
# = 10 ms. A V100 has no bf16 peak, and an all-reduce needs none.
COLLECTIVE = """
id: parallelism/v100-ring
title: A V100 ring
family: parallelism
difficulty: easy
workload: collective
parameters:
  chip: {chip: {ids: [v100-sxm]}}
  share: {range: [0.6, 0.9], step: 0.05}
scenario: {chip: chip}
inputs: {participants: 4, collective_bytes: 1e9}
parts:
  - {name: time, kind: numeric, prompt: "All-reduce time ({{ share }})?", answer: all_reduce_time, unit: ms}
"""


def test_a_collective_runs_on_a_chip_without_a_bf16_peak(tmp_path: Path) -> None:
    (template,) = load_folders([write_template(tmp_path, "parallelism/v100-ring", COLLECTIVE)], tmp_path)
    shares = set()
    for seed in range(40):
        problem = generate(template, seed, SPECS)
        assert problem.part("time").value == pytest.approx(10.0)
        shares.add(re.search(r"\((.*)\)", problem.part("time").prompt)[1])  # type: ignore[index]
    # A step of 0.05 draws 0.6, 0.65, … 0.9 as written: never 0.6000000000000001.
    assert shares <= {"0.6", "0.65", "0.7", "0.75", "0.8", "0.85", "0.9"} and len(shares) >= 5


def test_a_family_of_your_own_joins_the_bank(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "course"
    code, out, err = run_cli("new", "networking/ring-time", "--into", str(root))
    assert code == 0, err
    assert f"created {root / 'networking' / 'family.yaml'}: a new family" in out
    code, out, _ = run_cli("check", str(root))
    assert code == 0 and "1 passed, 0 failed" in out
    (root / "networking" / "family.yaml").write_text(
        "title: Networking\ndescription: Links and collectives in our cluster.\n", encoding="utf-8"
    )
    bank = load_bank([root])
    assert bank.families["networking"].title == "Networking" and not bank.families["networking"].builtin
    assert bank.templates["networking/ring-time"].family_title == "Networking"
    code, out, _ = run_cli("list", "--questions", str(root))
    assert code == 0 and "networking/ring-time" in out
    assert "your family networking: Networking — Links and collectives in our cluster." in out
    code, out, err = run_cli("generate", "--questions", str(root), "--family", "networking", "--count", "2")
    assert code == 0, err
    assert out.count("*Networking · easy · ") == 2  # then the points and the problem code
    code, _, err = run_cli("generate", "--family", "networking")
    assert code == 2 and "unknown family 'networking'; families: runtime_check," in err


def test_a_new_family_needs_its_declaration(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    write_template(tmp_path, "networking/x", WHICH_CHIP.replace("matmul/which-chip", "networking/x").replace(
        "family: matmul", "family: networking"
    ))  # fmt: skip
    code, out, _ = run_cli("check", str(tmp_path))
    assert code == 1
    assert (
        f"{tmp_path.name}/networking/x/question.yaml:3: family: unknown family 'networking': declare it in "
        "networking/family.yaml (title, description)" in out
    )
    _family(tmp_path, "matmul", "Mine")  # a built-in family is not declared again
    write_template(tmp_path, "matmul/y", WHICH_CHIP.replace("matmul/which-chip", "matmul/y"))
    code, out, _ = run_cli("check", str(tmp_path / "matmul"))
    assert out.startswith(
        "matmul/family.yaml: 'matmul' is a built-in family: its folder needs no family.yaml"
    )


def test_a_set_from_chosen_questions_or_only_yours(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    write_template(tmp_path, "matmul/which-chip", WHICH_CHIP)
    chosen = ("--question", "matmul/gemv", "--question", "roofline/ridge-point")
    code, out, err = run_cli("generate", *chosen, "--count", "4", "--format", "json")
    assert code == 0, err
    assert [item["question"] for item in json.loads(out)] and {i["question"] for i in json.loads(out)} == {
        "matmul/gemv", "roofline/ridge-point",
    }  # fmt: skip
    code, out, err = run_cli(
        "generate", "--questions", str(tmp_path), "--no-builtin", "--count", "3", "--format", "json"
    )
    assert code == 0, err
    assert [item["question"] for item in json.loads(out)] == ["matmul/which-chip"] * 3
    code, _, err = run_cli("generate", "--question", "matmul/gemw")
    assert code == 2 and "unknown question 'matmul/gemw'; did you mean matmul/gemv" in err
    code, _, err = run_cli("generate", "--no-builtin")
    assert code == 2 and "no question of your own" in err


async def test_the_app_offers_a_family_of_your_own(tmp_path: Path) -> None:
    from textual.widgets import SelectionList

    from perfdrill.engine.practice.progress import ProgressStore
    from perfdrill.tui.app import PerfdrillApp
    from perfdrill.tui.screens.start import StartScreen

    _family(tmp_path, "networking", "Networking")
    write_template(tmp_path, "networking/x", WHICH_CHIP.replace("matmul/which-chip", "networking/x").replace(
        "family: matmul", "family: networking"
    ))  # fmt: skip
    app = PerfdrillApp(ProgressStore(tmp_path / "progress.sqlite3"), questions=[tmp_path], clock=lambda: 0.0)
    async with app.run_test() as pilot:
        for _ in range(300):
            if isinstance(app.screen, StartScreen) and app.screen.ready:
                break
            await pilot.pause(0.05)
        picker = app.screen.query_one("#families", SelectionList)
        offered = {picker.get_option_at_index(i).value for i in range(picker.option_count)}
        assert "networking" in offered and "kv_cache" in offered
