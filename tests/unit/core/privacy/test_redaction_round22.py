"""Round 22: round 21's leftovers (the text after a passphrase kept exactly,
a code wrapped in a keypad's signs and quotes, a keyboard walk said after
"is..." in the message before, a note signed with a handle), then secrets
as people write them in other languages, pasted config, recovery codes,
lock codes, security answers and misspelt labels (``tests.secret_families_round22``,
whose templates at even places are the ones this round's rules were
written on), and sentences of the same look that hold none.
"""

from __future__ import annotations

import re

import pytest

from desktop.core.privacy.redaction import redact
from tests.secret_families_round22 import NEGATIVES, negatives


def _assert_gone(text: str, *values: str, after: tuple[str, ...] = ()) -> None:
    redacted = redact(text, after=after).text
    for value in values:
        assert re.search(rf"(?<!\w){re.escape(value)}(?!\w)", redacted) is None, redacted


def test_the_sign_ending_the_sentence_after_a_passphrase_is_kept() -> None:
    assert redact("password: sunshine qwerty!").text == "password: [redacted password]!"


@pytest.mark.parametrize(
    "text",
    [
        "the gate opens with *`1407`#",
        "The gate opens with *'76378'#!",
        'the side gate opens with *"57453"#, then push',
    ],
)
def test_a_quoted_code_wrapped_in_a_keypads_signs_is_taken_out(text: str) -> None:
    assert re.search(r"\d{4}", redact(text).text) is None, redact(text).text


def test_the_signs_after_a_quoted_code_are_kept() -> None:
    assert redact("the gate code is *'4821'#").text == "the gate code is *'[redacted password]'#"


@pytest.mark.parametrize(
    "after",
    [
        ("ok the password for netflix is...", "Sure, what is it?"),
        ("the wifi password is\u2026",),
    ],
)
def test_a_keyboard_walk_after_a_held_back_is_is_taken_out(after: tuple[str, ...]) -> None:
    _assert_gone("poiuyt, don't share it", "poiuyt", after=after)


@pytest.mark.parametrize(
    "text",
    ["my password is... um, I forgot", "the password is... hmm, not sure"],
)
def test_a_hesitation_after_a_held_back_is_stays(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    "text",
    ["Hi Tom, thanks, Maya1990", "Hey Anna, cheers, noah2001", "Dear Sir, regards, Finn1985"],
)
def test_a_note_signed_with_a_handle_is_kept(text: str) -> None:
    assert redact(text).text == text


def test_a_row_of_an_account_still_loses_its_password() -> None:
    _assert_gone("Tidal, tom_99, Maya1990", "Maya1990")


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("le digicode de l'immeuble est 59314 merci", "59314"),
        ("Authorization: Basic Ym9iOmh1bnRlcjI=", "Ym9iOmh1bnRlcjI="),
        (
            "my wallet words: " + " ".join(["acid", "brave", "cloud"] * 4) + " thx",
            "acid brave cloud",
        ),
        ("mnemonic: " + " ".join(["arctic", "avocado", "ankle"] * 4) + " danke", "arctic avocado"),
        ("the authenticator setup key is kqpz wvtr mnxl pqzd", "kqpz wvtr mnxl pqzd"),
        ("the safe in the bedroom opens with 70415 merci", "70415"),
        ("the safe in the bedroom opens with 5523 (don't share)", "5523"),
        ("my locker at the gym is 12-30-7", "12-30-7"),
        ("the hotel safe: 8826# thx", "8826"),
        ("Q: name of your first school A: Oakwood danke", "Oakwood"),
        ("for the 'favourite teacher' question I used Marmalade", "Marmalade"),
        ("u/p admin Gelato!55 thx", "Gelato!55"),
        ("u/p ana poiuyt", "poiuyt"),
    ],
)
def test_a_secret_of_the_round_22_families_rules_were_written_on_is_taken_out(
    text: str, value: str
) -> None:
    _assert_gone(text, value)


def test_the_word_after_a_security_answer_is_kept() -> None:
    assert (
        redact("Q: first pet? A: Pumpkin danke").text
        == "Q: first pet? A: [redacted password] danke"
    )


@pytest.mark.parametrize(
    "text",
    [
        "DB_HOST=localhost",
        "SMTP_SERVER=mail.example.com",
        "password: (set via PGPASSWORD env var)",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb7cF0x ana@laptop",
        "my favourite teacher was Mrs Pemberton",
        "my first pet was Biscuit",
        "the memorable word box was greyed out",
        "spell it out: r e s p e c t",
        "he said h e l l o very slowly",
        "u/p ratio is 3:1",
        "I watched Basic Instinct",
        "2fa: back home soon with milk then",
    ],
)
def test_sentences_of_the_round_22_families_look_are_kept(text: str) -> None:
    assert redact(text).text == text


def test_what_follows_an_ssh_public_key_is_still_read() -> None:
    key = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7x9kQ2mZpL4vN8wR3tY6uI1oP0aS5dF7gH9jK2lM bob@host"
    assert redact(f"{key} password hunter2").text == f"{key} password [redacted password]"


@pytest.mark.parametrize(
    ("half", "text"),
    [(half, text) for family in NEGATIVES for half, text, _ in negatives(family)],
)
def test_an_everyday_sentence_of_a_round_22_family_stays(half: str, text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("if you can't scan the QR code, enter KQPZWVTRMNXLPQZD", "KQPZWVTRMNXLPQZD"),
        ("to get voicemail dial 121 then 6120 thx", "6120"),
        ("mother's maiden name (for the bank): Fitzgerald :)", "Fitzgerald"),
    ],
)
def test_a_secret_of_the_round_22_families_held_out_is_taken_out(text: str, value: str) -> None:
    # Held out until measured; fixed after, so no longer held out.
    _assert_gone(text, value)


def test_every_code_of_a_list_after_a_run_of_small_letters_and_digits_is_taken_out() -> None:
    _assert_gone("github recovery codes\nqmtz4k8wfn\n4417 2093", "qmtz4k8wfn", "4417 2093")
