"""Phrasings a second attack found leaking, one or two of each family
(other languages, typos, locks, URLs, command lines, config keys, markup,
user/password pairs, separators, the value first), and ordinary sentences
it found redacted.  The generated families are in
``test_redaction_phrasings``; these are the attack's own words."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from desktop.core.privacy.redaction import redact
from tests.growth import LINEAR, growth

LEAKED = [
    ("Mein Passwort ist {v}", "Tr0ub4dor&3"),
    ("Das Passwort für das WLAN ist {v}", "hunter2"),
    ("das Kennwort lautet {v}", "hunter2"),
    ("Die Geheimzahl meiner Karte ist {v}", "4412"),
    ("Der PIN-Code ist {v}", "qwerty123"),
    ("Mon mot de passe est {v}", "xK9#mq2L"),
    ("le code de la porte est {v}", "4412"),
    ("mon code PIN est {v}", "4412"),
    ("Mi contraseña es {v}", "hunter2"),
    ("la clave del wifi es {v}", "Lima-7734"),
    ("la mia password è {v}", "hunter2"),
    ("mijn wachtwoord is {v}", "hunter2"),
    ("a minha senha é {v}", "hunter2"),
    ("my pasword is {v}", "hunter2"),
    ("my passwrod is {v}", "hunter2"),
    ("my pssword is {v}", "hunter2"),
    ("the passowrd is {v}", "hunter2"),
    ("my passord is {v}", "hunter2"),
    ("my password's {v}", "qwerty123"),
    ("password iz {v}", "qwerty123"),
    ("the combination is {v}", "4412"),
    ("the lock combination is {v}", "p@ssw0rd!"),
    ("the combo for my locker is {v}", "xK9#mq2L"),
    ("the safe combination: {v}", "qwerty123"),
    ("the keypad code is {v}", "4412"),
    ("the garage code's {v}", "Lima-7734"),
    ("my code for the bike lock is {v}", "4412"),
    ("https://bob:{v}@example.com/repo", "Tr0ub4dor&3"),
    ("ftp://admin:{v}@192.168.1.4", "xK9#mq2L"),
    ("postgres://user:{v}@db.local:5432/app", "Zebra!Moon77"),
    ("sshpass -p {v} ssh pi@raspberry", "correcthorsebattery9"),
    ("mysql -u root -p{v}", "qwerty123"),
    ("DB_PASSWORD={v}", "hunter2"),
    ("db_password: {v}", "Tr0ub4dor&3"),
    ("export MYSQL_PWD={v}", "qwerty123"),
    ("SECRET={v}", "hunter2"),
    ("ADMIN_PASS={v}", "s3cr3tpass"),
    ("API_TOKEN={v}", "4412"),
    ("token: {v}", "hunter2"),
    ('{{"pass": "{v}"}}', "p@ssw0rd!"),
    ("**password**: {v}", "Zebra!Moon77"),
    ("| password | {v} |", "Ye11owSub"),
    ("<password>{v}</password>", "P1nkFloyd"),
    ("bob@example.com / {v}", "hunter2"),
    ("bob@example.com / {v}", "Aaa0@x"),  # cut short like an address, still the password
    ("bob@example.com:{v}", "T34lTime"),
    ("Netflix: bob / {v}", "hunter2"),
    ("wifi Home / {v}", "correcthorsebattery9"),
    ("SSID Home, key {v}", "xK9#mq2L"),
    ("login bob@example.com pass {v}", "Lima-7734"),
    ("user bob pass {v}", "qwerty123"),
    ("password — {v}", "hunter2"),
    ("passcode - {v}", "Tr0ub4dor&3"),
    ("password? {v}", "Lima-7734"),
    ("password - it's {v}", "hunter2"),
    ("Password hint: it's {v}", "Ind1goInk"),
    ("my password, which is {v}, ", "4412"),
    ("it's {v}, my password", "hunter2"),
    ("{v} - my password", "qwerty123"),
    ("{v} = wifi password", "Lima-7734"),
    ("{v} (password)", "4412"),
    ("{v} is the code", "4412"),
    ("I always use {v} as my password", "p@ssw0rd!"),
    ("I set it to {v} (the router password)", "hunter2"),
    ("the key to the wifi is {v}", "qwerty123"),
    ("secret answer: {v}", "Zebra!Moon77"),
    ("security answer is {v}", "s3cr3tpass"),
    ("log in with {v}", "xK9#mq2L"),
    ("use {v} to log in", "qwerty123"),
    ("the door opens with {v}", "4412"),
]


@pytest.mark.parametrize(("template", "value"), LEAKED)
def test_the_phrasings_that_leaked_lose_their_value(template: str, value: str) -> None:
    redacted = redact(template.format(v=value)).text

    assert value not in redacted
    assert "[redacted" in redacted


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The value only, not the words beside it.
        ("the password (it's hunter2) works", "the password (it's [redacted password]) works"),
        (
            "Das Passwort für das WLAN ist hunter2.",
            "Das Passwort für das WLAN ist [redacted password].",
        ),
        ("user bob pass qwerty123", "user bob pass [redacted password]"),
        ("bob@example.com / hunter2", "bob@example.com / [redacted password]"),
        (
            "https://bob:Tr0ub4dor&3@example.com/repo",
            "https://bob:[redacted password]@example.com/repo",
        ),
        (
            "I always use p@ssw0rd! as my password",
            "I always use [redacted password] as my password",
        ),
        ("| password | Ye11owSub |", "| password | [redacted password] |"),
    ],
)
def test_only_the_value_goes(text: str, expected: str) -> None:
    assert redact(text).text == expected


@pytest.mark.parametrize(
    "text",
    [
        "My PIN is four digits long.",
        "My passcode is six digits.",
        "My password is hunter-themed, but that's all I'll say.",
        "Password: see the manager.",
        "The password was shared over Signal.",
        "My passwords are all in a notebook.",
        # Words the new families use, in ordinary sentences.
        "The combination of flavours was amazing.",
        "The combination lock on the gym locker is rusty.",
        "The code is on GitHub under my account.",
        "My zip code is the same as my parents'.",
        "The dress code is smart casual.",
        "The key to the shed is under the mat.",
        "Le mot de passe est trop long.",
        "Mein Passwort ist zu kurz.",
        "La contraseña es demasiado corta.",
        "Log in with Google, it is easier.",
        "The ratio was 3 / 4 in the end.",
        "Email me at bob@example.com: I reply fast.",
        "Do you know the password? Sam does.",
        "Oh well, my password for the bank is long.",
        "I use Python for everything.",
        "The password - which I forgot - is long.",
    ],
)
def test_ordinary_sentences_stay(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    "text",
    [
        "[redacted password] is my password",
        "The user's Stripe key is [redacted api key]",
        "my password is [redacted password] and the token is [redacted token]",
    ],
)
def test_redacted_text_comes_out_the_same_again(text: str) -> None:
    assert redact(text).text == text


def test_a_table_loses_the_column_under_a_password_heading() -> None:
    text = "| site | password | note |\n|---|---|---|\n| netflix | Ye11owSub | shared |\n"

    assert redact(text).text == (
        "| site | password | note |\n|---|---|---|\n| netflix | [redacted password] | shared |\n"
    )


@pytest.mark.parametrize(
    ("build", "size"),
    [
        (lambda n: "password" + " " * n, 2000),  # detect-secrets' IBM IAM pattern: 34 s before
        (lambda n: "Name    Key" + " " * n + "Value", 800),
        (lambda n: "Ab3+" * n, 6_000),  # an unbounded URL scheme: 15 s before
    ],
    ids=["keyword-then-spaces", "fixed-width-row", "long-run-without-a-break"],
)
def test_an_odd_long_input_is_read_in_linear_time(build: Callable[[int], str], size: int) -> None:
    # A guard against backtracking (seconds to minutes), not a speed target.
    assert growth(lambda n: redact(build(n)), size) < LINEAR
