"""What a fourth attack found: inputs that took seconds, text around a
secret eaten with it, ordinary lines and code taken for secrets, and
phrasings that leaked.  These are the attack's own words; the generated
families are in ``test_redaction_phrasings``."""

from __future__ import annotations

import json
import time

import pytest

from desktop.core.redaction import redact


@pytest.mark.parametrize(
    "text",
    [
        "(" * 3000,  # "X (the router password)": cubic before
        "password" * 600,  # detect-secrets' keyword rules over one long line
        "/" * 30000,  # detect-secrets' npm pattern
        "https://" * 12500,  # a URL's password, unbounded
        json.dumps([{"id": n, "password_policy": "strong"} for n in range(2000)]),
    ],
    ids=["brackets", "keyword-run", "slashes", "schemes", "minified-json"],
)
def test_an_odd_long_input_is_read_in_linear_time(text: str) -> None:
    started = time.perf_counter()
    redact(text)
    # A guard against backtracking (seconds to minutes), not a speed target.
    assert time.perf_counter() - started < 3.0


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
    ],
)
def test_ordinary_lines_and_code_stay(text: str) -> None:
    assert redact(text).text == text
