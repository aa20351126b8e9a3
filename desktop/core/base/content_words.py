"""The content words of a text, cut to their stems: how the host tells
whether two texts speak of the same thing (a task and the user's words
about it, a preference and a message, a skill and its rewrite).

Plain and English-only, as everything the host reads of what was said.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from desktop.core.base.text_fold import APOSTROPHES

_WORD = re.compile(r"\w+", re.UNICODE)
_STEM = 4
_STOP = frozenset(
    str.split(
        "the and for are was were has have had with that this they them their user user's "
        "users his her she him you your about from into also very really does did who which "
        "been will would could should when what there then than just like some more much "
        "please thanks thank reverie always not but can all any how why yes one get got let "
        "its our out now too may say see way off own per via don't doesn't isn't"
    )
)


def stems(text: str) -> frozenset[str]:
    """The content words of *text*, cut to their first letters ("watered",
    "water" and "watering" are one)."""
    return stems_of(_WORD.findall(text.translate(APOSTROPHES).casefold()))


def stems_of(words: Iterable[str]) -> frozenset[str]:
    """``stems`` of words already split and in lower case."""
    return frozenset(w[:_STEM] for w in words if len(w) >= 3 and w not in _STOP)


def related(first: str, second: str) -> bool:
    """Do *first* and *second* share a content word?"""
    return bool(stems(first) & stems(second))
