"""Practice plans: rounds that cover every template, chip and model restrictions, stored plans, and
references that regenerate a restricted variant from the command line."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from perfdrill.engine.errors import PerfdrillError
from perfdrill.engine.model import load_specs
from perfdrill.engine.practice.plan import Plan, Practice, question_items, set_item
from perfdrill.engine.problems.bank import load_bank


def test_each_round_asks_every_template_once_and_endless_keeps_going() -> None:
    bank, specs = load_bank(), load_specs()
    practice = Practice(Plan(families=("roofline", "matmul"), count=None, seed=11), bank, specs)
    size = len(practice.pool)
    assert size == 9  # 5 roofline + 4 matmul templates
    for round_number in range(3):
        ids = [set_item(practice.pool, 11, round_number * size + i)[0].id for i in range(size)]
        assert sorted(ids) == sorted(t.id for t in practice.pool)
    assert practice.plan.total is None
    assert practice.problem(5 * size + 2).id in {t.id for t in practice.pool}


def test_restricting_chips_and_models_only_draws_those() -> None:
    practice = Practice(
        Plan(chips=("l4",), models=("llama-3.1-8b",), count=40, seed=2), load_bank(), load_specs()
    )
    drawn = Counter()
    for index in range(40):
        problem = practice.problem(index)
        drawn.update(c.id for c in problem.chips)
        drawn.update(m.id for m in problem.models)
    assert set(drawn) <= {"l4", "llama-3.1-8b"} and drawn["l4"] > 0 and drawn["llama-3.1-8b"] > 0


def test_an_unknown_chip_is_an_error_naming_the_known_ones() -> None:
    with pytest.raises(PerfdrillError) as caught:
        Practice(Plan(chips=("h100",)), load_bank(), load_specs())
    assert "unknown chip 'h100'" in caught.value.one_line() and "h100-sxm" in caught.value.one_line()


def test_a_plan_survives_its_json_form() -> None:
    plan = Plan(("kv_cache",), "hard", None, ("h200",), ("mixtral-8x7b",), 99, (("moe/critical-batch", 5),))
    assert Plan.from_json(plan.as_json()) == plan


def test_a_restricted_variant_is_regenerated_from_its_shown_reference(run_cli) -> None:  # type: ignore[no-untyped-def]
    """The issue's case: fits-sweep #648145 drawn on L4 with Llama 3.1 8B came back on A100 40GB with
    GPT-2 from `perfdrill preview`/`grade`. The reference now carries the restriction."""
    plan = Plan(items=(("performance_model/fits-sweep", 648145),), chips=("l4",), models=("llama-3.1-8b",))
    problem = Practice(plan, load_bank(), load_specs()).problem(0)
    assert [c.id for c in problem.chips] == ["l4"] and [m.id for m in problem.models] == ["llama-3.1-8b"]
    reference = plan.reference(problem.id, problem.seed)
    assert reference == "performance_model/fits-sweep #648145 --chip l4 --model llama-3.1-8b"
    flags = reference.split(" #")[1].split()[1:]  # what a person copies after the seed
    answers = [f"{part.name}={part.shown_answer}" for part in problem.parts]
    code, out, err = run_cli(
        "grade", "--question", problem.id, "--seed", "648145", *flags,
        *(arg for answer in answers for arg in ("--answer", answer)), "--json",
    )  # fmt: skip
    assert code == 0 and json.loads(out)["score"] == 1.0, err
    code, out, _ = run_cli("preview", problem.id, "--seed", "648145", *flags)
    assert code == 0 and "L4" in out and "Llama 3.1 8B" in out


def test_question_with_count_asks_that_many_variants(monkeypatch: pytest.MonkeyPatch, run_cli) -> None:  # type: ignore[no-untyped-def]
    """`--question X --count 8` used to run one question and ignore the count."""
    from perfdrill.cli import practice

    asked: dict[str, Plan] = {}
    monkeypatch.setattr(practice, "_needs_terminal", lambda: None)
    monkeypatch.setattr(practice, "_run_app", lambda store, args, **options: asked.update(options) or 0)
    assert run_cli("practice", "--question", "matmul/gemv", "--count", "8", "--seed", "4")[0] == 0
    plan = asked["plan"]
    assert plan.total == 8 and {q for q, _ in plan.items} == {"matmul/gemv"}
    assert len({seed for _, seed in plan.items}) == 8  # eight different variants
    run_cli("practice", "--question", "matmul/gemv", "--question", "roofline/attainable")
    assert [q for q, _ in asked["plan"].items] == ["matmul/gemv", "roofline/attainable"]  # no count: one each
    assert question_items(["a", "b"], 3, 1)[2][0] == "a"  # they take turns


def test_a_review_plan_survives_its_json_form() -> None:
    plan = Plan(items=(("roofline/attainable", 12),), seed=5, review=True)
    assert Plan.from_json(plan.as_json()) == plan
    assert (
        Plan.from_json({"items": [["roofline/attainable", 12]], "seed": 5}).review is False
    )  # stored before
