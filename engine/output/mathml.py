"""Display nodes (engine/model/display_nodes.py) as MathML, which browsers typeset natively: no scripts, no
CDN. Every string is escaped, so a label or a value from a template reaches the page as text."""

from __future__ import annotations

from html import escape

from markupsafe import Markup

from perfdrill.engine.model.display_nodes import Node

_ROW_GAP = '<mspace width="0.3em"/>'  # a label and its value: "slowdown 98.6"
_UNIT_GAP = '<mspace width="0.17em"/>'  # a thin space between a number and its unit
_FENCE = '<mo lspace="0" rspace="0">{}</mo>'
_BRACKET = '<mo fence="true" stretchy="true" symmetric="true" lspace="0" rspace="0">{}</mo>'
_RELATIONS = {"=", "≥", ">", "≤", "<", "≠"}


def _mathml(node: Node) -> str:
    kind = node["k"]
    if kind == "word":
        tag = "mi" if len(node["t"]) == 1 else "mtext"  # a single letter is a variable, in italics
        return f"<{tag}>{escape(node['t'])}</{tag}>"
    if kind == "num":
        shown = f"<mn>{escape(node['t'])}</mn>"
        if "e" in node:
            shown += f"<mo>×</mo><msup><mn>10</mn><mn>{escape(node['e'])}</mn></msup>"
        if node["u"]:
            shown += f"{_UNIT_GAP}<mtext>{escape(node['u'])}</mtext>"
        return f"<mrow>{shown}</mrow>"
    if kind == "op":
        # Spaced with <mspace>, not the operator's own lspace: a row of <mtext> labels and one <mo>
        # is an "embellished operator" in MathML Core, whose spacing lands outside the row.
        gap = f'<mspace width="{"0.28em" if node["t"] in _RELATIONS else "0.22em"}"/>'
        return f"{gap}{_FENCE.format(escape(node['t']))}{gap}"
    if kind == "row":
        items = node["c"]
        shown = ""
        for index, item in enumerate(items):
            apart = index > 0 and item["k"] != "op" and items[index - 1]["k"] != "op"
            shown += (_ROW_GAP if apart else "") + _mathml(item)
        return f"<mrow>{shown}</mrow>"
    if kind == "paren":
        return f"<mrow>{_BRACKET.format('(')}{_mathml(node['c'])}{_BRACKET.format(')')}</mrow>"
    if kind == "frac":
        return f'<mstyle displaystyle="true"><mfrac>{_mathml(node["n"])}{_mathml(node["d"])}</mfrac></mstyle>'
    if kind == "pow":
        return f"<msup>{_mathml(node['c'])}{_mathml(node['e'])}</msup>"
    if kind in ("floor", "ceil"):
        left, right = ("⌊", "⌋") if kind == "floor" else ("⌈", "⌉")
        return f"<mrow>{_BRACKET.format(left)}{_mathml(node['c'])}{_BRACKET.format(right)}</mrow>"
    if kind == "sqrt":
        return f"<msqrt>{_mathml(node['c'])}</msqrt>"
    if kind == "fn":
        args = "<mo>,</mo>".join(_mathml(arg) for arg in node["c"])
        return f"<mrow><mi>{escape(node['t'])}</mi>{_BRACKET.format('(')}{args}{_BRACKET.format(')')}</mrow>"
    raise ValueError(f"unknown display node {kind!r}")


def mathml(node: Node) -> Markup:
    """One display node as an inline <math> element."""
    return Markup(f"<math>{_mathml(node)}</math>")
