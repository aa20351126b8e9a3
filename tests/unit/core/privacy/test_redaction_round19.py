"""Round 19: payment card numbers were never taken out ("my credit card
number is 4111 1111 1111 1111" was stored, indexed and remembered)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop.core.privacy.redaction import redact

NETWORK_STARTS = ["4", "51", "55", "2221", "2720", "34", "37", "36", "6011", "65", "3530", "62"]
SAYINGS = [
    "my credit card number is {}",
    "{} is my visa",
    "card: {} exp 12/27 cvc 123",
    "Can you remember my debit card {} for online orders?",
    "Meine Kreditkartennummer ist {}.",
]


def _luhn_completed(start: str, length: int, filler: str) -> str:
    body = (start + filler * length)[: length - 1]
    for check in "0123456789":
        digits = body + check
        total = 0
        for place, digit in enumerate(reversed(digits)):
            value = int(digit) * (2 if place % 2 else 1)
            total += value - 9 if value > 9 else value
        if total % 10 == 0:
            return digits
    raise AssertionError("a check digit always exists")


def _grouped(digits: str, separator: str) -> str:
    return separator.join(digits[i : i + 4] for i in range(0, len(digits), 4))


@given(
    start=st.sampled_from(NETWORK_STARTS),
    length=st.sampled_from([15, 16, 19]),
    filler=st.text("0123456789", min_size=1, max_size=8),
    separator=st.sampled_from(["", " ", "-"]),
    saying=st.sampled_from(SAYINGS),
)
def test_a_card_number_is_taken_out_however_it_is_grouped(
    start: str, length: int, filler: str, separator: str, saying: str
) -> None:
    number = _grouped(_luhn_completed(start, length, filler), separator)
    redacted = redact(saying.format(number))
    assert number not in redacted.text
    assert "[redacted card number]" in redacted.text


@pytest.mark.parametrize(
    "text",
    [
        "call me at +44 20 7946 0958 or 4155552671",
        "order 1234567890123 shipped, ISBN 978-3-16-148410-0",
        "4111111111111112 fails the check digit",
        "timestamps 1700000000000 and 1732891234567",
        "pi is 3.14159265358979323846",
        "the build 2024.11.28.1234567890 passed",
    ],
)
def test_numbers_that_are_not_cards_are_kept(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    ("earlier", "naming", "value"),
    [
        (
            "remind me tonight to text Anna kettle-moon-42",
            "that's our wifi password btw, don't tell anyone",
            "kettle-moon-42",
        ),
        (
            "note for later: kettle-moon-42",
            "don't share it, that's the wifi password",
            "kettle-moon-42",
        ),
        ("remember 4821 for me", "that's my bank PIN, never write it down anywhere", "4821"),
        ("grenouille77", "it's the router admin password, not the wifi one", "grenouille77"),
        (
            "save this: Tr0ub4dor&3",
            "no wait, that's my email password, please forget it",
            "Tr0ub4dor&3",
        ),
        ("Tr0ub4dor&3", "I can't believe I pasted my work password there", "Tr0ub4dor&3"),
        ("can you keep 7731 for me?", "that's my PIN", "7731"),
        ("4821 remember that", "it's my bank PIN", "4821"),
    ],
)
def test_a_value_named_in_the_next_message_is_found_wherever_it_stood(
    earlier: str, naming: str, value: str
) -> None:
    # Round 19: a "don't tell anyone" in the naming message, or words after
    # the value in the one before, kept the value stored.
    assert value in redact(naming, after=[earlier]).earlier


@pytest.mark.parametrize(
    ("earlier", "naming"),
    [
        ("remember 4821 for me", "that's not my PIN, it's the gate's"),
        ("The meeting moved to 14:30", "that's the key thing"),
        ("my address is 12 Main St, 90210", "that's the zip code"),
        ("flight BA2490 at 10:45, gate B12, seat 14C, booking X4K9Q2", "that's the code"),
    ],
)
def test_no_value_is_named_by_a_denied_clause_another_sense_or_among_many(
    earlier: str, naming: str
) -> None:
    assert redact(naming, after=[earlier]).earlier == ()
