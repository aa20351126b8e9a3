"""Text as a reader sees it, with the way back to where each character stood.

Markup and credentials are looked for in a folded view of the text: each
character in its NFKD compatibility form, and every character a reader does
not see dropped (the default-ignorable ones: format characters, variation
selectors, the combining grapheme joiner, Hangul fillers; combining marks;
control characters; a blank braille cell), and letters of other scripts
drawn like Latin ones read as those (a Cyrillic a as a Latin one).  So ``</ MEMORIES >``, its
full-width twin and a word split by a zero-width space, a variation selector
or an accent read as the plain word.  ``folded`` also says where each folded
character came from, so what is found there is changed in the text itself.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from confusable_homoglyphs.confusables import confusables_data


def folded(text: str) -> tuple[str, list[int]]:
    """*text* with each character in its compatibility form and unseen
    characters dropped, and where each folded character came from."""
    folded: list[str] = []
    origins: list[int] = []
    for run in _PLAIN_RUN_OR_CHAR.finditer(text):
        start, stop = run.span()
        form = run.group() if run.lastgroup == "plain" else fold(run.group())
        folded.append(form)
        origins += range(start, stop) if run.lastgroup == "plain" else [start] * len(form)
    return "".join(folded), origins


def folded_text(text: str) -> str:
    """``folded(text)[0]``, without the way back: one translation of the
    text, so a long paste of other scripts is folded at the speed of
    ``str.translate`` (each distinct character folded once)."""
    table = {ord(c): fold(c) for c in set(text) if c not in _PLAIN}
    return text.translate(table) if table else text


@lru_cache(maxsize=8192)
def fold(char: str) -> str:
    if (char.isascii() and _ASCII_CONTROL.match(char) is None) or _HANGUL <= char <= _HANGUL_END:
        return char  # a Hangul syllable has no accent to drop: its letters stay one
    look_alikes = _look_alikes()
    return "".join(
        look_alikes.get(c, c) for c in unicodedata.normalize("NFKD", char) if not _unseen(c)
    )


def _unseen(char: str) -> bool:
    """A character that shows nothing where it stands, so ``</memo``, U+034F,
    ``ries>`` reads as ``</memories>``: a default-ignorable one, a combining
    mark (its letter reads as its base), a control character or a blank."""
    if char.isspace():
        return False
    code = ord(char)
    return (
        unicodedata.category(char) in _UNSEEN_CATEGORIES
        or any(first <= code <= last for first, last in DEFAULT_IGNORABLE)
        or char in _BLANKS
    )


_LOOK_ALIKES = dict(
    zip(
        # Cyrillic, Greek, Armenian, Latin letters drawn like others, small capitals.
        "аеіјорсуѕхһԁԛԝӏкАВЕІЈКМНОРСТХУЅӀԚԜҮαοριυνκχϲϳΑΒΕΖΗΙΚΜΝΟΡΤΥΧօսհոɑɡıᴀʙᴄᴅᴇɢʜɪᴊᴋʟᴍɴᴏᴘʀᴛᴜᴠᴡʏᴢɾ",
        "aeijopcysxhdqwlkABEIJKMHOPCTXYSIQWYaopiuvkxcjABEZHIKMNOPTYXouhnagiabcdeghijklmnoprtuvwyzr",
        strict=True,
    )
)
"""Letters of the scripts people write words in (Cyrillic, Greek, Armenian)
drawn like Latin ones, read as those: "password" written with a Cyrillic a
(U+0430) is "password".  Chosen by hand from Unicode's confusables: only the
letters one would mistake, so the words of those languages stay theirs."""
_OWN_SCRIPTS = frozenset({"CYRILLIC", "GREEK", "ARMENIAN", "GEORGIAN"})
"""Scripts whose look-alikes are only those chosen by hand (``_LOOK_ALIKES``)."""


@lru_cache(maxsize=1)
def _look_alikes() -> dict[str, str]:
    """``_LOOK_ALIKES``, and every other letter Unicode's confusables
    (UTS #39) draw like a Latin one: small capitals, Lisu, Cherokee, Coptic,
    Canadian syllabics, Tifinagh... ("[SYSTEM EVENT]" with a small capital S
    is "[SYSTEM EVENT]")."""
    table = dict(_LOOK_ALIKES)
    for char, glyphs in confusables_data.items():
        if len(char) != 1 or char in table or not _foreign_letter(char):
            continue
        latin = next((g["c"] for g in glyphs if len(g["c"]) == 1 and g["c"] in _LATIN), None)
        if latin is not None:
            # Unicode draws I and l as one shape, named l: a capital, or a
            # letter named I (Lisu's), reads as I.
            capital = char.isupper() or unicodedata.name(char).endswith(" I")
            table[char] = "I" if latin == "l" and capital else latin
    return table


def _foreign_letter(char: str) -> bool:
    """A letter NFKD leaves as it is, outside ASCII and the hand-chosen scripts."""
    if char.isascii() or not unicodedata.category(char).startswith("L"):
        return False
    if unicodedata.normalize("NFKD", char) != char:
        return False
    return unicodedata.name(char, "?").split()[0] not in _OWN_SCRIPTS


_LATIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_HANGUL, _HANGUL_END = "\uac00", "\ud7a3"
_ASCII_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1b\x7f]")
"""ASCII control characters that are no whitespace."""
_PLAIN_RUN_OR_CHAR = re.compile(r"(?P<plain>[\t-\r\x1c-\x7e]+)|.", re.DOTALL)
"""A run of ASCII characters that read as themselves (all but the control
characters above), or any other one character: a long paste with one emoji
is folded a run at a time, not a character at a time."""
_PLAIN = frozenset(map(chr, [*range(0x09, 0x0E), *range(0x1C, 0x7F)]))
"""The characters ``_PLAIN_RUN_OR_CHAR`` keeps as they are."""
_UNSEEN_CATEGORIES = frozenset({"Cf", "Cc", "Mn", "Me"})
_BLANKS = frozenset({"\u2800", "\U0001d159"})
"""Blank glyphs that are neither whitespace nor default-ignorable: the
braille pattern blank, the musical null notehead."""
DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
"""Unicode's Default_Ignorable_Code_Point ranges (DerivedCoreProperties.txt
of Unicode 15.1: 4,174 code points, adjacent ranges merged), which Python's
``unicodedata`` does not offer: characters a renderer shows as nothing, such
as U+3164 HANGUL FILLER, a letter and no format character."""


APOSTROPHES = str.maketrans(
    dict.fromkeys("\u2019\u2018`\u00b4\u02bc\u02bb\u02bd\u02b9\u2032\u2035\ua78c\uff07", "'")
)
"""Apostrophes as keyboards type them (curly, straight, a backtick, an
acute accent, the modifier letters U+02BC and U+02BB, a prime, the
full-width one): one mark."""
_SPACE = re.compile(r"\s+")


def normalised(text: str) -> str:
    """*text* for comparing what was said: case, spacing and curly apostrophes aside."""
    return _SPACE.sub(" ", text.translate(APOSTROPHES).casefold()).strip()
