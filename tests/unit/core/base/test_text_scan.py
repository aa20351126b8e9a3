"""A scan a window at a time finds what one scan over the whole text finds."""

from __future__ import annotations

import random
import re

import pytest

from desktop.core.base import text_scan
from desktop.core.privacy import credential_nearby, credential_phrases

PIECES = [
    "my password is hunter2x9 ",
    "the wifi password at the cabin is Cb7!wf. ",
    "PIN: 4821\n",
    "passwords:\n- bank: Kr4k3n!\n- mail: Pepper#12\n",
    "nothing here at all, just words and 3 apples; ",
    "id,name,amount\n17,Widget A,12.50\n",
    "Passwort ist Sommer2025! und ",
    "pasword for wifi X7pq! ",
    "\n\n",
]


def _text(seed: int, length: int = 6_000) -> str:
    pick = random.Random(seed)
    parts: list[str] = []
    while sum(map(len, parts)) < length:
        parts.append(pick.choice(PIECES))
    return "".join(parts)


def _patterns() -> list[re.Pattern[str]]:
    return [
        *(pattern for pattern, _ in credential_phrases._PATTERNS),
        credential_nearby._names(),
    ]


@pytest.mark.parametrize("seed", range(3))
def test_small_windows_find_what_finditer_finds(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(text_scan, "WINDOW", 37)  # many window ends, inside words and phrases
    text = _text(seed)
    for pattern in _patterns():
        expected = [m.span() for m in pattern.finditer(text)]
        assert [m.span() for m in text_scan.matches(pattern, text)] == expected, pattern.pattern


def test_a_match_running_into_the_window_end_is_read_again_over_the_whole_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(text_scan, "WINDOW", 10)
    monkeypatch.setattr(text_scan, "MARGIN", 4)
    # With the text cut at 14, "passw" would match; "passwd" is no match.
    pattern = re.compile(r"pass\w(?!\w)")
    text = "x" * 9 + "passwd and then passx " + "y" * 40
    assert [m.span() for m in text_scan.matches(pattern, text)] == [
        m.span() for m in pattern.finditer(text)
    ]
    assert [m.group() for m in text_scan.matches(pattern, text)] == ["passx"]


def test_redaction_of_a_long_text_is_the_same_read_by_windows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from desktop.core.privacy.redaction import redact

    text = _text(7, 3_000)
    whole = redact(text).text
    monkeypatch.setattr(text_scan, "WINDOW", 53)
    assert redact(text).text == whole
    assert "hunter2x9" not in whole and "Pepper#12" not in whole


# -- the words a pattern needs ------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "needed"),
    [
        # A literal run, lowercased; alternatives together; a repeat of at
        # least one; nothing from what may be left out or is no literal.
        (r"my PIN is \d+", [{"my pin is "}]),
        (r"(?:password|code|pin)[:=]\s*\S+", [{"password", "code", "pin"}]),
        (r"(?:ab){2,}x?(?:cd)*", [{"ab"}]),
        (r"(?:token )?[A-Za-z0-9]{20,}", []),
        (r"\bkey\b[^\n]{0,20}\bwifi\b", [{"wifi"}, {"key"}]),
        # One alternative needing nothing, or one character, makes the set useless.
        (r"(?:secret|\d{4})", []),
        (r"(?:secret|x)", []),
        # Only ASCII counts: no case-folding rule to worry about.
        (r"Passwort für", [{"passwort f"}]),
        (r"(?=code)\w+", []),
    ],
)
def test_the_words_a_pattern_needs_are_read_from_it(pattern: str, needed: list[set[str]]) -> None:
    assert [set(words) for words in text_scan.needed_words(re.compile(pattern))] == needed


def test_a_text_without_the_needed_words_is_not_searched() -> None:
    pattern = re.compile(r"\bpassword\b\s*[:=]\s*\S+", re.IGNORECASE)
    assert not text_scan.may_match(pattern, "the garden needs water: 3 litres")
    assert not list(text_scan.matches(pattern, "the garden needs water: 3 litres"))
    assert [m.group() for m in text_scan.matches(pattern, "PASSWORD: x7")] == ["PASSWORD: x7"]


def test_letters_ignorecase_takes_for_ascii_ones_count_as_them() -> None:
    # re.IGNORECASE matches the long s for s, the Kelvin sign for k and a
    # dotted capital I for i: the test for a word must see them too.
    pattern = re.compile(r"password|key|pin", re.IGNORECASE)
    for text in ("pa\u017f\u017fword", "\u212aEY", "P\u0130N"):
        assert pattern.search(text) is not None
        assert text_scan.may_match(pattern, text), text


@pytest.mark.parametrize("seed", range(3))
def test_a_pattern_that_matches_always_may_match(seed: int) -> None:
    # Every redaction pattern, on texts that hold what they look for (and
    # the same texts with letters swapped for their case twins).
    from desktop.core.privacy import redaction

    patterns = [*_patterns(), *(p for _, ps in redaction._patterns() for p in ps)]
    twins = str.maketrans({"s": "\u017f", "k": "\u212a", "I": "\u0130"})
    for text in (_text(seed, 2_000), _text(seed, 2_000).translate(twins)):
        for pattern in patterns:
            if pattern.search(text) is not None:
                assert text_scan.may_match(pattern, text), pattern.pattern
