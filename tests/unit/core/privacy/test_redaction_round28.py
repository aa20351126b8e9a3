"""Round 28: what round 27's held-out families still showed (a SIM's PUK1
and PIN1, a card's PIN named before an IBAN, a texted code in two halves,
a password fed to ``sudo -S`` by printf), a to-do list read as a wallet's
seed, a secret asked for in chat shorthand and answered in the next
message, and the families of ``tests.secret_families_round28``.
"""

from __future__ import annotations

import re

import pytest

from desktop.core.privacy import seed_phrases
from desktop.core.privacy.redaction import redact
from tests.growth import LINEAR, growth
from tests.redacted import assert_gone, assert_kept


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("PUK1: 83920174", ("83920174",)),
        ("PUK1 83920174 PIN1 4821", ("83920174", "4821")),
        ("SIM card: PIN2 7731, PUK2 55120938", ("7731", "55120938")),
    ],
)
def test_a_sims_numbered_pin_and_puk_are_taken_out(text: str, values: tuple[str, ...]) -> None:
    assert_gone(text, *values)


@pytest.mark.parametrize(
    "text",
    [
        "pin1 = 3.3V, pin2 = GND",
        "connect the LED to PIN2 and ground",
        "PIN1 of the header goes to 5V",
    ],
)
def test_a_chips_numbered_pins_are_kept(text: str) -> None:
    assert_kept(text)


@pytest.mark.parametrize(
    "text",
    [
        "my debit card PIN for the DE89 3704 0044 0532 0130 00 account is 4821",
        "PIN for the account NL91 ABNA 0417 1643 00: 4821",
        "the card PIN for GB29 NWBK 6016 1331 9268 19 is 4821",
    ],
)
def test_a_pin_named_before_an_iban_is_taken_out(text: str) -> None:
    assert_gone(text, "4821")


def test_a_pin_rejected_for_an_iban_keeps_the_iban() -> None:
    assert_kept("the PIN for my DE89 3704 0044 0532 0130 00 account was rejected")


@pytest.mark.parametrize(
    "text",
    [
        "834-841 is your Instagram code. Don't share it.",
        "834 841 is your Instagram code",
        "Use 834 841 to log in",
        "Instagram: 834-841 is your code",
    ],
)
def test_a_texted_code_in_two_halves_is_taken_out_whole(text: str) -> None:
    assert_gone(text, "834", "841")


@pytest.mark.parametrize(
    "text",
    [
        "Call the helpdesk at 555-0199 to reset your password.",
        "my PIN is 4821 and I was born in 1990",
        "pages 100-200 of the pin manual",
    ],
)
def test_numbers_beside_a_code_are_kept(text: str) -> None:
    redacted = redact(text).text
    for number in re.findall(r"\d{3,4}(?:-\d{3,4})?", text):
        if number != "4821":
            assert number in redacted


@pytest.mark.parametrize(
    "text",
    [
        "printf 'lumiere_9\\n' | sudo -S apt update",
        "printf '%s\\n' 'lumiere_9' | sudo -S systemctl restart nginx",
        'printf "lumiere_9\\n" | sudo --stdin whoami',
        "sudo -S apt update <<< 'lumiere_9'",
        "printf 'lumiere_9' | kinit ana@ACME.COM",
        "echo -n 'lumiere_9' | cryptsetup luksOpen /dev/sdb1 data -",
    ],
)
def test_a_password_fed_to_a_program_reading_it_is_taken_out(text: str) -> None:
    assert_gone(text, "lumiere_9")


@pytest.mark.parametrize(
    "text",
    [
        "echo hello | sort -S 50%",
        'echo "hello world" | sudo tee /etc/motd',
        'echo "$pw" | docker login -u ana --password-stdin',
        "printf '%s\\n' \"$PASS\" | sudo -S true",
    ],
)
def test_what_is_piped_into_other_programs_is_kept(text: str) -> None:
    assert_kept(text)


def test_a_users_name_fed_to_chpasswd_is_kept() -> None:
    redacted = redact("echo ana:lumiere_9 | sudo chpasswd").text
    assert "ana:" in redacted
    assert "lumiere_9" not in redacted


def _numbered(words: str, between: str) -> str:
    return between.join(f"{n}. {word}" for n, word in enumerate(words.split(), 1))


_EVERYDAY_LISTS = [
    "tomato basil mint parsley rosemary thyme lettuce carrot pepper chili lavender sage",
    "tent stove lantern knife rope compass map torch kettle blanket pillow cooler",
    "shirt jacket scarf glove boot sock hat belt dress skirt coat sweater",
    "email call invoice report budget meeting review plan design test deploy release",
    "apple banana orange lemon mango melon grape cherry peach pear plum kiwi",
]


@pytest.mark.parametrize("between", [" ", "\n"], ids=["row", "column"])
@pytest.mark.parametrize("words", _EVERYDAY_LISTS)
def test_twelve_numbered_everyday_words_are_no_seed(words: str, between: str) -> None:
    assert_kept(_numbered(words, between))


@pytest.mark.parametrize("words", _EVERYDAY_LISTS)
def test_twelve_everyday_words_in_a_row_are_no_seed(words: str) -> None:
    assert_kept(words)


