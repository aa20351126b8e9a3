"""Round 29: what round 28's families still showed (a login named, its
value after ", it's"; a Wi-Fi's band given as the answer to "whats the
wifi here"; everyday lists made of BIP-39's words read as a wallet's seed),
and the families of ``tests.secret_families_round29``.
"""

from __future__ import annotations

import hashlib
import random
import re

import pytest

from desktop.core.base import paths
from desktop.core.privacy.redaction import redact
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


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("how long would it take to crack Banana#81", "Banana#81"),
        ("how long would it take to crack b@n@n@85 ty", "b@n@n@85"),
        ("can you brute force lumiere_9?", "lumiere_9"),
        ("help me remember Zugspitze2962, it's the new work one", "Zugspitze2962"),
        ("help me memorise Tulpen2024!", "Tulpen2024"),
    ],
)
def test_a_password_shown_to_be_cracked_or_learnt_is_taken_out(text: str, value: str) -> None:
    assert_gone(text, value)


@pytest.mark.parametrize(
    "text",
    [
        "how long would it take to crack an 8 letter password",
        "remember B12 vitamins",
        "help me remember LH2041 is my flight",
        "can you remember my appointment at 10:30?",
        "crack the egg, then add 2 cups",
        "I guess v2, right?",
    ],
)
def test_what_is_cracked_or_remembered_in_passing_is_kept(text: str) -> None:
    assert_kept(text)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('expect "password:"\nsend "DLVxQJvlGhYq\\r"', "DLVxQJvlGhYq"),
        ('send -- "Tulpen2024!\\r"', "Tulpen2024"),
        ('tell application "System Events" to keystroke "Kr4nich#"', "Kr4nich#"),
        ("xdotool type 'lumiere_9'", "lumiere_9"),
        ("child.sendline('lumiere_9')", "lumiere_9"),
        ("Send, lumiere_9{Enter}", "lumiere_9"),
        ("echo 'Kr4nich#' > ~/.vault_pass", "Kr4nich#"),
    ],
)
def test_a_password_a_script_types_is_taken_out(text: str, value: str) -> None:
    assert_gone(text, value)


@pytest.mark.parametrize(
    "text",
    [
        'expect "password:"\ninteract',
        'send "yes\\r"',
        'tell application "System Events" to keystroke "q" using command down',
        "xdotool type 'hello world'",
        "type 'python3' and press enter",
        "echo 'export FOO=1' >> ~/.bashrc",
        "Send, ^c",
    ],
)
def test_what_a_script_types_that_is_no_password_is_kept(text: str) -> None:
    assert_kept(text)


_KEY_HEX = "ed04fd6c9d8e908405968650776fc736cc3a49632e6ece716d55e932cd41b837"


@pytest.mark.parametrize(
    "text",
    [
        f"import this key into MetaMask 0x{_KEY_HEX}.",
        f"import this key into MetaMask {_KEY_HEX} (sorry)",
        f"the private key of the test account is 0x{_KEY_HEX.upper()}",
    ],
)
def test_a_wallets_private_key_named_in_its_sentence_is_taken_out(text: str) -> None:
    assert_gone(text, _KEY_HEX, _KEY_HEX.upper(), f"0x{_KEY_HEX}")


@pytest.mark.parametrize(
    "text",
    [
        f"tx 0x{_KEY_HEX} confirmed",
        f"the key is fine. sha256 {_KEY_HEX}",
        f"ssh key fingerprint {_KEY_HEX}",
        f"the block hash for my key rotation: 0x{_KEY_HEX}",
    ],
)
def test_a_hash_of_the_same_shape_is_kept(text: str) -> None:
    assert_kept(text)


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("FileVault: saddle tuba otter falcon comet", ("saddle tuba", "falcon comet")),
        ("KeePass database - otter marble quartz thistle.", ("otter marble", "quartz thistle")),
        ("KeePass database - walnut-wombat-comet-saddle", ("walnut-wombat-comet-saddle",)),
        ("VeraCrypt volume: pickle_tundra_thistle_pepper", ("pickle_tundra_thistle_pepper",)),
        ("my passphrase is harbor-lantern-marble-falcon", ("harbor-lantern-marble-falcon",)),
        ("Wifi şifrəsi lumiere_9", ("lumiere_9",)),
    ],
)
def test_a_passphrase_of_random_words_is_taken_out(text: str, values: tuple[str, ...]) -> None:
    assert_gone(text, *values)


