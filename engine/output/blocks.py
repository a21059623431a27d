"""Prompt Markdown as plain data (paragraphs of styled runs, code, tables, lists) for printing.

The printed set passes this data to its Typst template as JSON, so no template text is ever
spliced into Typst source: a prompt cannot inject markup, however it is written.
"""

from __future__ import annotations

from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

Run = dict[str, str]  # {"text": ..., "style": "plain" | "strong" | "em" | "code"}
Block = dict[str, Any]

_PARSER = MarkdownIt("commonmark").enable("table")


def _runs(inline: Token) -> list[Run]:
    runs: list[Run] = []
    styles: list[str] = []
    for child in inline.children or []:
        if child.type in ("strong_open", "em_open"):
            styles.append(child.type.removesuffix("_open"))
        elif child.type in ("strong_close", "em_close"):
            styles.pop()
        elif child.type == "code_inline":
            runs.append({"text": child.content, "style": "code"})
        elif child.type in ("softbreak", "hardbreak"):
            runs.append({"text": " " if child.type == "softbreak" else "\n", "style": "plain"})
        elif child.type in ("text", "html_inline"):
            text = child.content.replace("&nbsp;", "\u00a0") if child.type == "html_inline" else child.content
            runs.append({"text": text, "style": styles[-1] if styles else "plain"})
    return runs


def blocks(markdown: str) -> list[Block]:
    """Top-level blocks of `markdown`, each a small dict a template can render without parsing."""
    tokens = _PARSER.parse(markdown)
    out: list[Block] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.type == "paragraph_open" and token.level == 0:
            out.append({"kind": "paragraph", "runs": _runs(tokens[index + 1])})
        elif token.type in ("fence", "code_block"):
            out.append({"kind": "code", "text": token.content.rstrip("\n"), "lang": token.info.strip()})
        elif token.type == "table_open":
            rows: list[list[list[Run]]] = []
            while tokens[index].type != "table_close":
                if tokens[index].type == "tr_open":
                    rows.append([])
                elif tokens[index].type == "inline":
                    rows[-1].append(_runs(tokens[index]))
                index += 1
            out.append({"kind": "table", "header": rows[0], "rows": rows[1:]})
        elif token.type in ("bullet_list_open", "ordered_list_open"):
            items: list[list[Run]] = []
            closing = token.type.replace("_open", "_close")
            while not (tokens[index].type == closing and tokens[index].level == token.level):
                if tokens[index].type == "inline":
                    items.append(_runs(tokens[index]))
                index += 1
            out.append({"kind": "list", "ordered": token.type.startswith("ordered"), "items": items})
        elif token.type == "blockquote_open":
            quoted: list[list[Run]] = []
            while tokens[index].type != "blockquote_close":
                if tokens[index].type == "inline":
                    quoted.append(_runs(tokens[index]))
                index += 1
            out.append({"kind": "quote", "paragraphs": quoted})
        index += 1
    return out
