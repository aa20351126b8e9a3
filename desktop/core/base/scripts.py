"""Words in every script: where one ends, and how a script written without
spaces between words is read word by word.

A word keeps the marks on its letters (regex's ``\\w``, Unicode's: letters,
digits and marks; Python's ``re`` leaves the marks out, so "दिल्ली", Delhi,
was the letters द, ल and ल, and a Thai tone mark ended a word).

Chinese, Japanese, Korean (its syllables too), Thai, Lao, Khmer and
Burmese are written without spaces between words, so a whole sentence of
them is one ``\\w`` run.  With no dictionary to find their words, a run is
read by each pair of neighbouring letters (each letter with its marks), the
way search engines index them: "东京" is a pair of "我下周去东京", and
"住在北京" shares "住在" with "住在上海" and not "北京".
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import regex

WORD = regex.compile(r"\w+")
"""A word of any script with the marks on its letters.  It never holds a
double quote, punctuation or an emoji."""
_ASCII_WORD = re.compile(r"\w+")
"""``WORD`` in a text all ASCII, found sooner by re."""
_UNSPACED_CHARS = (
    "\u0e00-\u0eff\u1000-\u109f\u1100-\u11ff\u1780-\u17ff\u19e0-\u19ff"
    "\u2e80-\u2fdf\u3005-\u3007\u3021-\u3029\u3038-\u303b"
    "\u3040-\u30ff\u3100-\u318f\u31a0-\u31bf\u31f0-\u31ff\u3400-\u4dbf"
    "\u4e00-\u9fff\ua960-\ua97f\ua9e0-\ua9ff\uaa60-\uaa7f\uac00-\ud7ff\uf900-\ufaff"
    "\U00020000-\U0003134f"
)
"""Han ideographs (every extension), kana, bopomofo, Hangul, Thai, Lao,
Khmer and Burmese."""
_ANY_UNSPACED = re.compile(f"[{_UNSPACED_CHARS}]")
UNSPACED_LETTER = regex.compile(rf"[{_UNSPACED_CHARS}]\p{{M}}*")
"""One letter of an unspaced script with the marks on it."""
_UNSPACED_RUN = regex.compile(rf"(?:[{_UNSPACED_CHARS}]\p{{M}}*)+")


def has_unspaced(text: str) -> bool:
    """Whether *text* holds a letter of a script written without spaces."""
    return not text.isascii() and _ANY_UNSPACED.search(text) is not None  # re is far quicker


def word_pieces(word: str, joiner: str) -> Iterator[str]:
    """*word* (a ``WORD``, or any text without spaces) with each run of
    unspaced letters in it given as the pairs of its neighbours (a lone
    letter alone), joined by *joiner*; the rest of it as it is."""
    if not has_unspaced(word):
        yield word
        return
    start = 0
    for run in _UNSPACED_RUN.finditer(word):
        if run.start() > start:
            yield word[start : run.start()]
        letters = UNSPACED_LETTER.findall(run.group())
        yield from (joiner.join(letters[i : i + 2]) for i in range(max(len(letters) - 1, 1)))
        start = run.end()
    if start < len(word):
        yield word[start:]


def words_of(text: str) -> list[str]:
    """The words of *text* (``WORD``), a run of unspaced letters as the
    pairs of its neighbours ("住在北京": 住在, 在北, 北京)."""
    if text.isascii():
        return _ASCII_WORD.findall(text)
    return [piece for word in WORD.findall(text) for piece in word_pieces(word, "")]
