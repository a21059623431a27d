"""What screens ask of the app. Screens post these; the app owns the session and answers them."""

from __future__ import annotations

from collections.abc import Mapping

from textual.message import Message

from perfdrill.engine.practice import Plan
from perfdrill.engine.problems import Problem


class StartSession(Message):
    def __init__(self, plan: Plan) -> None:
        super().__init__()
        self.plan = plan


class ResumeSession(Message):
    pass


class StartReview(Message):
    """Practise today's review queue: due templates, then new ones."""


class ShowProgress(Message):
    pass


class Submitted(Message):
    """Every part parsed; grade and save the try."""

    def __init__(
        self, problem: Problem, answers: Mapping[str, str], hints: int, started: float, note: str = ""
    ) -> None:
        super().__init__()
        self.problem = problem
        self.answers = dict(answers)
        self.hints = hints
        self.started = started
        self.note = note  # an interview's optional "your reasoning"


class TryAgain(Message):
    """The same numbers again, before the answer is shown."""

    def __init__(self, problem: Problem, answers: Mapping[str, str], hints: int) -> None:
        super().__init__()
        self.problem = problem
        self.answers = dict(answers)
        self.hints = hints


class Revealed(Message):
    """The answer is on screen: the question is over."""


class NextQuestion(Message):
    pass


class FreshVariant(Message):
    def __init__(self, problem: Problem) -> None:
        super().__init__()
        self.problem = problem


class EndSession(Message):
    """Confirmed: leave the session here; it can be continued later."""


class SpecsToggled(Message):
    def __init__(self, visible: bool) -> None:
        super().__init__()
        self.visible = visible


class BackToStart(Message):
    pass


class StartInterview(Message):
    """A mock interview from `seed` (None: a fresh one)."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__()
        self.seed = seed
