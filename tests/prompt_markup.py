"""Prompt markup as an attacker would write it, and a reading that finds it live.

Strategies for tests: every tag the shipped templates use and the chat
templates' turn tokens, in any case, with stray spaces, tabs and line
breaks, full-width or small-form brackets and letters, characters nobody
sees inside (format characters, variation selectors, combining marks,
Hangul fillers, a braille blank), attributes of any length, a line break
inside a turn token.  ``live`` judges a text independently of the code
under test: decomposed to compatibility forms, everything unseen dropped
(by general category and character name, not by the sanitiser's table),
in any case.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from hypothesis import strategies as st

DATA = Path(__file__).resolve().parents[1] / "data"
TURN_TOKENS = ("im_start", "im_end", "eot_id", "start_header_id", "end_of_text", "end")
"""Names of ``<|...|>`` special tokens of common chat templates."""
BRACKET_TOKENS = ("INST", "/INST", "SYSTEM_PROMPT", "TOOL_CALLS")
"""Bracketed turn tokens (Llama 2, Mistral)."""


def template_tags() -> list[str]:
    """Every tag name the shipped prompt templates use (<memories>, <tool_call>...)."""
    names: set[str] = set()
    for path in DATA.rglob("*.txt"):
        text = re.sub(r"<!--.*?-->", "", path.read_text("utf-8"), flags=re.DOTALL)
        names.update(m.casefold() for m in re.findall(r"</?([A-Za-z_][\w-]*)>", text))
    return sorted(names)


TAG_NAMES = sorted({*template_tags(), "start_of_turn", "end_of_turn", "s", "system"})

_SPACES = st.sampled_from([" ", "\t", "\n", "  ", "\u3000", "\r\n"])
INVISIBLE = (
    # Format characters: zero-width space, word joiner, BOM, soft hyphen, ZWJ, tag space.
    "\u200b\u2060\ufeff\u00ad\u200d\U000e0020"
    # Variation selectors, the combining grapheme joiner, a Mongolian one, Khmer's inherent vowel.
    "\ufe0f\ufe00\U000e0100\u034f\u180b\u17b4"
    # Combining marks (an accent, an enclosing circle) and Hangul fillers.
    "\u0301\u0338\u20dd\u3164\u115f\u1160\uffa0"
    # A blank braille cell and a control character.
    "\u2800\x7f"
)
"""Characters a reader does not see (or sees as nothing but a blank)."""
_INVISIBLE = st.sampled_from(INVISIBLE)
_LT = st.sampled_from(["<", "\uff1c", "\ufe64"])
_GT = st.sampled_from([">", "\uff1e", "\ufe65"])
_ATTRIBUTE = st.text(
    st.sampled_from([*'abcxyz019 ="-_:/\t', "\u00e9", "\u0436", "\u4e2d", *INVISIBLE]),
    max_size=200,
)
"""What may follow a tag's name: ``class="x"``, or any length of junk."""


def _full_width(char: str) -> str:
    return chr(ord(char) + 0xFEE0) if "!" <= char <= "~" else char


@st.composite
def spelled(draw: st.DrawFn, word: str, breaks: bool = False) -> str:
    """*word* in any case, some letters full-width, maybe split by invisible
    characters (or, with *breaks*, by a space or line break too)."""
    letters = [
        draw(st.sampled_from([c.lower(), c.upper(), _full_width(c.lower()), _full_width(c)]))
        for c in word
    ]
    inside = st.one_of(_INVISIBLE, _SPACES) if breaks else _INVISIBLE
    for _ in range(draw(st.integers(0, 2)) if len(letters) > 1 else 0):
        letters.insert(draw(st.integers(1, len(letters) - 1)), draw(inside))
    return "".join(letters)


def _gap(draw: st.DrawFn) -> str:
    return draw(st.one_of(st.just(""), _SPACES, _INVISIBLE))


def _attributes(draw: st.DrawFn) -> str:
    """Nothing, a slash, or a separator and attributes of any length."""
    kind = draw(st.sampled_from(["none", "slash", "attributes"]))
    if kind == "none":
        return ""
    if kind == "slash":
        return "/"
    return draw(st.sampled_from([" ", "\t", "\n", "\u3000"])) + draw(_ATTRIBUTE)


@st.composite
def tag_variant(draw: st.DrawFn) -> tuple[str, str]:
    """(a variant of an opening or closing template tag, how to find it live)."""
    name = draw(st.sampled_from(TAG_NAMES))
    slash = draw(st.sampled_from(["", "/", "\uff0f"]))
    variant = (
        draw(_LT)
        + _gap(draw)
        + slash
        + _gap(draw)
        + draw(spelled(name))
        + _attributes(draw)
        + _gap(draw)
        + draw(_GT)
    )
    return variant, rf"<\s*/?\s*{re.escape(name)}(?:[\s/][^<>]*)?>"


@st.composite
def turn_variant(draw: st.DrawFn) -> tuple[str, str]:
    """(a variant of a chat template's special or bracketed token, how to find it live)."""
    if draw(st.booleans()):
        name = draw(st.sampled_from(TURN_TOKENS))
        bar = draw(st.sampled_from(["|", "\uff5c"]))
        variant = (
            draw(_LT)
            + _gap(draw)
            + bar
            + draw(spelled(name, breaks=True))
            + bar
            + _gap(draw)
            + draw(_GT)
        )
        spaced = r"\s*".join(re.escape(c) for c in name)
        return variant, rf"<\s*\|\s*{spaced}\s*\|\s*>"
    name = draw(st.sampled_from(BRACKET_TOKENS))
    variant = draw(st.sampled_from(["[", "\uff3b"])) + _gap(draw) + draw(spelled(name))
    return variant + _gap(draw) + draw(st.sampled_from(["]", "\uff3d"])), (
        rf"\[\s*{re.escape(name)}\s*\]"
    )


def live_count(found: str, text: str) -> int:
    """How many times *text*, read as ``live`` reads it, holds the markup *found*."""
    return len(re.findall(found, seen(text), re.IGNORECASE))


def live(found: str, text: str) -> bool:
    """Does *text*, read as a model's tokenizer or eye might (compatibility
    forms, no invisible characters, any case), hold the markup *found*?"""
    return re.search(found, seen(text), re.IGNORECASE) is not None


def seen(text: str) -> str:
    """*text* as a reader sees it: compatibility forms, accents and every
    character that shows nothing (or only a blank) dropped."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not _unseen(c))


def _unseen(char: str) -> bool:
    category = unicodedata.category(char)
    if category == "Cc":
        return not char.isspace()
    return (
        category in ("Cf", "Mn", "Me", "Cn")
        or "FILLER" in unicodedata.name(char, "")
        or char == "\u2800"  # BRAILLE PATTERN BLANK
    )
