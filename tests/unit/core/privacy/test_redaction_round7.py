"""What a seventh look at redaction found: a value said again as a
correction ("no wait, it is Y"), a value beside a marker copied from a
transcript, a place glued to a quoted value, and a Discord webhook's short
token.  Ordinary text around a correction or a marker stays."""

from __future__ import annotations

import pytest

from desktop.core.privacy.redaction import redact

_MARK = "[redacted password]"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "the wifi password is Qq7#mm — no wait, it is Xr9!tq2z now",
            f"the wifi password is {_MARK} — no wait, it is {_MARK} now",
        ),
        ("my pin is 4417, sorry, I meant 4471", f"my pin is {_MARK}, sorry, I meant {_MARK}"),
        (
            "> the wifi password is [redacted password]\nit changed, it is now Xr9!tq2z",
            f"> the wifi password is [redacted password]\nit changed, it is now {_MARK}",
        ),
        ("口令\uff1acorrect horse 7 battery", f"口令\uff1a{_MARK}"),
        ("webhook_secret=correct horse 7 battery", f"webhook_secret={_MARK}"),
        ("pin: [redacted pin] 4417", f"pin: [redacted pin] {_MARK}"),
        ("gym app password Ocean Breeze 44", f"gym app password {_MARK}"),
        ("PIN's Ocean Breeze 44", f"PIN's {_MARK}"),
        ("Ocean Breeze 44 = my gmail pw", f"{_MARK} = my gmail pw"),
        (
            "write down Ocean Breeze 44, it's my bank password",
            f"write down {_MARK}, it's my bank password",
        ),
        ("password: Xr9!tq2z[redacted password]", f"password: {_MARK}[redacted password]"),
        ('password at the cabin:"aaa0"', f'password at the cabin:"{_MARK}"'),
        ("redis://:Aaa0/x@localhost:6379", f"redis://:{_MARK}@localhost:6379"),
        (
            "https://discord.com/api/webhooks/363896227567817032/"
            "M6TWOrdDwj8L16z3Z0zJe7BnhBKPVF22dJM90mZn8W5ImXNE5np5xnUZRe",
            "https://discord.com/api/webhooks/[redacted api key]",
        ),
    ],
)
def test_the_value_goes(text: str, expected: str) -> None:
    assert redact(text).text == expected
    assert redact(expected).text == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Passwords:\n- email: 5b9f-ee71\n- bank: vanilla-21",
            f"Passwords:\n- email: {_MARK}\n- bank: {_MARK}",
        ),
        ("PINs\n  debit: 2468\n  credit: Pq7!rr", f"PINs\n  debit: {_MARK}\n  credit: {_MARK}"),
        (
            "my logins:\nfacebook  gr33n.tea\ninstagram  3105",
            f"my logins:\nfacebook  {_MARK}\ninstagram  {_MARK}",
        ),
        ("### Logins\n**Gmail** \u2014 K\u00e4tzchen7", f"### Logins\n**Gmail** \u2014 {_MARK}"),
        (
            "Accounts\n* Amazon \u2014 Zx81$pq\n* PayPal \u2014 Tiger@88\n(all passwords)",
            f"Accounts\n* Amazon \u2014 {_MARK}\n* PayPal \u2014 {_MARK}\n(all passwords)",
        ),
        (
            "Netflix: Maple#2291, Hulu: Pq7!rr (both passwords)",
            f"Netflix: {_MARK}, Hulu: {_MARK} (both passwords)",
        ),
    ],
)
def test_a_list_under_or_over_the_credentials_name_goes(text: str, expected: str) -> None:
    assert redact(text).text == expected


@pytest.mark.parametrize(
    "text",
    [
        "Passwords:\n- at least 12 characters\n- one digit\n- max age: 365 days",
        "Passwords:\n- rotated: 2024-01-01\n- policy: v2.1\n\nTodo: 1234 steps",
        "I have 3 kids, 2 cats (all passwords are weak)",
    ],
)
def test_a_list_about_credentials_stays(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    "text",
    [
        "password: [redacted password]. Actually the router's address is 192.168.1.1",
        "password: [redacted password]\nActually, never mind, call me at 5pm",
        "the password is [redacted password]. Sorry, it is 10 characters long",
        "pin: [redacted pin] (changed 2024)",
        "https://api.example.com/v1/items?api_key=[redacted password]&limit=10",
        '<input type="password" name="pw" maxlength="2025">',
        "password Manager Pro 2024",
        "Reset your password Before March 15",
        "Windows Server 2019 is the password manager host",
    ],
)
def test_what_follows_a_value_or_a_marker_stays(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    ("asked", "answer"),
    [
        ("What year did you set your password?", "2019"),
        ("How many PINs do you have?", "3 or 4"),
        ("How long is the wifi password?", "12 chars"),
        ("When did you last change the router password?", "2024-03"),
    ],
)
def test_an_answer_to_when_or_how_many_is_no_secret(asked: str, answer: str) -> None:
    assert redact(answer, after=[asked]).text == answer
    assert redact(f"{asked} {answer}").text == f"{asked} {answer}"


def test_an_answer_to_what_the_credential_is_still_goes() -> None:
    assert redact("2019", after=["What is your bank PIN?"]).text == _MARK
    assert redact("What is the password? Xr9!tq2z").text == f"What is the password? {_MARK}"
