"""A regex scan of a long text, a window at a time.

One ``search`` of a large pattern over a megabyte with nothing to find runs
for a second or more inside the regex engine, holding Python's interpreter
lock all along: a window reading a long paste for secrets on another thread
freezes that long.  ``matches`` gives what ``pattern.finditer(text)`` gives,
each search bounded to a window of the text, so other threads run between
windows.

Before any search, ``may_match`` asks whether the pattern can match at all:
the words every match of a pattern must hold are read from the pattern
itself, and a text with none of them is not searched.  Most messages name
no credential, so most of redaction's patterns are never run on them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from collections.abc import Set as AbstractSet
from functools import lru_cache
from re import _constants, _parser  # type: ignore[attr-defined]
from typing import Any

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
    if may_match(pattern, text):
        yield from scanned(pattern, text, position)


def scanned(pattern: re.Pattern[str], text: str, position: int = 0) -> Iterator[re.Match[str]]:
    """``matches`` without asking ``may_match`` first: for a caller that
    asked it once and scans again from many positions (``may_match`` reads
    the whole text when a word it tests is missing, so asking it at each
    position is quadratic in a long text)."""
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


def may_match(pattern: re.Pattern[str], text: str) -> bool:
    """Can *pattern* match anywhere in *text*?  False only when, of a set of
    words one of which every match holds (``needed_words``), none is in
    *text*: a few ``in`` tests in place of a search that finds nothing."""
    needed = needed_words(pattern)
    if not needed:
        return True
    lowered = _lowered(text)
    # Plain loops: this runs some 200 times a message, and a generator
    # costs more than the tests in it.
    for words in needed:
        for word in words:
            if word in lowered:
                break
        else:
            return False
    return True


def needed_words(pattern: re.Pattern[str]) -> tuple[frozenset[str], ...]:
    """Sets of words, lowercased, such that every match of *pattern* holds a
    word of each set: read from the pattern's parse tree (its literal runs,
    the alternatives of a group, what repeats at least once).  Only ASCII
    runs count, so ``may_match`` needs no more of case than ``lower`` and
    the four letters ``re.IGNORECASE`` also takes for i, k and s."""
    # Kept by the pattern's identity: hashing a pattern reads all of it
    # (14 µs for one of credential_phrases'), more than the test it saves.
    known = _NEEDED.get(id(pattern))
    if known is not None and known[0] is pattern:
        return known[1]
    clauses = _clauses(_parser.parse(pattern.pattern, pattern.flags))
    needed = tuple(sorted(clauses, key=_rarity, reverse=True))
    if len(_NEEDED) >= _PATTERNS_KEPT:
        _NEEDED.clear()  # patterns made on the fly, not the modules' own
    _NEEDED[id(pattern)] = (pattern, needed)
    return needed


_NEEDED: dict[int, tuple[re.Pattern[str], tuple[frozenset[str], ...]]] = {}
_PATTERNS_KEPT = 2_048


_SHORTEST = 2
"""A word of one character is in nearly every text: no use as a test."""
_CASE_TWINS = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})
"""The letters other than their own case that ``re.IGNORECASE`` takes for
ASCII ones: a dotted capital I and a dotless i for i, the long s for s,
the Kelvin sign for k."""


@lru_cache(maxsize=4)
def _lowered(text: str) -> str:
    """*text* as ``needed_words`` are written: each pattern tested on one text
    lowers it once (the texts being read on a few threads at most)."""
    return text.translate(_CASE_TWINS).lower()


def _rarity(words: AbstractSet[str]) -> tuple[int, int]:
    """Longer words and fewer of them fail more often: tested first."""
    return min(map(len, words)), -len(words)


def _clauses(items: Sequence[tuple[Any, Any]]) -> list[frozenset[str]]:
    """What every match of the sequence *items* holds: one set of words per
    literal run or part that needs one, all of them needed."""
    clauses: list[frozenset[str]] = []
    run = ""
    for op, value in items:
        if op is _constants.LITERAL and value < 128:
            run += chr(value).lower()
            continue
        clauses.append(frozenset([run]))
        run = ""
        clauses.extend(_part(op, value))
    clauses.append(frozenset([run]))
    return [words for words in clauses if min(map(len, words)) >= _SHORTEST]


def _part(op: Any, value: Any) -> list[frozenset[str]]:
    """What every match of one node holds (a group, alternatives, a repeat);
    nothing is known of anything else (a class of characters, a look
    around, a reference)."""
    if op is _constants.SUBPATTERN:
        return _clauses(value[-1])
    if op is _constants.ATOMIC_GROUP:
        return _clauses(value)
    if op in (_constants.MAX_REPEAT, _constants.MIN_REPEAT, _constants.POSSESSIVE_REPEAT):
        least, _, repeated = value
        return _clauses(repeated) if least >= 1 else []
    if op is _constants.BRANCH:
        # Each alternative's rarest set; together, one set every match holds.
        words: set[str] = set()
        for alternative in value[1]:
            if not (needed := _clauses(alternative)):
                return []
            words |= max(needed, key=_rarity)
        return [frozenset(words)]
    return []
