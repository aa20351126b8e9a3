"""The content words of a text, cut to their stems: how the host tells
whether two texts speak of the same thing (a task and the user's words
about it, a preference and a message, a skill and its rewrite), and its
words of change and negation (``changes``): how it tells that a rewrite
still says what changed, or what is not so; with its numbers, whether a
rewrite says a passage otherwise (``says_otherwise``).

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
_CHANGES = re.compile(
    r"\b(?:"
    r"(?P<ended>no longer|any ?more|no more|used to|stop(?:s|ped|ping)?|quit(?:s|ting)?"
    r"|g[ai]ve(?:s|n)? up|giving up|ceased?|former(?:ly)?|ex-|previous(?:ly)?)"
    r"|(?P<died>died|dies|dead|passed away)"
    r"|(?P<divorced>divorc\w*|separated|broke up|split up)"
    r"|(?P<now>now|nowadays|these days)"
    r"|(?P<denied>not|no|never|none|nothing|nobody|neither|nor|without|skip\w*|avoid\w*)"
    r")\b|n't\b",
    re.IGNORECASE,
)
"""Words that say something changed or is not so, by what they say: it
ended ("no longer", "stopped", "quit", "used to", "former", "ex-"),
someone died, a marriage ended, it holds *now*, or it is denied ("not",
"never", "without", "skip").  A small model's rewrite that loses one of
them says the opposite ("takes warfarin" for "stopped taking warfarin"),
one that gains one says what nobody said."""
NUMBER = re.compile(r"(?<![\d.])\d+(?:[.,:]\d+)*")
"""A number as written: "3", "08:00", "1.5", "2,000"."""
DENIED = "denied"
"""The ``changes`` of a text that denies something ("not", "never", "skip")."""


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


def new_words(text: str, sources: Iterable[str]) -> list[str]:
    """The content words of *text* that none of *sources* has (by stem), in
    order, each once: what a rewrite of them adds.  Words of change are
    left to ``changes`` ("used to" says "stopped" again, adding nothing)."""
    theirs = frozenset().union(*map(stems, sources))
    words = _WORD.findall(_CHANGES.sub(" ", text.translate(APOSTROPHES)).casefold())
    return list(dict.fromkeys(w for w in words if stems_of([w]) - theirs))


def changes(text: str) -> frozenset[str]:
    """What *text* says changed or is not so (see ``_CHANGES``): "ended",
    "died", "divorced", "now" or ``DENIED``."""
    found = _CHANGES.finditer(text.translate(APOSTROPHES))
    return frozenset(match.lastgroup or DENIED for match in found)


def says_otherwise(original: str, rewritten: str) -> str | None:
    """How *rewritten*, put in the place of *original*, says something else
    (None: it does not): other numbers, or theirs in another order ("3
    tablets, never more than 1" for "1 tablet, never more than 3"), or
    other words of change ("take it with aspirin" for "never take it with
    aspirin").  A small model's rewrite keeps every number and the word
    "never" somewhere, and still says the opposite."""
    if NUMBER.findall(rewritten) != NUMBER.findall(original):
        return "with other numbers"
    if changes(rewritten) != changes(original):
        return "with other words of change or denial"
    return None
