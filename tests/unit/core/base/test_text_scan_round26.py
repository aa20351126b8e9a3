"""Round 26: a scan started again at each match asked ``may_match`` each time.

``may_match`` reads the whole text when a word it tests is missing, so a
reader that looked for its next match from where the last one ended
(``table_columns``' headers, ``credential_nearby``'s credential words)
read a long paste once per match: quadratic (a 3.2 MB paste of CSV
headers took 13.8 s, 30 s under cProfile with 21 in ``may_match``; 3.1 s now).  It is asked
once a text; the scans from each position use ``scanned``."""

from __future__ import annotations

import pytest

from desktop.core.base import text_scan
from desktop.core.privacy import table_columns
from desktop.core.privacy.credential_nearby import credential_words


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    texts: list[str] = []
    real = text_scan.may_match

    def counted(pattern: object, text: str) -> bool:
        texts.append(text)
        return real(pattern, text)  # type: ignore[arg-type]

    monkeypatch.setattr(text_scan, "may_match", counted)
    return texts


def test_a_long_table_of_password_headers_is_asked_about_once(asked: list[str]) -> None:
    spans = list(table_columns.secret_spans("password,site\n" * 4_000))

    assert len(spans) > 1_000
    assert len(asked) == 1


def test_a_long_text_of_credential_words_is_asked_about_once(asked: list[str]) -> None:
    words = list(credential_words("the wifi is down, " * 2_000))

    assert len(words) == 2_000
    assert len(asked) == 1


def test_scanned_finds_what_matches_finds_from_a_position() -> None:
    text = "pin 1, pin 2, no, pin 3"
    pattern = table_columns._NAMES_A_SECRET

    found = [m.span() for m in text_scan.scanned(pattern, text, 5)]

    assert found == [m.span() for m in text_scan.matches(pattern, text, 5)] == [(7, 10), (18, 21)]
