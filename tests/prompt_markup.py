"""Prompt markup as an attacker would write it, and a reading that finds it live.

Strategies for tests: every tag the shipped templates use and the chat
templates' turn tokens, in any case, with stray spaces, tabs and line
breaks, full-width or small-form brackets and letters, zero-width
characters inside.  ``live`` judges a text independently of the code under
test: folded as NFKC with format characters dropped, in any case.
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
_INVISIBLE = st.sampled_from(["\u200b", "\u2060", "\ufeff", "\u00ad", "\u200d"])
_LT = st.sampled_from(["<", "\uff1c", "\ufe64"])
_GT = st.sampled_from([">", "\uff1e", "\ufe65"])


def _full_width(char: str) -> str:
    return chr(ord(char) + 0xFEE0) if "!" <= char <= "~" else char


@st.composite
def spelled(draw: st.DrawFn, word: str) -> str:
    """*word* in any case, some letters full-width, maybe split by an invisible character."""
    letters = [
        draw(st.sampled_from([c.lower(), c.upper(), _full_width(c.lower()), _full_width(c)]))
        for c in word
    ]
    if len(letters) > 1 and draw(st.booleans()):
        letters.insert(draw(st.integers(1, len(letters) - 1)), draw(_INVISIBLE))
    return "".join(letters)


def _gap(draw: st.DrawFn) -> str:
    return draw(st.one_of(st.just(""), _SPACES))


@st.composite
def tag_variant(draw: st.DrawFn) -> tuple[str, str]:
    """(a variant of an opening or closing template tag, its name)."""
    name = draw(st.sampled_from(TAG_NAMES))
    slash = draw(st.sampled_from(["", "/", "\uff0f"]))
    variant = (
        draw(_LT) + _gap(draw) + slash + _gap(draw) + draw(spelled(name)) + _gap(draw) + draw(_GT)
    )
    return variant, rf"<\s*/?\s*{re.escape(name)}\s*>"


@st.composite
def turn_variant(draw: st.DrawFn) -> tuple[str, str]:
    """(a variant of a chat template's special or bracketed token, how to find it live)."""
    if draw(st.booleans()):
        name = draw(st.sampled_from(TURN_TOKENS))
        bar = draw(st.sampled_from(["|", "\uff5c"]))
        variant = draw(_LT) + _gap(draw) + bar + draw(spelled(name)) + bar + _gap(draw) + draw(_GT)
        return variant, rf"<\s*\|\s*{name}\s*\|\s*>"
    name = draw(st.sampled_from(BRACKET_TOKENS))
    variant = draw(st.sampled_from(["[", "\uff3b"])) + _gap(draw) + draw(spelled(name))
    return variant + _gap(draw) + draw(st.sampled_from(["]", "\uff3d"])), (
        rf"\[\s*{re.escape(name)}\s*\]"
    )


def live_count(found: str, text: str) -> int:
    """How many times *text*, read as ``live`` reads it, holds the markup *found*."""
    folded = unicodedata.normalize("NFKC", text)
    folded = "".join(c for c in folded if unicodedata.category(c) != "Cf")
    return len(re.findall(found, folded, re.IGNORECASE))


def live(found: str, text: str) -> bool:
    """Does *text*, read as a model's tokenizer or eye might (compatibility
    forms, no invisible characters, any case), hold the markup *found*?"""
    folded = unicodedata.normalize("NFKC", text)
    folded = "".join(c for c in folded if unicodedata.category(c) != "Cf")
    return re.search(found, folded, re.IGNORECASE) is not None
