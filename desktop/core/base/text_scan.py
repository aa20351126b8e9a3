"""A regex scan of a long text, a window at a time.

One ``search`` of a large pattern over a megabyte with nothing to find runs
for a second or more inside the regex engine, holding Python's interpreter
lock all along: a window reading a long paste for secrets on another thread
freezes that long.  ``matches`` gives what ``pattern.finditer(text)`` gives,
each search bounded to a window of the text, so other threads run between
windows.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

WINDOW = 16_384
"""How far one search reads, in characters (a few milliseconds)."""
MARGIN = 4_096
"""How far a match starting in a window may reach past it, and still be read
whole: longer than any phrase the patterns scanned this way take."""
_LOOK = 64
"""How near the window's end a match may end before it is read again over the
whole text: what the pattern looks at after a match (``(?!\\w)``, ``\\Z``)
must not be the window's end."""


def matches(pattern: re.Pattern[str], text: str, position: int = 0) -> Iterator[re.Match[str]]:
    """The matches of *pattern* in *text* from *position*, in order, as
    ``finditer`` finds them (an empty match moves the next search on)."""
    while position <= len(text):
        window = position + WINDOW
        end = window + MARGIN
        match = pattern.search(text, position, end)
        if match is not None and end < len(text) and match.end() + _LOOK > end:
            match = pattern.search(text, position)  # it may have run into the window's end
        if match is None and end >= len(text):
            return
        if match is None or match.start() >= window:  # read from the next window on
            position = window
            continue
        yield match
        position = match.end() + (match.end() == match.start())
