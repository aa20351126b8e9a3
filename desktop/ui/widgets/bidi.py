"""Stored text shown in its stored order (the "Trojan Source" family).

Text a window shows may come from the user, a model, an import, a skill file
or a task.  A right-to-left override in it ("\\u202eevil\\u202c tab") made the
transcript show "live tab", and a filename, a link, an amount or a command can
read the same way as something it is not.  So what is shown drops the
explicit embeddings, overrides and isolates (U+202A to U+202E, U+2066 to
U+2069), invisible characters whose only work is to reorder what is shown,
and keeps everything else: right-to-left scripts still read right to left by
Unicode's implicit rules, and the marks (LRM, RLM, ALM) stay.  What is stored,
edited and copied with Copy stays as written.  No Qt is imported here.
"""

from __future__ import annotations

import re

_EXPLICIT = re.compile("[\u202a-\u202e\u2066-\u2069]")
"""LRE, RLE, PDF, LRO, RLO, LRI, RLI, FSI and PDI."""


def stored_order(text: str) -> str:
    """*text* as a window shows it: without explicit directional formatting."""
    return text if text.isascii() else _EXPLICIT.sub("", text)
