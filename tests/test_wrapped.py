"""Terminal explanations never split a number from its unit, whatever the width (Rich on its own
breaks at the no-break space too)."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console
from rich.text import Text

from perfdrill.engine.model import load_specs
from perfdrill.engine.output import explanation_lines
from perfdrill.engine.problems.bank import load_bank
from perfdrill.engine.problems.generation import generate
from perfdrill.tui.wrapped import explanation_text, wrap

TIED = re.compile(r"\d[\d,.]*[MBT]?\u00a0\S+")


def _render(renderable: object, width: int) -> list[str]:
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    console.print(renderable)
    return console.export_text().splitlines()


def test_rich_alone_splits_a_number_from_its_unit() -> None:
    """Why `wrap` exists: the check below fails for Rich's own wrapping."""
    lines = _render(Text("a b c d e f g 1,024\u00a0tokens"), 20)
    assert lines[0].rstrip().endswith("1,024")


def test_lines_break_at_spaces_and_hang_under_the_bullet() -> None:
    lines = [line.plain for line in wrap(Text("• one two three 1,024\u00a0tokens four"), 16, indent=2)]
    assert lines == ["• one two three", "  1,024\u00a0tokens", "  four"]
    assert all(len(line) <= 16 for line in lines)


@pytest.mark.parametrize("width", [40, 57, 80])
def test_no_figure_leaves_its_unit_in_a_terminal_explanation(width: int) -> None:
    bank, specs = load_bank([]), load_specs([])
    for template in bank.select():
        problem = generate(template, 1, specs)
        lines = explanation_lines(problem)
        whole = " ".join(line.text for line in lines)
        shown = "\n".join(_render(explanation_text(lines), width))
        for figure in TIED.findall(whole):
            if len(figure) < width - 4:  # a figure wider than a line is cut, as any word is
                assert figure in shown, (template.id, figure)
