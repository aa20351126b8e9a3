"""Break opportunities in text too long to wrap.

Qt's text layout breaks lines only where Unicode allows; a longer run with
no break opportunity (a URL, a hash, a pasted token) would make its label,
and so the whole view, that wide.  These functions put a zero-width space
every few characters of such a run, in plain text or in the text of HTML
(never inside a tag or an entity, never between a character and its
accents or joiners).  What is copied from a message is its original text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

_ZERO_WIDTH_SPACE = "\u200b"
_UNBROKEN_CHARS = 24
_BREAK_EVERY = 16
_BREAKING = r" \t\n\r\f\v\u1680\u2000-\u2006\u2008-\u200b\u2028\u2029\u205f\u3000"
"""Spaces that allow a line break (not the no-break ones) and the zero-width space."""
_PLAIN_RUN = re.compile(rf"[^{_BREAKING}]{{{_UNBROKEN_CHARS},}}")
_HTML_RUN = re.compile(rf"(?:&#?\w+;|[^{_BREAKING}&<>]){{{_UNBROKEN_CHARS},}}")
_HTML_CHAR = re.compile(r"&#?\w+;|.", re.DOTALL)
_HTML_TAG = re.compile(r"(<[^>]*>)")
_JOINERS = frozenset({"\u200c", "\u200d"})


def breakable(text: str) -> str:
    """Plain *text* with a zero-width space every few characters of a run
    too long to wrap."""
    return _PLAIN_RUN.sub(lambda run: _broken(list(run.group())), text)


def breakable_html(html: str) -> str:
    """*html* with the same breaks in its text (never inside a tag or an entity)."""
    parts = _HTML_TAG.split(html)
    parts[::2] = [
        _HTML_RUN.sub(lambda run: _broken(_HTML_CHAR.findall(run.group())), text)
        for text in parts[::2]
    ]
    return "".join(parts)


def _broken(chars: Sequence[str]) -> str:
    """*chars* joined, with a break every _BREAK_EVERY of them (moved past
    accents and joiners, which belong to the character before)."""
    pieces, start = [], 0
    while start < len(chars):
        end = min(start + _BREAK_EVERY, len(chars))
        while end < len(chars) and (_continues(chars[end]) or chars[end - 1] in _JOINERS):
            end += 1
        pieces.append("".join(chars[start:end]))
        start = end
    return _ZERO_WIDTH_SPACE.join(pieces)


def _continues(char: str) -> bool:
    return len(char) == 1 and (char in _JOINERS or unicodedata.category(char) in {"Mn", "Mc", "Me"})
