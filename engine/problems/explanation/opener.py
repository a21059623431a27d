"""The opener: each part's question in its own words, followed by its answer."""

from __future__ import annotations

import re

from perfdrill.engine.problems.explanation.model import letter
from perfdrill.engine.problems.templates import Template


def opener(template: Template, questions: tuple[str, ...], answers: tuple[str, ...]) -> str:
    """ "(a) What is the ridge point …? 295 FLOP/B. (b) Is the kernel …? Memory." — the rendered
    part prompts, each answered as the key answers it, so a reader has the result before the
    working."""
    said = []
    for index, (question, answer) in enumerate(zip(questions, answers, strict=True)):
        question = re.sub(r"[ \t\n]+", " ", question).strip()  # never the no-break space of 4,096 tokens
        ending = "" if question.endswith(("?", ".", ":")) else ":"
        answer = answer.rstrip(".")
        first = answer.split(" ")[0]
        if (
            len(first) > 1 and first.replace("-", "").rstrip(":").isalpha()
        ):  # "Memory.", but "m = 128" keeps its symbol
            answer = answer[:1].upper() + answer[1:]
        said.append(f"({letter(index)}) {question}{ending} {answer}.")
    return " ".join(said)
