"""The mock interview (issue 24 §3): the chain a seed builds, follow-ups as template data, the
scorecard, the clock and the reasoning note, and `stats --json` listing interviews."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import Input, Static

from perfdrill.engine.errors import TemplateError
from perfdrill.engine.model import load_specs
from perfdrill.engine.practice import Plan, ProgressStore
from perfdrill.engine.practice.interview import QUESTIONS, interview_plan, scorecard
from perfdrill.engine.practice.records import Attempt
from perfdrill.engine.problems import generate, load_bank
from perfdrill.engine.problems.bank import load_folders
from perfdrill.tui.app import PerfdrillApp
from perfdrill.tui.screens.feedback import FeedbackScreen
from perfdrill.tui.screens.question import QuestionScreen
from perfdrill.tui.screens.scorecard import ScorecardScreen
from tests.helpers import write_template
from tests.pilot import screen_text, settle, until, wait_for

BANK = load_bank()
SPECS = load_specs()


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4, 7, 11])
def test_a_seed_builds_one_scenario_of_five_to_eight_chained_questions(seed: int) -> None:
    plan = interview_plan(BANK, SPECS, seed)
    assert plan == interview_plan(BANK, SPECS, seed)  # reproducible
    assert plan.interview and QUESTIONS[0] <= len(plan.items) <= QUESTIONS[1]
    assert len(plan.chips) == 1 and len(plan.models) == 1  # one chip, one model throughout
    for index, ((question, item_seed), follow_up) in enumerate(zip(plan.items, plan.follow_ups, strict=True)):
        if follow_up:  # a follow-up comes after its own question, on the same draw
            assert plan.items[index - 1] == (question, item_seed)
            assert plan.follow_ups[index - 1] in (0, follow_up - 1)


def test_different_seeds_give_different_interviews() -> None:
    assert len({interview_plan(BANK, SPECS, seed).items for seed in range(6)}) > 1


def test_a_follow_up_changes_exactly_its_parameter_and_asks_its_parts() -> None:
    template = BANK.get("kv_cache/max-batch")
    specs = SPECS.only(("h100-sxm",), ("llama-3.1-8b",))
    base = generate(template, 5, specs)
    doubled = generate(template, 5, specs, template.follow_ups[0])  # "The batch doubles."
    params, changed = base.variant.params, doubled.variant.params
    assert changed["batch"] == 2 * params["batch"]
    assert {k: v for k, v in changed.items() if k != "batch"} == {
        k: v for k, v in params.items() if k != "batch"
    }
    assert [p.name for p in doubled.parts] == ["capacity", "limit"]
    assert doubled.prompt.startswith("**The batch doubles.")
    # Twice the sequences share the same free memory: the tokens each can keep halve (±1 for the floor).
    capacity = base.part("capacity").value
    assert capacity is not None and abs(doubled.part("capacity").value - capacity / 2) <= 1  # type: ignore[operator]


FOLLOWED = """
id: matmul/followed
title: A followed matmul
family: matmul
difficulty: easy
workload: matmul
parameters:
  chip: {chip: {ids: [h100-sxm]}}
  n: {choice: [1024, 2048]}
scenario: {chip: chip, dtype: bf16}
inputs: {m: 4096, k: 4096, n: n, activation_bytes: 2, weight_bytes_per_param: 2}
parts:
  - {name: flops, kind: numeric, prompt: FLOPs?, answer: flops, unit: GFLOP}
  - {name: bound, kind: choice, prompt: Bound?, answer: bound}
follow_ups:
  - say: The output doubles.
    times: {n: 2}
    ask: [flops]
