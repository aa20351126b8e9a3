"""A crypto wallet's recovery phrase, for ``redaction``.

A wallet's seed (BIP39) is 12, 15, 18, 21 or 24 words, each of three to
eight small letters, written in a row: "canvas brisk bean collect ...".
Whoever has it has the wallet, and people paste it with no word naming it
("^ the words for my trezor").  Prose never runs that many words without
one of the small words that join them ("the", "and", "to", "with"), and a
seed has few of those, so a row of exactly so many short words, almost
none of them among the most used of a language, is taken as one.  The
word list itself is not needed: the row's shape says enough.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from desktop.core.base import text_scan
from desktop.core.privacy import known_words

_LENGTHS = frozenset({12, 15, 18, 21, 24, 25})
"""How many words a BIP39 phrase has, or a Monero wallet's seed (25)."""
_NAMING = frozenset({"seed", "phrase", "mnemonic", "words", "recovery", "is", "are"})
"""Words that may lead the row, naming it ("my monero seed acid brave cloud ...")."""
_ROW = re.compile(r"(?<![\w'\u2019.-])[a-z]{3,8}(?:[ \t]+[a-z]{3,8}){11,}(?![\w'\u2019-])")
"""Twelve short words of small letters or more, only spaces between, the
whole row (so a long run of filler is no seed, nor are its last 24 words)."""
_CHATTER = frozenset(str.split("thx thanks lol pls please merci danke gracias grazie obrigado ok"))
"""Words a chat message ends with after the row: "... zoo thx" (round 22)."""
_NAMED_BEFORE = re.compile(r"\b(?:seed|mnemonic|recovery|wallet)\b[^\n.!?]{0,20}\Z", re.IGNORECASE)
"""Words naming the row right before it: "seed phrase is all agent ..."."""
_JOINING_WORDS = 2
"""How many of the most used words a seed may hold ("about", "all", "also");
half of it, when words naming it lead the row or stand right before it
("seed phrase is all agent ...", round 22)."""


def secret_spans(text: str) -> Iterator[tuple[int, int]]:
    """Where each row of words shaped like a wallet's seed is in *text*."""
    for row in text_scan.matches(_ROW, text):
        words = row.group().split()
        named = [at for at, word in enumerate(words[:5]) if word in _NAMING]
        lead = named[-1] + 1 if named and len(words) not in _LENGTHS else 0
        seed = words[lead:]
        end = row.end()
        while len(seed) not in _LENGTHS and seed and seed[-1] in _CHATTER:
            end = row.start() + row.group().rindex(seed.pop())  # "... zoo thx"
        # Named a seed, a row may hold more of them: BIP39 lists "all", "also", "about".
        named_before = _NAMED_BEFORE.search(text, max(0, row.start() - 40), row.start())
        most = len(seed) // 2 if lead or named_before else _JOINING_WORDS
        if len(seed) in _LENGTHS and sum(map(known_words.common, seed)) <= most:
            start = row.start() + (
                row.group().index(seed[0], len(" ".join(words[:lead]))) if lead else 0
            )
            yield start, len(text[:end].rstrip())
