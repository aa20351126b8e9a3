"""Round 24: a value in quotes is read as the same value unquoted.

Found by the property test of round 21's "multi" family (a seed drawn
outside CI): "Login is 'hunter2' and the pin is '3786'" kept hunter2,
though it goes unquoted.  A login said alone in quotes was kept too, and
the quote before a value hid the word before it (so "a "Pixel8"" was no
longer read as a product's name)."""

from __future__ import annotations

import pytest

from desktop.core.privacy.redaction import redact


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Login is 'hunter2' and the pin is '3786'", "hunter2"),
        ("Login is 'hunter2' and the pin is '3786'", "3786"),
        ("my login is 'hunter2'", "hunter2"),
        ("my login is \u201chunter2\u201d", "hunter2"),
        ("the sign-in is 'hunter2'.", "hunter2"),
    ],
)
def test_a_quoted_value_goes_as_it_goes_unquoted(text: str, value: str) -> None:
    unquoted = text.replace("'", "").replace("\u201c", "").replace("\u201d", "")
    assert value not in redact(text).text
    assert value not in redact(unquoted).text


@pytest.mark.parametrize(
    "text",
    [
        'I bought a "Pixel8" and my password is on it',
        "my login is 'bob@example.com'",
        "I typed 'hello' and the password box stayed empty",
    ],
)
def test_a_quoted_word_that_is_no_value_stays(text: str) -> None:
    assert redact(text).text == text
