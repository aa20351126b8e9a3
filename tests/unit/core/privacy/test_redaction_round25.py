"""Round 25: secrets in reported speech, behind an inflected word for a
password (Finnish, Hungarian, Turkish, Polish, Russian), in a device's admin
login, as a token without a digit, as a key named a line earlier, in a
transcript or an OCR'd screenshot, under an unusual config key, in shell
history, in a git remote, and sent after the question that asks for it
(``tests.secret_families_round25``, whose templates at even places are the
ones this round's rules were written on), sentences of the same look that
hold none, and rounds 21's and 22's leftovers.
"""

# Turkish and Russian are written as people type them.
# ruff: noqa: RUF001

from __future__ import annotations

import re

import pytest

from desktop.core.privacy.redaction import redact


def _assert_gone(text: str, *values: str, after: tuple[str, ...] = ()) -> None:
    redacted = redact(text, after=after).text
    for value in values:
        pattern = rf"(?<![A-Za-z0-9]){re.escape(value)}(?![A-Za-z0-9])"
        assert re.search(pattern, redacted) is None, redacted


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("vaihdoin wifin salasanaksi Coffee*86 dzięki", "Coffee*86"),
        ("salasanasi on Mistral!04", "Mistral!04"),
        ("e-posta şifremi Gelato!55 olarak değiştirdim", "Gelato!55"),
        ("modemin şifresini lumiere_9 yaptım", "lumiere_9"),
    ],
)
def test_an_inflected_word_for_a_password_names_its_value(text: str, value: str) -> None:
    _assert_gone(text, value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("a PIN-kódom 362604 köszi", "362604"),
        ("he whispered that the safe was 8226 спс", "8226"),
        ("поменял пароль на framboise33 спасибки", "framboise33"),
    ],
)
def test_a_value_then_hungarian_or_russian_thanks_is_taken_out(text: str, value: str) -> None:
    _assert_gone(text, value)


@pytest.mark.parametrize(
    "text",
    [
        "PIN-koodini unohdin",
        "salasanani on liian lyhyt",
        "jelszavam elfelejtettem",
        "şifremi değiştirdim",
        "пароль от почты я забыл",
    ],
)
def test_an_inflected_word_for_a_password_without_a_value_is_kept(text: str) -> None:
    assert redact(text).text == text


_PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
    "YPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)
_JPEG = (
    "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0aHBwg"
    "JC4nICIsIxwcKDcpLDAxNDQ0Hyc5PTgyPC4zNDL/wAALCAABAAEBAREA/8QAFAABAAAAAAAAAAAAAAAA"
    "AAAACf/EABQQAQAAAAAAAAAAAAAAAAAAAAD/2gAIAQEAAD8AKp//2Q=="
)


@pytest.mark.parametrize(
    "text",
    [
        f"here's the logo for the backup page.\n\n![logo](data:image/png;base64,{_PNG})",
        f'<img alt="me" src="data:image/jpeg;base64,{_JPEG}">',
        f"background: url(data:image/png;charset=utf-8;base64,{_PNG});",
    ],
)
def test_a_picture_inlined_in_a_data_url_is_kept(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("confirm with this token uDcVfuWXyyTk", "uDcVfuWXyyTk"),
        ("recovery token yOfptXLRmmyrCWkeV thx", "yOfptXLRmmyrCWkeV"),
        ("pairing code TXGHQLRX", "TXGHQLRX"),
        ("pairing code MLFH-GFCP.", "MLFH-GFCP"),
        ("rpcpassword=tkAxKvUpoVdb", "tkAxKvUpoVdb"),
    ],
)
def test_a_token_of_letters_drawn_at_random_is_taken_out(text: str, value: str) -> None:
    _assert_gone(text, value)


@pytest.mark.parametrize(
    "text",
    [
        "recovery token sent",
        "the token WordPress gave me",
        "the key JavaScript handles it",
        "the secret ValueError message",
        "pairing code appears on the TV",
        "security code strengths and weaknesses",
    ],
)
def test_a_word_or_a_name_in_code_after_a_token_is_kept(text: str) -> None:
    assert redact(text).text == text
