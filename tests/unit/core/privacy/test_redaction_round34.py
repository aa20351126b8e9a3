"""Round 34's families (``tests.secret_families_round34``): secrets said
in a chat in passing, corrected, listed, changed, sent after the message
that announced them, quoted, with emoji, as a passphrase of words; the
held-in half of every family taken out, and everyday chat of the same
look kept as typed.  And round 33's leftovers: a value's last "!", a
router's key before its peer's address, a mask, a hash, a Grandstream
phone's P-value and an OpenVPN ``auth.txt`` pasted whole.
"""

from __future__ import annotations

import pytest

from desktop.core.privacy.redaction import redact
from tests import secret_families_round34
from tests.bench.secret_families import missed
from tests.redacted import assert_gone, assert_kept
from tests.secret_families import Trial


@pytest.mark.parametrize(
    "trial",
    [
        trial
        for family in secret_families_round34.FAMILIES
        for trial in secret_families_round34.trials(family, 3, seed=5)
        if trial.half == "in"
    ],
    ids=lambda trial: trial.family,
)
def test_a_secret_of_the_round_34_families_is_taken_out(trial: Trial) -> None:
    assert missed(trial) == []


@pytest.mark.parametrize(
    ("text", "stored"),
    [
        ("my password is hunter2Zq9!", "my password is [redacted password]"),
        (
            "netflix: dr@g0n!, spotify: b4nana",
            "netflix: [redacted password], spotify: [redacted password]",
        ),
        ("my password is Tiger42! thanks", "my password is [redacted password] thanks"),
        ("my password is Tiger42!", "my password is [redacted password]!"),
        ("password: sunshine qwerty!", "password: [redacted password]!"),
        ("my password is hunter2.", "my password is [redacted password]."),
    ],
)
def test_a_values_own_bang_goes_with_it_and_a_sentences_stays(text: str, stored: str) -> None:
    assert redact(text).text == stored


@pytest.mark.parametrize(
    ("text", "stored"),
    [
        (
            "crypto isakmp key s3cretK3y address 0.0.0.0",
            "crypto isakmp key [redacted password] address 0.0.0.0",
        ),
        ("AdminPassword=*", "AdminPassword=*"),
        ("password: *", "password: *"),
        ("password = \u2022\u2022\u2022", "password = \u2022\u2022\u2022"),
    ],
)
def test_what_follows_a_value_or_a_mask_in_its_place_stays(text: str, stored: str) -> None:
    assert redact(text).text == stored


@pytest.mark.parametrize(
    "text",
    [
        "username admin privilege 15 secret 9"
        " $9$nhEmQVczB7dqsO$X.HsgL6x1il0RxkOSSvyQYwucySCt7qFm4v7pqCxkKM",
        "enable secret 8 $8$dsYGNam3K1SIJO$7nv/35M/qr6t.dVc7UY9zrJDWRVqncHub1PE9UlMQFs",
        "ana:$6$Zx8pre55Ab$Q0jX3.YvYl1mKf/2OePbX5sM7hZt1s4nY2v9wq6uVfR8dLcT0aJ3kE:19700:0:99999:7:::",
    ],
)
def test_a_stored_hash_stays_whole(text: str) -> None:
    assert_kept(text)


@pytest.mark.parametrize(
    "text",
    [
        "P34 = Kettle42x",
        "# Grandstream GXP config\nP2 = Kettle42x\nP35 = 6001\nP34 = Kettle42x",
        "P196=Kettle42x",
    ],
)
def test_a_grandstream_phones_password_setting_is_taken_out(text: str) -> None:
    assert_gone(text, "Kettle42x")


@pytest.mark.parametrize(
    "text",
    [
        "P2 = 0.35 and P3 = 0.12 in the second trial",
        "P35 = 6001",
        "P34 = ",
    ],
)
def test_a_probability_or_a_phones_other_setting_is_kept(text: str) -> None:
    assert_kept(text)


@pytest.mark.parametrize(
    "text",
    [
        "here's my auth.txt for openvpn:\nana.k\nTr0ub4dor&3",
        "$ cat /etc/openvpn/auth.txt\nana\nTr0ub4dor&3",
        "my vpn auth-user-pass file:\n\nana@example.com\nTr0ub4dor&3\n",
    ],
)
def test_an_openvpn_auth_files_second_line_is_taken_out(text: str) -> None:
    assert_gone(text, "Tr0ub4dor&3")


@pytest.mark.parametrize(
    "text",
    [
        "auth-user-pass auth.txt\nremote vpn.example.com 1194",
        "my auth.txt for openvpn:\nusername on the first line\npassword on the second",
    ],
)
def test_an_openvpn_config_naming_its_auth_file_is_kept(text: str) -> None:
    assert_kept(text)


@pytest.mark.parametrize(
    "text",
    [
        *(text for _, text, _ in secret_families_round34.negatives("casual")),
        *(text for _, text, _ in secret_families_round34.negatives("remember")),
        *(text for _, text, _ in secret_families_round34.negatives("lists")),
        *(text for _, text, _ in secret_families_round34.negatives("mixed")),
        "నేను పాస్‌వర్డ్ మర్చిపోయాను",
        "gate 12 / terminal 2 / seat 14C",
    ],
)
def test_everyday_chat_of_the_same_look_is_kept(text: str) -> None:
    assert_kept(text)


def test_a_word_the_sentence_goes_on_with_ends_a_passphrase_of_words() -> None:
    # Found by test_redaction_phrasings' property test during round 34.
    text = "password is sunshine sunshine sunshine now."

    assert redact(text).text == "password is [redacted password] now."
