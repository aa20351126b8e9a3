"""Stored text shown in its stored order (the "Trojan Source" family).

Text a window shows may come from the user, a model, an import, a skill file
or a task.  A right-to-left override in it ("\\u202eevil\\u202c tab") made the
transcript show "live tab", and a filename, a link, an amount or a command can
read the same way as something it is not.  So what is shown drops the
explicit embeddings, overrides and isolates (U+202A to U+202E, U+2066 to
U+2069), invisible characters whose only work is to reorder what is shown,
and keeps everything else: right-to-left scripts still read right to left by
Unicode's implicit rules, and the marks (LRM, RLM, ALM) stay.  What is stored,
edited and copied with Copy stays as written.  An editor cannot drop them
(what it shows is what it hands on): ``as_written`` names each one visibly
for the warning under it (``direction_guard``).  No Qt is imported here.
"""

from __future__ import annotations

import re

DIRECTION_CONTROLS = "[\u202a-\u202e\u2066-\u2069]"
"""The explicit ones, as a pattern (LRE, RLE, PDF, LRO, RLO, LRI, RLI, FSI, PDI)."""
_EXPLICIT = re.compile(DIRECTION_CONTROLS)
_AROUND = 60
"""Characters of a line shown before its first control (and twice as many after)."""
_NAMES = {
    "\u202a": "LRE",
    "\u202b": "RLE",
    "\u202c": "PDF",
    "\u202d": "LRO",
    "\u202e": "RLO",
    "\u2066": "LRI",
    "\u2067": "RLI",
    "\u2068": "FSI",
    "\u2069": "PDI",
}


def stored_order(text: str) -> str:
    """*text* as a window shows it: without explicit directional formatting."""
    return text if text.isascii() else _EXPLICIT.sub("", text)


def has_direction_controls(text: str) -> bool:
    return not text.isascii() and _EXPLICIT.search(text) is not None


def as_written(text: str) -> str:
    """*text* in its stored order, each direction control named in brackets
    where it stands ("[RLO]evil[PDF] tab")."""
    return _EXPLICIT.sub(lambda control: f"[{_NAMES[control.group()]}]", text)


def affected_line(text: str) -> str:
    """The line of *text* holding its first direction control ``as_written``,
    cut around that control when long; "" when *text* holds none."""
    if not (first := _EXPLICIT.search(text)):
        return ""
    start = first.start()
    line_start = text.rfind("\n", 0, start) + 1
    line_end = len(text) if (found := text.find("\n", start)) < 0 else found
    left, right = max(line_start, start - _AROUND), min(line_end, start + 2 * _AROUND)
    cut = as_written(text[left:right])
    return f"{'…' if left > line_start else ''}{cut}{'…' if right < line_end else ''}"
