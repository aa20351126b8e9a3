"""What round 4 left: ordinary lines of code and docs taken for secrets (a
status code, a key size, a standard's number, a column type) and text
around a value eaten with it (YAML tags and anchors, German and Polish
quotes).  The attack's own words; the families are in
``test_redaction_phrasings``."""

from __future__ import annotations

import pytest

from desktop.core.redaction import redact


@pytest.mark.parametrize(
    "text",
    [
        "Code: 200 OK",
        "Code: 404 Not Found again",
        "The key is 256-bit AES.",
        "the token is ERC-20 compatible",
        "| field | type |\n| --- | --- |\n| password | string(64) |",
        "| password | varchar(255) |",
        '<label for="password">Password</label> <input id="password" type="password">',
        '<a href="/account/password">Change password</a>',
        "const token = await getToken(user, {ttl: 3600});",
        "The secret ingredient in Mom's soup is 100 cloves of garlic.",
        "My passcode is Face ID now.",
    ],
)
def test_ordinary_lines_stay(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("password: !!str hunter2x9", "password: !!str [redacted password]"),
        (
            "db:\n  password: &pw hunter2x9\n  other: *pw",
            "db:\n  password: &pw [redacted password]\n  other: *pw",
        ),
        (
            "Passwort: \u201eblue whale 7\u201c sagte er",
            "Passwort: \u201e[redacted password]\u201c sagte er",
        ),
        ("Has\u0142o to \u201akot2x9\u2018.", "Has\u0142o to \u201a[redacted password]\u2018."),
        ("my pin is 404", "my pin is [redacted password]"),
        # Still taken: a word the weak one names, and a BBCode label.
        ("the secret word is 48213", "the secret word is [redacted password]"),
        ("[b]password[/b]: 48213", "[b]password[/b]: [redacted password]"),
        ("token = abc123, ttl: 3600", "token = [redacted password], ttl: 3600"),
    ],
)
def test_only_the_value_goes(text: str, expected: str) -> None:
    assert redact(text).text == expected
