"""Turning text a person typed into a safe FTS5 query.

User text is never passed to FTS5 as query syntax (quotes, ``*``, ``AND``,
``NEAR`` and parentheses all mean something there).  Instead each word
becomes a quoted phrase and the phrases are OR-ed, so any input is valid and
ranking (bm25) rewards rows that match more of the words.
"""

from __future__ import annotations

import re

MAX_TERMS = 32  # enough for a sentence; bounds the cost of a pasted essay

# \w is Unicode-aware and can never contain a double quote, so every term is
# safe inside "...".  Emoji and punctuation are not words and drop out.
_WORD = re.compile(r"\w+")


def match_query(text: str, *, every_word: bool = False) -> str | None:
    """An FTS5 query matching rows with any word of *text* (or, with
    *every_word*, all of them); None if *text* has no words."""
    terms = list(dict.fromkeys(_WORD.findall(text)))[:MAX_TERMS]
    if not terms:
        return None
    return (" AND " if every_word else " OR ").join(f'"{term}"' for term in terms)
