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