@pytest.mark.parametrize(
    "text",
    [
        "FileVault: on",
        "KeePass database - last synced yesterday",
        "wifi: fibre broadband router upstairs",
        "password = get_user_name_from_db",
        "token: vault_db_password_file",
        "Welcome! The keypad is by the door and the wifi name is Casa_Sol",
        "the wifi name is Casa_Sol",
        "wifi name: Casa_Sol",
        "BitLocker is on",
        "Wifi şifrəsi dəyişib",
    ],
)
def test_words_and_a_networks_name_near_a_vaults_or_wifis_are_kept(text: str) -> None:
    assert_kept(text)


@pytest.mark.parametrize(
    "phrase",
    [
        # Starting as code does ("return", "raise"), holding three plurals
        # of known words, or a word naming a seed: a wallet's phrases all
        # (their checksums hold), kept before.
        "return world myth silver couple sauce strategy rather tornado flower goddess trend",
        "raise fine hat tribe force kit tuition acid party resource slot neither",
        "toddler will fog toast often sketch security scale series culture history stairs oval"
        " nest powder learn dash pigeon army tired lens trade magnet album",
        "column impact seed adult tumble scissors orphan trip arena spot apology lonely course"
        " organ census lawn real protect person climb brain record only guitar",
    ],
)
def test_a_wallets_phrase_of_any_words_is_taken_out_whole(phrase: str) -> None:
    assert redact(phrase).text == "[redacted password]"


def _wallets_phrase(rng: random.Random, length: int) -> str:
    """A phrase as a wallet makes one: random entropy, its checksum, BIP-39's words."""
    words = (paths.data_dir() / "wordlists" / "bip39_english.txt").read_text().split()
    entropy = rng.getrandbits(length * 32 // 3).to_bytes(length * 4 // 3, "big")
    checksum_bits = length * 11 // 33
    digest = hashlib.sha256(entropy).digest()[0] >> (8 - checksum_bits)
    bits = int.from_bytes(entropy, "big") << checksum_bits | digest
    return " ".join(words[bits >> (11 * (length - 1 - at)) & 2047] for at in range(length))


@pytest.mark.slow
@pytest.mark.parametrize("length", [12, 15, 18, 21, 24])
def test_no_wallets_phrase_is_kept(length: int) -> None:
    rng = random.Random(f"round29-{length}")
    phrases = [_wallets_phrase(rng, length) for _ in range(300)]
    kept = [p for p in phrases if redact(p).text != "[redacted password]"]
    assert kept == []


@pytest.mark.parametrize(
    "text",
    ["[10:02] Bob Smith\nVPN: lumiere_9", "VPN: chuva_forte7", "the vpn is Tulpen2024!"],
)
def test_a_vpns_password_after_its_name_is_taken_out(text: str) -> None:
    assert_gone(text, "lumiere_9", "chuva_forte7", "Tulpen2024")


@pytest.mark.parametrize(
    "text",
    [
        "VPN: on",
        "VPN: 10.0.0.1",
        "VPN: nl-free-12.protonvpn.net",
        "VPN: WireGuard, port 51820",
        "vpn is down since 10:30",
        "wifi: nas-01.home",
        # A credential's word starting a host's name: "vpn.acme.com".
        "openconnect vpn.acme.com --user=ana",
        "ssh wifi.lab.local --user=ana",
    ],
)
def test_a_vpns_state_address_or_host_is_kept(text: str) -> None:
    assert_kept(text)