# A wallet's: its last word holds the checksum (a row of words no wallet
# shows is a seed only when named one, round 29).
_SEED = "canvas dragon become dizzy crumble boost bleak drift basket census banana cabin"


@pytest.mark.parametrize(
    "text",
    [
        _numbered(_SEED, " "),
        _numbered(_SEED, "\n"),
        _SEED,
        f"the words are {_SEED}.",
        f"electrum seed {_SEED} thanks",
        # One word in twelve off the list: a typo ("dizy").
        _SEED.replace("dizzy", "dizy"),
    ],
)
def test_a_seed_of_bip39s_words_is_taken_out(text: str) -> None:
    assert_gone(text, "canvas dragon become", "basket census banana", "dragon", "cabin")


@pytest.mark.parametrize(
    ("question", "answer", "value"),
    [
        ("whats the wifi here", "Kettle42", "Kettle42"),
        ("whats the wifi here", "lumiere_9", "lumiere_9"),
        ("whats the wifi pw", "Kettle42", "Kettle42"),
        ("wifi code pls", "Tulpen2024!", "Tulpen2024"),
        ("what's the wifi at mum's", "Saudade#19", "Saudade#19"),
        ("whats the gate code", "4821", "4821"),
        ("whats the wifi here", "it's Kettle42", "Kettle42"),
    ],
)
def test_a_secret_asked_for_in_shorthand_is_taken_out_of_its_answer(
    question: str, answer: str, value: str
) -> None:
    assert_gone(answer, value, after=(question,))


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("whats the wifi here", "the one on the sticker"),
        ("whats the wifi here", "upstairs"),
        ("hows the wifi here", "fine, 50mbit"),
        ("wifi?", "yes, upstairs"),
        ("the wifi at the cabin", "is down again"),
    ],
)
def test_an_answer_holding_no_secret_is_kept(question: str, answer: str) -> None:
    assert_kept(answer, after=(question,))


@pytest.mark.parametrize(
    ("text", "values"),
    [
        (
            "WhatsApp end-to-end encrypted backup key:\n"
            "7144 8836 1804 5793 7468 7030 2610 8802 8007 5797 6996 8778 0323 0455 2792 2588",
            ("7144 8836", "0323 0455", "2792 2588"),
        ),
        (
            "Tuta recovery code: 3f9a 0c41 77be 2d05 9e1f a6c3 4b80 d217",
            ("3f9a 0c41", "4b80 d217"),
        ),
        ("Apple recovery key: XK4F-7NH3-QQ2P-M8RT-ZZ3A-B7CD-9EFG", ("XK4F-7NH3", "9EFG")),
        ("1Password Secret Key A3-ABC123-DEF456-GHI78-JKL90-MNO12-PQR34", ("ABC123", "PQR34")),
    ],
)
def test_an_accounts_recovery_key_in_groups_is_taken_out(
    text: str, values: tuple[str, ...]
) -> None:
    assert_gone(text, *values)


@pytest.mark.parametrize(
    "text",
    [
        "Apple recovery key: turn it on in Settings > Sign-In & Security",
        "550E8400-E29B-41D4-A716-446655440000",
        "call 0171 2345 6789 after 6",
    ],
)
def test_a_recovery_keys_instructions_and_ids_are_kept(text: str) -> None:
    assert_kept(text)


@pytest.mark.parametrize(
    "text",
    [
        "pulumi config set --secret dbPassword lumiere_9",
        'dotnet user-secrets set "Db:Password" "lumiere_9"',
        "runas /user:ACME\\admin cmd, then it asked and I typed lumiere_9 👍",
        "here's the file: https://send.bitwarden.com/#Q2hpY2tlbnM/ka_dxC0JsZ2YSZBq1JFJ_Q.",
    ],
)
def test_a_secret_set_typed_or_linked_is_taken_out(text: str) -> None:
    value = "ka_dxC0JsZ2YSZBq1JFJ_Q" if "bitwarden" in text else "lumiere_9"
    assert_gone(text, value)


@pytest.mark.parametrize(
    "text",
    [
        "pulumi config set aws:region eu-west-1",
        "the site asked for my name and I typed Maria",
        "https://example.com/docs#installation-guide-2024",
        "https://github.com/acme/app/blob/main/src/app.py#L10-L20",
        "7z x backup.7z (it asks for the password)",
        'network={\n    ssid="HomeNet"\n    key_mgmt=WPA-PSK\n}',
    ],
)
def test_settings_prompts_links_files_and_key_management_are_kept(text: str) -> None:
    assert_kept(text)


def test_a_wpa_supplicant_networks_psk_still_goes() -> None:
    assert_gone('network={\n    ssid="HomeNet"\n    psk="lumiere_9"\n}', "lumiere_9")


@pytest.mark.slow
def test_a_long_row_of_words_is_read_for_a_seed_in_linear_time() -> None:
    # Each word of a row was cut from a new copy of the whole row: a 1.2 MB
    # paste of one line took 57 s to redact instead of 4.
    assert growth(lambda n: list(seed_phrases.secret_spans("words " * (n // 6))), 300_000) < LINEAR
