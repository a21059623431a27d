"""The one terminal sanitiser: text from files, stores and arguments made safe to print.

Anything a user file, a progress store or a command line can hold may end up on a terminal, and a
terminal obeys what it is sent: ESC sequences set the pane title (OSC), clear the screen or move the
cursor (CSI), 8-bit C1 codes do the same without ESC, and bidirectional overrides (U+202E) make
text read differently from what it is. `safe_text` removes all of them; `safe_line` also keeps a
message on its one line. Every string perfdrill prints or shows passes through one of the two:
text read from YAML and rendered prompts as they are made, errors as they are said
(`PerfdrillError.one_line`), and the command line's own output.

>>> safe_text("gpu\\x1b]0;pwned\\x07 \\u202eevil")
'gpu evil'
"""

from __future__ import annotations

import re

# Whole escape sequences first, so their parameters go with them: CSI (ESC [ ... final), OSC and
# the string controls DCS/SOS/PM/APC (ESC ] P X ^ _ ... BEL or ESC \), any other ESC pair. Then
# each remaining C0 control but tab and newline, DEL and C1 (CSI and OSC in 8 bits), the
# bidirectional marks, embeddings, overrides and isolates, and the Unicode line separators.
_UNSAFE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]?"
    r"|\x1b[\]PX^_][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -~]?"
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)


def safe_text(text: str) -> str:
    """`text` without terminal control sequences, C0/C1 controls or bidi controls; tab and newline stay."""
    if text.isprintable():  # the common case, and fast: none of the above is printable
        return text
    return _UNSAFE.sub("", text)


def safe_line(text: str) -> str:
    """`safe_text`, with line breaks and tabs as spaces: a message stays on its one line."""
    return safe_text(text).replace("\n", " ").replace("\t", " ")
