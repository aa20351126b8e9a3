"""A crypto wallet's recovery phrase, for ``redaction``.

A wallet's seed (BIP39) is 12, 15, 18, 21 or 24 words, each of three to
eight small letters, written in a row: "canvas brisk bean collect ...".
Whoever has it has the wallet, and people paste it with no word naming it
("^ the words for my trezor").  Prose never runs that many words without
one of the small words that join them ("the", "and", "to", "with"), and a
seed has few of those, so a row of exactly so many short words, almost
none of them among the most used of a language, and all of them but one
in twelve on BIP39's English list (a typo; ``data/wordlists``), is taken
as one: shape alone took twelve numbered words of a to-do list (round
27).  A row nothing names a seed or a wallet must also end in its
checksum, as every phrase a wallet shows does: a list of things made of
BIP39's words ("salad pepper lemon garlic ...", round 28) ends in it once
in sixteen.  A Monero seed's 25 words come from a list of its own and are taken
by their shape.  A wallet also shows the words numbered ("1. canvas 2.
brisk ..."), in a row or a column; a list of things (a shopping list)
holds plurals, which the BIP39 list hardly has, and is none unless named a
seed.
"""

from __future__ import annotations

import hashlib
import itertools
import re
import string
from collections.abc import Iterator
from functools import cache

from desktop.core.base import paths, text_scan
from desktop.core.privacy import known_words

_LENGTHS = frozenset({12, 15, 18, 21, 24, _MONERO := 25})
"""How many words a BIP39 phrase has, or a Monero wallet's seed (25)."""
_WORD_LIST = "wordlists/bip39_english.txt"
"""BIP39's 2,048 English words, under the shipped ``data/``."""
_OFF_THE_LIST = 12
"""A phrase may hold one word not on the list in so many (a typo)."""
_NAMING = frozenset({"seed", "phrase", "mnemonic", "words", "recovery", "is", "are"})
"""Words that may lead the row, naming it ("my monero seed acid brave cloud ...")."""
_ROW = re.compile(r"(?<![\w'\u2019.-])[a-z]{3,8}(?:[ \t]+[a-z]{3,8}){11,}(?![\w'\u2019-])")
"""Twelve short words of small letters or more, only spaces between, the
whole row (so a long run of filler is no seed, nor are its last 24 words)."""
_CHATTER = frozenset(
    str.split("thx thanks cheers lol pls please merci danke gracias grazie obrigado ok")
)
"""Words a chat message ends with after the row: "... zoo thx" (round 22);
words off BIP39's list after a row end one too ("... pulp anyway", round 35)."""
_NAMED_BEFORE = re.compile(r"\b(?:seed|mnemonic|recovery|wallet)\b[^\n.!?]{0,20}\Z", re.IGNORECASE)
"""Words naming the row right before it: "seed phrase is all agent ..."."""
_WALLET_NEAR = re.compile(
    r"\b(?:seed|mnemonic|recovery|wallet|bip-?39|ledger|trezor|metamask|electrum"
    r"|exodus|coinbase|phantom|keepkey|bitbox|crypto|bitcoin|btc|eth(?:ereum)?)\b[^.!?]{0,40}\Z",
    re.IGNORECASE,
)
"""Words naming a wallet or its words in the line before a row or its own:
"my ledger's words\n...", "12 words for the ledger: ..."."""
_JOINING_WORDS = 2
"""How many of the most used words a seed may hold ("about", "all", "also");
half of it, when words naming it lead the row or stand right before it
("seed phrase is all agent ...", round 22)."""


_PLURALS = 3
"""How many plurals of known words a row may hold unnamed: BIP39 lists none
but a few such as "jeans" and "news", a shopping list many ("milk eggs
bread ... apples onions", round 26)."""
_NUMBERED = re.compile(
    r"(?<![\w.])1[.)]?[ \t]+[a-z]{3,8}"
    r"(?:[ \t]*\n?[ \t]*\d{1,2}[.)]?[ \t]+[a-z]{3,8}(?![\w'-])){11,}"
)
"""A phrase as a wallet shows it, each word after its number, in a row or a
column: "1. canvas 2. brisk ... 12. deer" (round 26)."""
_NUMBER = re.compile(r"(\d{1,2})[.)]?[ \t]+([a-z]{3,8})")


def secret_spans(text: str) -> Iterator[tuple[int, int]]:
    """Where each row of words shaped like a wallet's seed is in *text*,
    numbered or not."""
    yield from _rows(text)
    for row in text_scan.matches(_NUMBERED, text):
        entries = _NUMBER.findall(row.group())
        numbers = [int(number) for number, _ in entries]
        words = [word for _, word in entries]
        length = next(
            (n for n in sorted(_LENGTHS, reverse=True) if numbers[:n] == list(range(1, n + 1))), 0
        )
        seed = words[:length]
        named = _NAMED_BEFORE.search(text, max(0, row.start() - 40), row.start()) is not None
        if (
            length
            and sum(map(known_words.common, seed)) <= length // 2
            and _on_the_list(seed)
            and not _listed(seed, named)
        ):
            last = list(_NUMBER.finditer(row.group()))[length - 1]
            yield row.start(), row.start() + last.end()


