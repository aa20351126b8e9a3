"""Text from outside (a paste, a file, a model) made safe to store and show,
and quantities said as people read them."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import regex

# The one list of characters that show nothing (Unicode's default-ignorable
# code points) lives with the folding that reads text as a reader sees it.
from desktop.core.base.text_fold import DEFAULT_IGNORABLE, folded_text


def searchable(text: str) -> str:
    """*text* as a search compares it: case folded, without accents (as the
    messages' full-text index reads them, ``unicode61`` with diacritics
    removed), and in compatibility form, so "file" finds "ﬁle" and the
    full-width FILE, "cafe" finds "Café" and "x2" finds "x²"."""
    if text.isascii():
        return text.lower()
    folded = unicodedata.normalize("NFKD", unicodedata.normalize("NFKD", text).casefold())
    return "".join(char for char in folded if not unicodedata.combining(char))


def scrub(text: str) -> str:
    """*text* with surrogate pairs joined and lone surrogates (which UTF-8, and
    so SQLite, cannot hold) replaced by U+FFFD; everything else unchanged."""
    if text.isascii():
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def shows_nothing(text: str) -> bool:
    """Whether a reader sees nothing of *text*: only white space, combining
    marks with no letter under them, blanks (a braille cell, a Hangul
    filler) and the characters ``readable`` takes out.  A name made of them
    shows as an empty row."""
    return not folded_text(text).strip()


def readable(text: str) -> str:
    """*text* as a reader sees it: without the characters that show nothing
    yet change how it reads or what a model is told.  Those are the
    bidirectional embeddings, overrides, isolates and marks (which reorder
    what is shown), zero-width and other format characters, tag characters
    (invisible letters a model still reads) and control characters other
    than white space.  A zero-width joiner or non-joiner between two
    non-ASCII characters, and a variation selector after one, stay: they
    shape emoji and scripts such as Persian or Devanagari."""
    if text.isascii() and _ASCII_HIDDEN.search(text) is None:
        return text
    return "".join(
        char
        for index, char in enumerate(text)
        if not _hidden(char) or _shapes(text[index - 1 : index], char, text[index + 1 : index + 2])
    )


_ASCII_HIDDEN = re.compile(r"[\x00-\x08\x0e-\x1b\x7f]")
"""The ASCII characters ``_hidden`` takes out: controls that are not white
space (Python counts the separators 0x1c-0x1f as white space).  Searched
for at once: a pasted page of 450 KB was read a character at a time, 0.6 s
of its turn."""


@lru_cache(maxsize=4096)
def _hidden(char: str) -> bool:
    category = unicodedata.category(char)
    if category == "Cc":
        return not char.isspace()
    code = ord(char)
    return category == "Cf" or any(first <= code <= last for first, last in DEFAULT_IGNORABLE)


def _shapes(before: str, char: str, after: str) -> bool:
    """Whether the hidden *char* between *before* and *after* joins or
    selects the look of characters beside it (emoji, Arabic script, Indic)."""
    if char in _JOINERS:
        return bool(before and after) and not (before.isascii() or after.isascii())
    return _is_variation_selector(char) and bool(before) and not before.isascii()


_JOINERS = frozenset({"\u200c", "\u200d"})
"""The zero-width non-joiner and joiner."""


def _is_variation_selector(char: str) -> bool:
    return "\ufe00" <= char <= "\ufe0f" or "\U000e0100" <= char <= "\U000e01ef"


def cut(text: str, limit: int) -> str:
    """*text* up to *limit* characters, "…" marking a cut.  The cut falls
    between what a reader sees as characters (grapheme clusters): one made
    inside a family emoji showed a different person, inside a flag a stray
    letter, after a joiner whatever the joiner then fused with "…".  Only a
    single cluster longer than the whole limit (a letter under a hundred
    marks) is cut inside, where what is kept still reads as that letter."""
    if len(text) <= limit:
        return text
    keep = limit - 1
    end = 0
    for cluster in _GRAPHEME.finditer(text, 0, keep + 1):
        if cluster.end() > keep:
            break
        end = cluster.end()
    return text[: end or keep] + "…"


_GRAPHEME = regex.compile(r"\X")
"""What a reader sees as one character (Unicode's UAX #29)."""


def size_text(count: int | None) -> str:
    """*count* bytes as people read sizes: "1.1 GB", "98 MB", "300 KB"."""
    if count is None:
        return "?"
    if count >= 1_000_000_000:
        return f"{count / 1e9:.1f} GB"
    if count >= 1_000_000:
        return f"{count / 1e6:.0f} MB"
    if count >= 1_000:
        return f"{count / 1e3:.0f} KB"
    return f"{count} B"


def duration_text(seconds: float) -> str:
    """*seconds* as "1 h 5 min", "3 min" or "40 s"."""
    whole = int(seconds)
    if whole >= 3600:
        return f"{whole // 3600} h {whole % 3600 // 60} min"
    if whole >= 60:
        return f"{whole // 60} min"
    return f"{whole} s"
