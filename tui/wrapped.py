"""Worked explanations in the terminal, wrapped so a number never leaves its unit.

Rich wraps at any whitespace, the no-break space included, so "1,024 tokens" could end one line
with "1,024" and start the next with "tokens". `Wrapped` breaks lines only at ordinary spaces and
hands Rich lines that already fit; continuation lines of a bullet hang under its text.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from perfdrill.engine.output import ExplanationLine

_BULLET = "• "


class Wrapped:
    """Paragraphs of styled text, each with a hanging indent, wrapped at ordinary spaces only."""

    def __init__(self, paragraphs: Iterable[tuple[Text, int]]) -> None:
        self.paragraphs = list(paragraphs)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for text, indent in self.paragraphs:
            for line in wrap(text, options.max_width, indent):
                line.no_wrap = True
                yield line


def wrap(text: Text, width: int, indent: int = 0) -> Iterator[Text]:
    """`text` in lines of at most `width` cells, broken at spaces (a word longer than a line is
    cut); every line after the first starts with `indent` spaces."""
    plain = text.plain
    start = 0
    while True:
        room = width - (indent if start else 0)
        end = _fits(plain, start, max(room, 1))
        line = text[start:end]
        line.rstrip()
        yield Text(" " * indent) + line if start else line
        start = end
        while start < len(plain) and plain[start] == " ":
            start += 1
        if start >= len(plain):
            return


def _fits(plain: str, start: int, room: int) -> int:
    """Where the line from `start` ends: past the last word that fits in `room` cells."""
    if cell_len(plain[start:]) <= room:
        return len(plain)
    cut = start
    while cut < len(plain) and cell_len(plain[start : cut + 1]) <= room:
        cut += 1
    space = plain.rfind(" ", start + 1, cut + 1)
    return space if space > start else max(cut, start + 1)


def explanation_text(lines: Iterable[ExplanationLine]) -> Wrapped:
    """The explanation for the terminal: bold letters and results, italic headings, bullets."""
    paragraphs: list[tuple[Text, int]] = []
    for line in lines:
        if line.kind == "item":
            text = Text(_BULLET)
            if line.letters:
                text.append(f"({line.letters}) ", style="bold")
            body = line.text.removesuffix(line.result) if line.result else line.text
            text.append(body)
            text.append(line.result, style="bold green")
            paragraphs.append((text, len(_BULLET)))
        else:
            style = "italic" if line.kind == "heading" else ""
            paragraphs += [(Text(""), 0), (Text(line.text, style=style), 0)]
    return Wrapped(paragraphs[1:] if paragraphs and not paragraphs[0][0].plain else paragraphs)
