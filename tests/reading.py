"""What a reader sees of a problem, and the rules every number and word in it must follow.

Shared by the property tests over generated problems: prompts, hints and explanations must carry
no identifier, no exponent notation, no "us", and every figure in the one formatter's grammar.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from perfdrill.engine.model.numbers import FIGURE
from perfdrill.engine.problems.generation import Problem

CODE = re.compile(r"```.*?```|`[^`]*`", re.S)  # code is quoted as written, identifiers and all
SNAKE_CASE = re.compile(r"\b[a-z][a-z0-9]*_[a-z0-9_]*[a-z0-9]\b")
EXPONENT = re.compile(r"\d(?:\.\d+)?[eE][+-]?\d+")
MICRO_AS_US = re.compile(r"(?:\d|\[)\s*us\b")
# A figure in running text: digits not glued to letters before them (fp32, H100, Llama 3.1 8B
# are names, not figures), with the separators, decimals and power of ten the formatter writes.
NUMBER = re.compile(r"(?<![\w.\-])[−-]?\d[\d,.]*(?: × 10[⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)?[MBTk]?(?![\w])")
UNIT_AFTER = re.compile(r"(?:[kMGTPE]i?)?(?:B|FLOP|s|B/s|FLOP/s|TOPS)\b|ms\b|µs\b|ns\b|tokens?\b|params?\b")


def prose(text: str) -> str:
    """`text` without its code: what the rules apply to."""
    return CODE.sub(" ", text)


def broken_rules(text: str) -> list[str]:
    """Every place `text` (prose, not code) breaks a rule of how numbers and names are written."""
    found: list[str] = []
    found += [f"identifier {m[0]!r}" for m in SNAKE_CASE.finditer(text)]
    found += [f"exponent notation {m[0]!r}" for m in EXPONENT.finditer(text)]
    found += [
        f"'us' for µs in {text[max(0, m.start() - 10) : m.end() + 5]!r}" for m in MICRO_AS_US.finditer(text)
    ]
    for match in NUMBER.finditer(text):
        figure = match[0].rstrip(".,")
        if not FIGURE.fullmatch(figure):
            found.append(f"figure {figure!r} is not in the formatter's grammar")
        after = text[match.end() : match.end() + 12]
        if after.startswith(" ") and UNIT_AFTER.match(after[1:]):
            found.append(f"a plain space splits {figure + after!r}")
    return found


YEAR = re.compile(r"\((?:19|20)\d\d\)")  # a citation's year, "Korthikanti et al. (2022)"


def readable(problem: Problem) -> Iterator[tuple[str, str]]:
    """(where, text) for everything a reader of `problem` sees as prose, less the names of its
    chips and models (an RTX 4090 is a name, not a figure) and citation years."""
    from perfdrill.engine.output.markdown import explanation_markdown

    names = sorted((spec.name for spec in (*problem.chips, *problem.models)), key=len, reverse=True)

    def plain(text: str) -> str:
        for name in names:
            text = text.replace(name, "NAME")
        return YEAR.sub("(YEAR)", prose(text))

    yield "prompt", plain(problem.prompt)
    for part in problem.parts:
        yield f"part {part.name}", plain(part.prompt)
        yield f"answer {part.name}", part.shown_answer
        yield f"choices {part.name}", plain(" · ".join(part.choices))
    for index, hint in enumerate(problem.hints):
        yield f"hint {index + 1}", plain(hint)
    yield "explanation", plain(explanation_markdown(problem).replace("\\", ""))
