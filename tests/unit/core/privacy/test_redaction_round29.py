"""Round 29: what round 28's families still showed (a login named, its
value after ", it's"; a Wi-Fi's band given as the answer to "whats the
wifi here"; everyday lists made of BIP-39's words read as a wallet's seed),
and the families of ``tests.secret_families_round29``.
"""

from __future__ import annotations

import re

import pytest

from tests.redacted import assert_gone, assert_kept


@pytest.mark.parametrize(
    "text",
    [
        "00:03:41 Maria: and the login for the portal, it's lumiere_9",
        "the login for the portal, it is lumiere_9",
        "my netflix login, it's lumiere_9.",
        "the pin for the side door, it's 4471",
    ],
)
def test_a_value_after_its_name_and_its_is_taken_out(text: str) -> None:
    assert_gone(text, "lumiere_9" if "lumiere" in text else "4471")


@pytest.mark.parametrize(
    "text",
    [
        # A login may name the user alone: an address is one, and stays.
        "the login for the portal, it's ana.k@example.com",
        "00:03:41 Maria: and the login for the portal, it's on the wiki",
        "the login for the portal, it's easy",
        "the login for the portal, it's working again",
        "my password, it's complicated",
    ],
)
def test_a_login_said_with_its_and_no_value_is_kept(text: str) -> None:
    assert_kept(text)


@pytest.mark.parametrize(
    "answer",
    ["5GHz", "its 5GHz", "2.4GHz", "the 5GHz one", "802.11ac", "300Mbps", "20MHz", "-67dBm"],
)
def test_a_bands_or_a_measures_answer_to_the_wifi_is_kept(answer: str) -> None:
    assert_kept(answer, after=("whats the wifi here",))


def test_a_passwords_answer_to_the_wifi_still_goes() -> None:
    assert_gone("5GHz_lumiere9", "5GHz_lumiere9", after=("whats the wifi here",))


_BIP39_EVERYDAY = [
    "salad pepper lemon garlic onion potato tomato cheese butter sugar salt coffee",
    "ocean travel family beach summer island winter garden animal music school friend",
    "black blue brown green orange pink gold silver yellow olive coral ivory",
    "lion tiger zebra giraffe monkey eagle dolphin rabbit horse turtle whale shark",
]
"""Lists of twelve things, all their words but one in twelve on BIP-39's list."""


@pytest.mark.parametrize("words", _BIP39_EVERYDAY)
@pytest.mark.parametrize("before", ["", "need: ", "tags: ", "words to learn:\n"])
def test_an_everyday_list_of_bip39s_words_is_no_seed(words: str, before: str) -> None:
    assert_kept(before + words)


_VALID = "legal winner thank year wave sausage worth useful legal winner thank yellow"
"""A phrase of BIP-39's test vectors (Trezor's python-mnemonic): its last word
holds its checksum, as every phrase a wallet shows does."""


@pytest.mark.parametrize(
    "text",
    [
        _VALID,
        f"keep these safe: {_VALID} thx",
        # One letter off, as a phrase copied by hand may be: "winer", "sasuage".
        _VALID.replace("winner", "winer", 1),
        _VALID.replace("sausage", "sasuage"),
        "letter advice cage absurd amount doctor acoustic avoid letter advice cage above",
        "zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo"
        " zoo vote",
    ],
)
def test_a_wallets_phrase_nothing_names_is_taken_out(text: str) -> None:
    assert_gone(text, *re.findall(r"\w+ \w+ \w+ \w+", text.split(": ")[-1])[:3])


@pytest.mark.parametrize(
    "text",
    [
        # Named a seed, the row goes whether or not its checksum holds.
        "seed phrase is salad pepper lemon garlic onion potato tomato cheese butter sugar salt"
        " coffee",
        "my ledger's words\nsalad pepper lemon garlic onion potato tomato cheese butter sugar salt"
        " coffee",
    ],
)
def test_a_row_named_a_seed_needs_no_checksum(text: str) -> None:
    assert_gone(text, "salad pepper lemon", "butter sugar salt")
