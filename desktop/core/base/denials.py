"""Whether a rewrite keeps each word on its side of a denial: "Sign the
loan, do not sign the lease" has every word, number and "not" of "Sign the
lease, do not sign the loan" and says the opposite; so do "Call Tom, not
Anna" for "Call Anna, not Tom" and "Give the cat its pills, not the dog".
Word sets cannot see it; clauses can.  (``content_words.support`` reads
clauses too, but lets a claim through on half its words.)
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from desktop.core.base.content_words import DENIED, changes, stems

_CLAUSE = re.compile(
    r"[,:;()\n]|[.!?](?:\s|$)|\s[-\u2013\u2014]\s"
    r"|\b(?:but|though|although|whereas|however|so|because|rather than|instead of)\b",
    re.IGNORECASE,
)
"""Where clauses part, as ``content_words`` parts them."""


def moved_across_denials(rewritten: str, sources: Iterable[str]) -> list[str]:
    """The content stems of *rewritten* that *sources* say only on the other
    side of a denial (denied where it affirms them, or the reverse), each
    once; a word the sources do not have is left to ``new_words``."""
    said = [(stems(clause), _denies(clause)) for text in sources for clause in _CLAUSE.split(text)]
    moved: list[str] = []
    for clause in _CLAUSE.split(rewritten):
        denies = _denies(clause)
        for stem in sorted(stems(clause)):
            sides = {side for words, side in said if stem in words}
            if sides and denies not in sides:
                moved.append(stem)
    return list(dict.fromkeys(moved))


def _denies(clause: str) -> bool:
    return DENIED in changes(clause)
