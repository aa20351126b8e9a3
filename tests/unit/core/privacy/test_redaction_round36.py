"""Round 36: round 35's held-out families, now known, taken out (a reply to
the companion's question, "login details", a key safe, a combination in
spaces, Turkmen); round 35's leftovers (the words correcting a value of
words kept, a number a later sentence names kept); and round 36's own
families (``tests.secret_families_round36``): the held-in half of every
family taken out, and everyday chat of the same look kept.
"""

from __future__ import annotations

import pytest

from desktop.core.privacy.redaction import redact
from tests.redacted import assert_gone, assert_kept


@pytest.mark.parametrize(
    ("text", "stored"),
    [
        ("the password is blue whale not 2019", "the password is [redacted password] not 2019"),
        (
            "the password is blue whale instead of 2019",
            "the password is [redacted password] instead of 2019",
        ),
        # A passphrase may hold "not" where no value follows it alone.
        (
            "the passphrase is correct horse not battery staple 9",
            "the passphrase is [redacted password]",
        ),
    ],
)
def test_the_words_correcting_a_value_of_words_stay(text: str, stored: str) -> None:
    assert redact(text).text == stored


@pytest.mark.parametrize(
    "text",
    [
        "my password expired. call me back: 07700900123",
        "my pin is new. call me on 07700900123",
        "my pin is new. room 2114",
        "my pin is blocked. room 2114",
        "my password is temporary. flight 2490 leaves at 9",
    ],
)
def test_a_number_a_later_sentence_names_stays(text: str) -> None:
    """A sentence that ends what is said of the credential ends its reach:
    the number after it is what its own sentence says it is."""
    assert_kept(text)


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("my pin is new. 4821", ("4821",)),
        ("The alarm code. Don't laugh. It's the same as at our old house. 4821", ("4821",)),
        ("my password expired. it is 4821 now", ("4821",)),
    ],
)
def test_a_value_a_later_sentence_gives_goes(text: str, values: tuple[str, ...]) -> None:
    assert_gone(text, *values)
