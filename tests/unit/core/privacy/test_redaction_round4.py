"""What a fourth attack found: inputs that took seconds, text around a
secret eaten with it, ordinary lines and code taken for secrets, and
phrasings that leaked.  These are the attack's own words; the generated
families are in ``test_redaction_phrasings``."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from desktop.core.privacy.redaction import redact
from tests.growth import LINEAR, growth


@pytest.mark.parametrize(
    ("build", "size"),
    [
        (lambda n: "(" * n, 3000),  # "X (the router password)": cubic before
        (lambda n: "password" * n, 600),  # detect-secrets' keyword rules over one long line
        (lambda n: "/" * n, 30000),  # detect-secrets' npm pattern
        (lambda n: "https://" * n, 3000),  # a URL's password, unbounded
        (lambda n: json.dumps([{"id": i, "password_policy": "strong"} for i in range(n)]), 500),
    ],
    ids=["brackets", "keyword-run", "slashes", "schemes", "minified-json"],
)
def test_an_odd_long_input_is_read_in_linear_time(build: Callable[[int], str], size: int) -> None:
    # A guard against backtracking (seconds to minutes), not a speed target.
    assert growth(lambda n: redact(build(n)), size) < LINEAR


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "password: hunter2</p><p>Next paragraph</p>",
            "password: [redacted password]</p><p>Next paragraph</p>",
        ),
        ("password: hunter2<br>username: bob", "password: [redacted password]<br>username: bob"),
        ("password: «hunter2»", "password: «[redacted password]»"),
        ("password: (hunter2)", "password: ([redacted password])"),
        ("password: ||hunter2||", "password: ||[redacted password]||"),
        (
            "wifi password: hunter2 (5GHz network) and guest: welcome",
            "wifi password: [redacted password] (5GHz network) and guest: welcome",
        ),
        ("password=hunter2&user=bob", "password=[redacted password]&user=bob"),
        (
            "MYSQL_ROOT_PASSWORD=hunter2 docker compose up",
            "MYSQL_ROOT_PASSWORD=[redacted password] docker compose up",
        ),
        (
            "email pw: hunter2 / bank pw: tulip44",
            "email pw: [redacted password] / bank pw: [redacted password]",
        ),
        ("password is hunter2 #home #wifi", "password is [redacted password] #home #wifi"),
        ("login/pass: bob/hunter2", "login/pass: bob/[redacted password]"),
        ("password ==> hunter2", "password ==> [redacted password]"),
        (
            "export AWS_SECRET_ACCESS_KEY=purple-monkey-dishwasher-42",
            "export AWS_SECRET_ACCESS_KEY=[redacted password]",
        ),
        (
            "git clone https://ghx8Kq2LmZp9Rt4Vw7Yb3Nc6Hd1Fj5Gs0A@github.com/x/y",
            "git clone https://[redacted credential]@github.com/x/y",
        ),
        ("my password (48213) is weak", "my password ([redacted password]) is weak"),
        ("ok pw = 48213 thx", "ok pw = [redacted password] thx"),
        ("mysql -uroot -p'48213'", "mysql -uroot -p'[redacted password]'"),
        ("password: <code>48213</code>", "password: <code>[redacted password]</code>"),
        ("{password: 48213}", "{password: [redacted password]}"),
        ("the password is 48213 \U0001f605", "the password is [redacted password] \U0001f605"),
        ("password: 48213 \u2014 remember it", "password: [redacted password] \u2014 remember it"),
        ("password ::= 48213", "password ::= [redacted password]"),
        ("user/pw = bob / 48213", "user/pw = bob / [redacted password]"),
    ],
)
def test_only_the_value_goes(text: str, expected: str) -> None:
    assert redact(text).text == expected


@pytest.mark.parametrize(
    "text",
    [
        "I've reset my password 100 times since 2025-04-01",
        "Login: use your work account, not the personal one.",
        "The key is 2048 bits long.",
        "The PIN is probably 4 digits.",
        "My password is about 20 characters.",
        "My login is through work SSO.",
        "The password is behind the router.",
        "The password is hashed with bcrypt.",
        "[password reset](https://example.com/reset)",
        "[login page](https://example.com/login)",
        '[{"id":0,"password_policy":"strong"},{"id":1,"password_policy":"weak"}]',
        "password_policy=strong; min_length=12; max_age=90",
        "password_hash = bcrypt.hashpw(pw, bcrypt.gensalt(12))",
        "PASSWORD_MIN_LENGTH = 12",
        '"password": {"type": "string", "minLength": 8}',
        '<label for="password">Password</label>',
        "**Password policy:** 12 chars",
        "Your one-time code has been sent to +1 (555) 010-2222.",
        "Pass: 3 / Fail: 1",
        "password: ${DB_PASSWORD}",
        "password: {{ vault_db_password }}",
        "DB_PASSWORD=${DB_PASSWORD:-}",
        'export PGPASSWORD="$(cat ~/.pgpass_secret)"',
    ],
)
def test_ordinary_lines_and_code_stay(text: str) -> None:
    assert redact(text).text == text


X = "Tr0ub4dor&3"

LEAKED = [
    # Words and links of more languages.
    "moja lozinka je {x}",
    "geslo je {x}",
    "die wagwoord is {x}",
    "kodeordet er {x}",
    "la contrasenya és {x}",
    "slaptažodis yra {x}",
    "הסיסמה היא {x}",
    "wifi şifresi {x}",
    "mot-de-passe : {x}",
    "parola mea este {x}",
    "kata sandi saya adalah {x}",
    "ang password ko ay {x}",
    # A passphrase after a sign or link, letters of other scripts in a value.
    "Passwort: blue whale sings 7",
    "la contraseña es blue whale sings 7",
    "password >> blue whale sings 7",
    "\u30d1\u30b9\u30ef\u30fc\u30c9\uff1a\u65e5\u672c\u8a9e\u30d1\u30b92",
    "pass: o'brien42",
    # Any sign between the word and its value.
    "password \u2022 {x}",
    "password \u2254 {x}",
    "password ^ {x}",
    "password \u27a1 {x}",
    "password \U0001f449 {x}",
    "password \\ {x}",
    "password \u25ba {x}",
    # Shorthand, leet, small capitals.
    "pword: {x}",
    "p/w: {x}",
    "pswrd {x}",
    "pass is {x}",
    "PASSW0RD: {x}",
    "p@ssword: {x}",
    "\u1d18\u1d00ss\u1d21\u1d0f\u0280\u1d05: {x}",
    # Config files and command lines.
    '<add key="Password" value="{x}"/>',
    "requirepass {x}",
    "rpcpassword={x}",
    'psk="{x}"',
    "wpa_passphrase Home {x}",
    "mongosh -u admin -p {x}",
    "az login -u bob@x.com -p {x}",
    "db.example.com:5432:app:bob:{x}",
    "echo 'bob:{x}' | chpasswd",
    "//registry.npmjs.org/:_authToken={x}",
    "ConvertTo-SecureString '{x}' -AsPlainText",
    "mysql -uroot -p'blue whale 7'",
    # Pairs, the value first, in brackets, several values.
    "creds: bob:{x}",
    "steam acct bob pass {x}",
    "{x} \u2190 pin",
    "{x} unlocks my phone",
    "{x} \u306f\u6697\u8a3c\u756a\u53f7\u3067\u3059",
    "my password ({x}) is weak",
    "passwords: old {x}, new Wq7$pLm",
    "the password was {x} but now it's Wq7$pLm",
    "the PIN is 2468! (or 5150 for the old card)",
    '<password value="{x}"/>',
    # Words that name a credential with a sign before the value.
    "wifi: {x}",
    "door: {x}",
    "keypad: 48213#",
    "bike lock 4821",
    "seed phrase {x}",
    "mother's maiden name: o'brien42",
    "the magic word is {x}",
]
SECRETS = (X, "Wq7$pLm", "blue whale", "o'brien42", "5150", "48213#", "4821")


@pytest.mark.parametrize("template", LEAKED)
def test_the_phrasings_that_leaked_lose_their_value(template: str) -> None:
    text = template.format(x=X)
    redacted = redact(text).text

    assert [secret for secret in SECRETS if secret in text and secret in redacted] == []
    assert "[redacted" in redacted


@pytest.mark.parametrize(
    "text",
    [
        "Data Source=x;Uid=app;Pwd=48213;",
        "password=Blue Whale Sings 7",
        "MYSQL_ROOT_PASSWORD=correct horse battery 9 docker compose up",
        "`password=Blue Whale Sings 7`",
    ],
)
def test_redacting_twice_changes_nothing_more(text: str) -> None:
    once = redact(text).text

    assert redact(once).text == once