"""


def test_follow_ups_are_template_data(tmp_path: Path) -> None:
    folder = write_template(tmp_path, "matmul/followed", FOLLOWED)
    (template,) = load_folders([folder], tmp_path)
    (follow_up,) = template.follow_ups
    problem = generate(template, 1, SPECS, follow_up)
    n = problem.variant.params["n"]
    assert n in (2048, 4096)  # 1024 or 2048, doubled
    assert problem.part("flops").value == pytest.approx(2 * 4096 * 4096 * n / 1e9)  # 2·m·k·n in GFLOP
    assert [p.name for p in problem.parts] == ["flops"]


@pytest.mark.parametrize(
    ("follow_up", "field", "said"),
    [
        (
            "  - {say: Hm., set: {chip: a100}}",
            "follow_ups[0].set.chip",
            "must name a choice or range parameter",
        ),
        (
            "  - {say: Hm., times: {nope: 2}}",
            "follow_ups[0].times.nope",
            "must name a choice or range parameter",
        ),
        ("  - {say: Hm., times: {n: 2}, ask: [gone]}", "follow_ups[0].ask[0]", "no part 'gone'"),
        ("  - {say: Hm.}", "follow_ups[0]", "give set or times"),
    ],
)
def test_a_bad_follow_up_is_one_located_error(tmp_path: Path, follow_up: str, field: str, said: str) -> None:
    text = FOLLOWED.split("follow_ups:")[0] + "follow_ups:\n" + follow_up + "\n"
    folder = write_template(tmp_path, "matmul/followed", text)
    with pytest.raises(TemplateError) as error:
        load_folders([folder], tmp_path)
    assert error.value.field == field and said in error.value.message
    assert error.value.line == 15  # the follow-up's own line in question.yaml


def _attempt(
    position: int, question: str, difficulty: str, statuses: list[str], seconds: float, **extra: object
) -> Attempt:
    parts = {
        f"p{i}": {
            "status": s,
            "score": float(s == "correct"),
            "mistake": extra.get("mistake") if s != "correct" else None,
        }
        for i, s in enumerate(statuses)
    }
    answers = {"p0": "1", **({"#note": extra["note"]} if "note" in extra else {})}
    score = sum(s == "correct" for s in statuses) / len(statuses)
    return Attempt(
        position, question, "Max batch", "kv_cache", difficulty, 1, answers, parts, score, 0, seconds
    )


def test_the_scorecard_as_an_interviewer_writes_it() -> None:
    plan = Plan(items=(("kv_cache/max-batch", 1), ("kv_cache/max-batch", 1)), follow_ups=(0, 1), seed=9,
                chips=("h100-sxm",), models=("llama-3.1-8b",), interview=True)  # fmt: skip
    attempts = [
        # A hard question (target 7:00) in 6:00, all three parts right.
        _attempt(0, "kv_cache/max-batch", "hard", ["correct"] * 3, 360.0, note="cache = free ÷ tokens"),
        # Its follow-up (target 2:30) in 4:00, over 1.5 times the target, one of two right.
        _attempt(
            1, "kv_cache/max-batch", "hard", ["correct", "incorrect"], 240.0, mistake="query-heads-for-kv"
        ),
    ]
    card = scorecard(plan, attempts)
    assert (card.right, card.parts, card.seconds, card.target) == (4, 5, 600.0, 570.0)
    assert card.review == ("kv_cache/max-batch",)
    lines = card.lines()
    assert lines[0] == "Would pass this round: accurate and on time."  # 80% right, 10:00 within 1.25 × 9:30
    assert "Accuracy: 4 of 5 parts right at the first try (80%)." in lines
    assert "Pace: 10:00 against a target of 9:30." in lines
    assert "  2. Max batch (follow-up 1): 1/2 right, 4:00 of 2:30 (slow)" in lines
    assert "Named mistakes: Used query heads for the KV cache (1×)." in lines
    assert card.as_json()["questions"][0]["note"] == "cache = free ÷ tokens"


def _app(tmp_path: Path, clock: list[float], seed: int = 2) -> PerfdrillApp:
    store = ProgressStore(tmp_path / "progress.sqlite3")
    return PerfdrillApp(store, interview=True, interview_seed=seed, clock=lambda: clock[0])


async def test_the_clock_runs_and_hints_are_off(tmp_path: Path) -> None:
    now = [1000.0]
    app = _app(tmp_path, now)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, QuestionScreen)
        screen = app.screen
        assert isinstance(screen, QuestionScreen) and screen.timing is not None
        clock = screen.query_one("#clock", Static)
        target = screen.timing.target
        assert f"0:00 of {target // 60:.0f}:{target % 60:02.0f} for this question" in str(clock.render())
        now[0] += 75.0  # a minute and a quarter later
        screen.tick()
        assert "1:15 of" in str(clock.render()) and "interview 1:15" in str(clock.render())
        now[0] += target  # past the target
        screen.tick()
        assert "over the target" in str(clock.render())
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert screen.hints_shown == 0 and "ctrl+t" not in screen.active_bindings  # no hints, none offered


async def test_an_interview_runs_end_to_end_with_notes_and_a_scorecard(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    now = [0.0]
    app = _app(tmp_path, now)
    plan = interview_plan(BANK, SPECS, 2)
    async with app.run_test(size=(80, 24)) as pilot:
        for index in range(len(plan.items)):
            await until(pilot, lambda: isinstance(app.screen, QuestionScreen), f"question {index + 1}")
            screen = app.screen
            assert isinstance(screen, QuestionScreen)
            assert f"{index + 1}/{len(plan.items)}" in screen.progress
            for part in screen.problem.parts:  # every part right
                screen.query_one(f"#answer-{part.name}", Input).value = part.shown_answer
            screen.query_one("#reasoning", Input).value = f"note {index + 1}"
            now[0] += 60.0  # a minute a question
            await pilot.press("ctrl+s")
            await wait_for(pilot, FeedbackScreen)
            assert "r" not in app.screen.active_bindings or not app.screen.check_action("retry", ())
            await pilot.press("n")
        await wait_for(pilot, ScorecardScreen)
        text = screen_text(pilot)
        assert "Would pass this round: accurate and on time." in text
        assert "note 1" in text and "perfdrill interview --seed 2" in text
    session = app.store.session(1)
    assert [a.answers["#note"] for a in session.attempts] == [f"note {i + 1}" for i in range(len(plan.items))]
    assert all(a.try_number == 1 for a in session.attempts)
    assert set(app.store.cards()) == {question for question, _ in plan.items}  # FSRS saw every template


def test_stats_json_lists_interviews(run_cli) -> None:  # type: ignore[no-untyped-def]
    plan = interview_plan(BANK, SPECS, 4)
    store = ProgressStore()  # the default store, under the test sandbox's XDG_DATA_HOME
    session = store.start_session(plan)
    store.record_attempt(
        session, Attempt(0, plan.items[0][0], "t", "f", "easy", plan.items[0][1], {"#note": "hm"},
                         {"a": {"status": "correct", "score": 1.0, "mistake": None}}, 1.0, 0, 120.0), 3,
    )  # fmt: skip
    store.close()
    code, out, _ = run_cli("stats", "--json")
    assert code == 0
    (interview,) = [i for i in json.loads(out)["interviews"] if i["session"] == session]
    assert (
        interview["seed"] == 4
        and interview["chip"] == plan.chips[0]
        and interview["planned"] == len(plan.items)
    )
    assert interview["parts_right"] == 1 and interview["questions"][0]["note"] == "hm"
    assert interview["verdict"] == "Stopped early: the round is not complete."


def test_check_names_a_follow_up_no_variant_can_take(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    # n is 1024 or 2048 and must stay at most 2048: four times n never fits.
    never = FOLLOWED.replace("follow_ups:", "constraints:\n  - n <= 2048\nfollow_ups:").replace(
        "{n: 2}", "{n: 4}"
    )
    write_template(tmp_path, "matmul/followed", never)
    code, out, _ = run_cli("check", str(tmp_path), "--seeds", "3")
    assert code == 1
    assert "matmul/followed/question.yaml:17: follow_ups[0]: applies to none of 3 variants" in out


async def test_an_interrupted_interview_continues_at_its_next_question(tmp_path: Path) -> None:
    now = [0.0]
    app = _app(tmp_path, now)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, QuestionScreen)
        for field in app.screen.query(Input):
            field.value = "1"  # wrong: in an interview the question is over all the same
        await pilot.press("ctrl+s")
        await wait_for(pilot, FeedbackScreen)
        await until(pilot, lambda: app.store.session(1).attempts, "the answer saved")
        await pilot.press("ctrl+q")
    resumed = PerfdrillApp(ProgressStore(tmp_path / "progress.sqlite3"), resume=True, clock=lambda: now[0])
    async with resumed.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, QuestionScreen)
        screen = resumed.screen
        assert isinstance(screen, QuestionScreen)
        assert not screen.first_try and screen.timing is not None and "2/" in screen.progress
