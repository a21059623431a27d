"""Practice plans: rounds that cover every template, chip and model restrictions, stored plans."""

from __future__ import annotations

from collections import Counter

import pytest

from perfdrill.engine.errors import PerfdrillError
from perfdrill.engine.model.specs import load_specs
from perfdrill.engine.practice.plan import Plan, Practice, set_item
from perfdrill.engine.problems.bank import load_bank


def test_each_round_asks_every_template_once_and_endless_keeps_going() -> None:
    bank, specs = load_bank(), load_specs()
    practice = Practice(Plan(families=("roofline", "matmul"), count=None, seed=11), bank, specs)
    size = len(practice.pool)
    assert size == 6  # 3 roofline + 3 matmul templates
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