def _rows(text: str) -> Iterator[tuple[int, int]]:
    """Each row of words in a line shaped like a wallet's seed."""
    for row in text_scan.matches(_ROW, text):
        line = row.group()  # a new copy at each call: a long line's, once
        spans = [word.span() for word in _WORD.finditer(line)]
        words = [line[low:high] for low, high in spans]
        # Named a seed, a row may hold more of them: BIP39 lists "all", "also", "about".
        named_before = _NAMED_BEFORE.search(text, max(0, row.start() - 40), row.start())
        near = _WALLET_NEAR.search(text, max(0, row.start() - 60), row.start()) is not None
        if (found := _seed_in(words, named_before is not None, near)) is not None:
            first, last = found
            yield row.start() + spans[first][0], row.start() + spans[last - 1][1]


_WORD = re.compile(r"\S+")


def _seed_in(words: list[str], named_before: bool, near: bool) -> tuple[int, int] | None:
    """Where in *words* (a row) a seed stands, from its first word to past
    its last: after the words naming it ("seed phrase is ..."), before
    those ending a message ("... zoo thx"), or the whole row.  A row
    nothing names, no wallet *near* it, must end in its checksum; a whole
    row ending in it is the seed even if a word in it names one ("column
    impact seed adult ...")."""
    named = [at for at, word in enumerate(words[:5]) if word in _NAMING]
    found = [
        (lead, *seed)
        for lead in dict.fromkeys((named[-1] + 1 if named else 0, 0))
        if (seed := _seed_from(words, lead, bool(lead or named_before), near)) is not None
    ]
    whole = [(lead, end) for lead, end, summed in found if lead == 0 and summed]
    return next(iter(whole or [(lead, end) for lead, end, _ in found]), None)


def _seed_from(
    words: list[str], lead: int, called_one: bool, near: bool
) -> tuple[int, bool] | None:
    """Where a seed starting at *lead* in *words* ends (before the words
    ending a message) and whether its checksum holds, if it is one."""
    end = len(words)
    while end - lead not in _LENGTHS and end > lead and words[end - 1] in _CHATTER:
        end -= 1
    past = end  # "... pulp anyway": words off BIP39's list after it end a message too
    while end - lead not in _LENGTHS and past > lead and words[past - 1] not in _bip39_words():
        past -= 1
    if past - lead in _LENGTHS:
        end = past
    seed = words[lead:end]
    if len(seed) not in _LENGTHS or not _on_the_list(seed):
        return None
    # A checksum holding vouches for a row as its naming does: BIP39 lists
    # "about", "all", "also", "series", "stairs" (a wallet's phrase of
    # three such was kept).
    summed = len(seed) != _MONERO and _checksum_holds(seed)
    vouched = called_one or summed
    most = len(seed) // 2 if vouched else _JOINING_WORDS
    if _listed(seed, vouched) or sum(map(known_words.common, seed)) > most:
        return None
    return (end, summed) if vouched or near or len(seed) == _MONERO else None


def _on_the_list(words: list[str]) -> bool:
    """Are (nearly) all of *words* BIP39's, as a wallet's are (or are they
    a Monero seed's 25)?"""
    if len(words) == _MONERO:
        return True
    listed = _bip39_words()
    return sum(word not in listed for word in words) <= len(words) // _OFF_THE_LIST


@cache
def _bip39_list() -> tuple[str, ...]:
    return tuple((paths.data_dir() / _WORD_LIST).read_text(encoding="utf-8").split())


@cache
def _bip39_words() -> frozenset[str]:
    return frozenset(_bip39_list())


@cache
def _bip39_numbers() -> dict[str, int]:
    return {word: number for number, word in enumerate(_bip39_list())}


def _checksum_holds(words: list[str]) -> bool:
    """Do *words* end in their BIP39 checksum, as every phrase a wallet
    shows does, a word typed one letter off read as the list's words one
    letter from it ("dizy" as "dizzy")?  A row of BIP39's words drawn by
    chance ends in it once in sixteen (twelve words), a list of things
    ("salad pepper lemon garlic ...") as rarely."""
    readings = [(word,) if word in _bip39_numbers() else _one_letter_from(word) for word in words]
    return any(map(_ends_in_its_checksum, itertools.product(*readings)))


def _ends_in_its_checksum(words: tuple[str, ...]) -> bool:
    numbers = _bip39_numbers()
    bits = 0
    for word in words:
        bits = bits << 11 | numbers[word]
    checksum_bits = len(words) * 11 // 33
    entropy = (bits >> checksum_bits).to_bytes(len(words) * 4 // 3, "big")
    digest = hashlib.sha256(entropy).digest()[0]
    return bits & ((1 << checksum_bits) - 1) == digest >> (8 - checksum_bits)


def _one_letter_from(typo: str) -> tuple[str, ...]:
    """BIP39's words one letter dropped, added, changed or swapped from *typo*."""
    cuts = [(typo[:at], typo[at:]) for at in range(len(typo) + 1)]
    letters = string.ascii_lowercase
    edits = {
        *(head + tail[1:] for head, tail in cuts if tail),
        *(head + tail[1] + tail[0] + tail[2:] for head, tail in cuts if len(tail) > 1),
        *(head + letter + tail[1:] for head, tail in cuts if tail for letter in letters),
        *(head + letter + tail for head, tail in cuts for letter in letters),
    }
    return tuple(sorted(edits & _bip39_words()))


def _listed(words: list[str], named: bool) -> bool:
    """Are *words*, not named a seed, a list of things, several of them plurals?"""
    return not named and sum(map(_a_plural, words)) >= _PLURALS


def _a_plural(word: str) -> bool:
    """Is *word* the plural of a known word ("apples", "onions"; not "chaos", "across")?"""
    if not word.endswith("s") or word.endswith(("ss", "us", "is", "os", "as")):
        return False
    return known_words.known(word[:-1]) or (word.endswith("es") and known_words.known(word[:-2]))
