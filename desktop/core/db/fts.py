"""Turning text a person typed into a safe FTS5 query.

User text is never passed to FTS5 as query syntax (quotes, ``*``, ``AND``,
``NEAR`` and parentheses all mean something there).  Instead each word
becomes a quoted phrase and the phrases are OR-ed, so any input is valid and
ranking (bm25) rewards rows that match more of the words.

A search by relevance (``telling_words``) also leaves out the words that
cannot tell one memory from another: stopwords, and words found in more
than half of the memories (bm25 gives those no weight, yet every memory
that shares only such a word would come back as a match).  It also bounds
what the search costs: FTS5 scores every row that matches any phrase, so the
rarest words are taken first and a word that would bring the rows to score
past a budget is left out.

The indexes hold each text as ``indexed_text`` makes it (schema_v16): in
compatibility form, and with every character of the scripts written
without spaces between words (Chinese, Japanese; Korean's syllables too) a
word of its own.  FTS5's tokenizer would read a whole sentence of them as
one word, found only by the whole sentence.  A query's run of such
characters becomes the phrases of each pair of neighbours, so "东京" finds
"我下周去东京" and the text sharing more pairs ranks first.

A word keeps the marks on its letters (schema_v17), and Thai, Lao, Khmer
and Burmese are read as Chinese is, by letter, each with its marks
(``base.scripts``).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator, Sequence

from desktop.core.base.scripts import (
    UNSPACED_LETTER,
    WORD,
    has_unspaced,
    word_pieces,
    words_of,
)
from desktop.core.base.text import searchable

MAX_TERMS = 32  # enough for a sentence; bounds the cost of a pasted essay
COMMON_MINIMUM = 10
"""A word in no more texts than this is never too common to search for."""

STOPWORDS = frozenset(
    str.split(
        """
    a about above after again against all am an and any are as at be because been
    before being below between both but by can could did do does doing down during
    each few for from further had has have having he her here hers herself him
    himself his how i if in into is it its itself just me more most my myself no nor
    not now of off on once only or other our ours ourselves out over own same she
    should so some such than that the their theirs them themselves then there these
    they this those through to too under until up very was we were what when where
    which while who whom why will with would you your yours yourself yourselves
    s t d ll m re ve don didn doesn isn wasn aren weren won wouldn couldn shouldn
        """
    )
)
"""Common English function words; with the apostrophe's pieces (``don't`` is
``don`` and ``t`` to the tokenizer).  Question words are here too: a memory
rarely contains the "what" or "when" that asks for it."""


def indexed_text(text: str) -> str:
    """*text* as the full-text indexes hold it: in compatibility form
    (NFKC: "ﬁle" is "file", a full-width F is F, half-width
    katakana are full) and with each character of an unspaced script
    standing alone (with its marks), as a word of its own."""
    if text.isascii():
        return text
    normal = unicodedata.normalize("NFKC", text)
    return UNSPACED_LETTER.sub(r" \g<0> ", normal) if has_unspaced(normal) else normal


def match_query(text: str, *, every_word: bool = False) -> str | None:
    """An FTS5 query matching rows with any word of *text* (or, with
    *every_word*, all of them); None if *text* has no words."""
    terms = list(dict.fromkeys(_terms(text)))[:MAX_TERMS]
    return _joined(terms, " AND " if every_word else " OR ")


def any_word(words: Sequence[str]) -> str | None:
    """An FTS5 query matching rows with any of *words*; None if there are none."""
    return _joined(words, " OR ")


def searchable_words(text: str) -> list[str]:
    """The distinct words of *text* that are not stopwords, in order, at most
    ``MAX_TERMS``; case and accents do not make two words distinct, as they
    do not for the index's tokenizer."""
    found: dict[str, str] = {}
    for word in _terms(text):
        key = searchable(word)
        if key not in STOPWORDS and key not in found:
            found[key] = word
    return list(found.values())[:MAX_TERMS]


def telling_words(words: Sequence[str], counts: Sequence[int], rows: int, budget: int) -> list[str]:
    """Which of *words* to search for, in their order.

    *counts* says how many of the *rows* indexed texts contain each word;
    both may be capped (a count over *budget* only says "too many").  Words
    in more than half the texts (and more than ``COMMON_MINIMUM``: in a
    handful of texts every word is in half of them) are left out, unless no
    other word matches anything; the others are taken rarest first while
    the texts they match add up to at most *budget*.
    """
    limit = min(max(rows / 2, COMMON_MINIMUM), budget)
    found = sorted((count, position) for position, count in enumerate(counts) if count > 0)
    kept: list[int] = []
    total = 0
    for count, position in found:
        if count > limit or total + count > budget:
            break
        kept.append(position)
        total += count
    if not kept and found and found[0][0] <= budget:
        # Only common words: they are all there is to go by.
        kept.append(found[0][1])
    return [words[position] for position in sorted(kept)]


def substring_words(text: str) -> list[str]:
    """The pieces of *text* a search by substring looks for each of: its
    words as spaces part them, a run of unspaced characters by each pair of
    neighbours ("东京" and "京出" of "东京出"; a lone character alone), so a
    word inside an unspaced sentence is found as it is by the indexes."""
    if text.isascii():
        return text.split()
    normal = unicodedata.normalize("NFKC", text)
    return [piece for word in normal.split() for piece in word_pieces(word, "")]


def _terms(text: str) -> Iterator[str]:
    """The words of *text* as the index holds them (``indexed_text``); of a
    run of unspaced characters, each pair of neighbours as a phrase ("东 京")
    and a lone character alone."""
    if text.isascii():
        yield from words_of(text)  # re's \w, sooner than regex's on ASCII
        return
    for word in WORD.findall(unicodedata.normalize("NFKC", text)):
        yield from word_pieces(word, " ")


def _joined(terms: Sequence[str], operator: str) -> str | None:
    return operator.join(f'"{term}"' for term in terms) if terms else None
