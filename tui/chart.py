"""A log-log roofline drawn in braille, legible at 80×24 and without colour.

Roofs are braille lines (a scenario's roof is dotted), the ridge is a dashed vertical, and each
operating point has its own glyph, so NO_COLOR terminals lose nothing but the tint. Points that
fall into one character cell are drawn side by side, so no glyph hides another.
"""

from __future__ import annotations

import math

from rich.text import Text

from perfdrill.engine.model import format_quantity
from perfdrill.engine.problems import RooflineView

_BRAILLE_BASE = 0x2800
# Dot bit for (column 0-1, row 0-3) inside one braille cell.
_DOTS = ((0x01, 0x08), (0x02, 0x10), (0x04, 0x20), (0x40, 0x80))
MARKERS = ("●", "◆", "▲", "■", "★", "▼", "✚", "✖")
ROOF_STYLES = ("bold cyan", "magenta", "yellow", "blue")
MARKER_STYLES = ("bold red", "bold green", "bold yellow", "bold magenta", "bold blue", "bold white")
_Y_LABEL_WIDTH = 12


class _Canvas:
    def __init__(self, columns: int, rows: int) -> None:
        self.columns, self.rows = columns, rows
        self.bits = [[0] * columns for _ in range(rows)]
        self.owner: list[list[int | None]] = [[None] * columns for _ in range(rows)]

    def dot(self, x: int, y: int, owner: int) -> None:
        """Set dot (x, y), with y = 0 at the bottom, in a 2·columns × 4·rows grid."""
        if 0 <= x < 2 * self.columns and 0 <= y < 4 * self.rows:
            row = self.rows - 1 - y // 4
            self.bits[row][x // 2] |= _DOTS[3 - y % 4][x % 2]
            if self.owner[row][x // 2] is None:
                self.owner[row][x // 2] = owner


def _log_range(values: list[float], pad: float) -> tuple[float, float]:
    low, high = math.log10(min(values)), math.log10(max(values))
    return math.floor(low - pad), math.ceil(high + pad)


def _tick(value: float, unit: str) -> str:
    return format_quantity(value, unit, digits=3)


def _number(value: float) -> str:
    return _tick(value, "1")


def _free_cell(
    row: int, column: int, taken: set[tuple[int, int]], rows: int, columns: int
) -> tuple[int, int]:
    """(row, column), or the nearest cell beside it that no other point holds."""
    for distance in range(max(rows, columns)):
        for d_row, d_column in ((0, distance), (0, -distance), (-distance, 0), (distance, 0)):
            cell = (row + d_row, column + d_column)
            if cell not in taken and 0 <= cell[0] < rows and 0 <= cell[1] < columns:
                return cell
    return row, column


def roofline_text(view: RooflineView, width: int, height: int) -> Text:
    """The chart and its legend in `width` columns; the plot takes `height` rows."""
    columns = max(20, width - _Y_LABEL_WIDTH - 1)
    rows = max(5, height)
    intensities = [p.intensity for p in view.points] + [r.ridge_point for r in view.roofs]
    x_low, x_high = _log_range(intensities, 0.3)
    performances = [p.attainable for p in view.points] + [r.peak_flops for r in view.roofs]
    y_high = math.log10(max(performances)) + 0.15
    y_low = min(math.log10(min(performances)) - 0.3, y_high - 1.5)

    def to_x(intensity: float) -> float:
        return (math.log10(intensity) - x_low) / (x_high - x_low) * (2 * columns - 1)

    def to_y(flops: float) -> float:
        return (math.log10(flops) - y_low) / (y_high - y_low) * (4 * rows - 1)

    canvas = _Canvas(columns, rows)
    for index, roof in enumerate(view.roofs):
        previous: int | None = None
        for x in range(2 * columns):
            if index and x % 3 == 2:
                continue  # scenario roofs are dotted, so they read apart without colour
            intensity = 10 ** (x_low + x / (2 * columns - 1) * (x_high - x_low))
            y = round(to_y(min(roof.peak_flops, intensity * roof.bandwidth)))
            for fill in range(min(y, previous if previous is not None else y), max(y, previous or y) + 1):
                canvas.dot(x, fill, index)
            previous = y
    grid: list[list[tuple[str, str]]] = [
        [
            (chr(_BRAILLE_BASE + bits), ROOF_STYLES[owner % len(ROOF_STYLES)] if owner is not None else "")
            if bits
            else (" ", "")
            for bits, owner in zip(bit_row, owner_row, strict=True)
        ]
        for bit_row, owner_row in zip(canvas.bits, canvas.owner, strict=True)
    ]
    ridge = view.roofs[0]
    ridge_column = int(to_x(ridge.ridge_point) / 2)
    ridge_top = rows - 1 - int(to_y(ridge.peak_flops) / 4)
    for ridge_row in range(max(0, ridge_top + 1), rows):
        if grid[ridge_row][ridge_column][0] == " ":
            grid[ridge_row][ridge_column] = ("┊", "dim")
    taken: set[tuple[int, int]] = set()
    for index, point in enumerate(view.points):
        column = min(columns - 1, int(to_x(point.intensity) / 2))
        point_row = min(rows - 1, max(0, rows - 1 - int(to_y(point.attainable) / 4)))
        point_row, column = _free_cell(point_row, column, taken, rows, columns)
        taken.add((point_row, column))
        grid[point_row][column] = (MARKERS[index % len(MARKERS)], MARKER_STYLES[index % len(MARKER_STYLES)])

    text = Text()
    labels = {max(0, ridge_top): _tick(ridge.peak_flops, "FLOP/s"), rows - 1: _tick(10**y_low, "FLOP/s")}
    for row_index, row in enumerate(grid):
        label = labels.get(row_index, "")
        text.append(f"{label:>{_Y_LABEL_WIDTH}}│", style="dim")
        for char, style in row:
            text.append(char, style=style)
        text.append("\n")
    text.append(" " * _Y_LABEL_WIDTH + "└" + "─" * columns + "\n", style="dim")
    axis = [" "] * columns
    for position, label in (
        (0, _number(10**x_low)),
        (ridge_column, f"ridge {_number(ridge.ridge_point)}"),
        (columns, _number(10**x_high)),
    ):
        start = max(0, min(columns - len(label), position - (len(label) // 2 if position else 0)))
        if all(c == " " for c in axis[max(0, start - 1) : start + len(label) + 1]):
            axis[start : start + len(label)] = list(label)
    text.append(" " * (_Y_LABEL_WIDTH + 1) + "".join(axis) + "\n", style="dim")
    text.append(" " * (_Y_LABEL_WIDTH + 1) + "arithmetic intensity, FLOP/byte (log scales)\n", style="dim")
    legend = [
        (
            ("━━" if index == 0 else "┅┅", ROOF_STYLES[index % len(ROOF_STYLES)]),
            roof.label,
            f"{_tick(roof.peak_flops, 'FLOP/s')} peak, {_tick(roof.bandwidth, 'byte/s')},"
            f" ridge {_tick(roof.ridge_point, 'FLOP/byte')}",
        )
        for index, roof in enumerate(view.roofs)
    ] + [
        (
            (MARKERS[index % len(MARKERS)], MARKER_STYLES[index % len(MARKER_STYLES)]),
            point.label,
            f"{_tick(point.intensity, 'FLOP/byte')}, attainable {_tick(point.attainable, 'FLOP/s')}",
        )
        for index, point in enumerate(view.points)
    ]
    for (glyph, style), name, numbers in legend:
        text.append(f"  {glyph:<2} ", style=style)
        if len(name) + len(numbers) + 7 <= width:
            text.append(f"{name}: {numbers}\n")
        else:  # the numbers on a line of their own rather than wrapped anywhere
            text.append(f"{name}\n     {numbers}\n")
    text.rstrip()
    return text
