"""Round 16: passwords that are no word, passphrases of ordinary words, and a
secret with an underscore stuck to it.

Values that are letters only ("Tolzanwensho") and passphrases ("kettle
juniper lobster cactus") leaked in three of four trials of the held-out
round: no digit, no sign, so nothing told them from the words that stand
where a value would ("my password is expired").  Whether a word is one of
any language (``known_words``) and whether a run of words strings together
as none but a passphrase does (``credential_sweep``) now tell them apart.
"""

from __future__ import annotations

import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.core.privacy import known_words
from desktop.core.privacy.redaction import Redactor, redact

MARKER = "[redacted password]"


@pytest.mark.parametrize(
    "word", ["Tolzanwensho", "joryar", "vixfro", "wenvixdelmir", "Shozantolquo", "pranex"]
)
def test_a_made_up_word_is_no_word_of_any_language(word: str) -> None:
    assert known_words.made_up(word)


@pytest.mark.parametrize(
    "word",
    [
        *("expired", "abgelaufen", "scaduta", "vencida", "glömt", "wygasło", "greyed"),
        *("Netflix's", "Bitwarden", "varchar", "bcrypt", "SSID", "ValueError", "wifi"),
    ],
)
def test_words_acronyms_products_and_code_are_not_made_up(word: str) -> None:
    """Words of other languages (with their accents or without), an ending
    on a listed word, products, code, capitals and short words."""
    assert not known_words.made_up(word)


def test_the_lists_are_read_once_when_two_threads_ask_first() -> None:
    seen: list[object] = []
    threads = [
        threading.Thread(target=lambda: seen.append(known_words._hashes())) for _ in range(2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen[0] is seen[1]


@pytest.mark.parametrize(
    ("text", "after", "value"),
    [
        ("Password for Steam? It's Tolzanwensho.", [], "Tolzanwensho"),
        ("mein wifi Passwort ist joryar", [], "joryar"),
        ("minha senha é Zandeldelsti", [], "Zandeldelsti"),
        ("the password is vixfro", [], "vixfro"),
        ("yeah it's Hobyartol", ["Do you remember the PayPal password?"], "Hobyartol"),
        ("pwd willow harbor quartz canyon juniper", [], "willow harbor quartz canyon juniper"),
        ("Kennwort für steam: cactus ember mango falcon lantern", [], "cactus ember mango"),
        ("das wifi pw ist hazel kettle zephyr umber quartz", [], "hazel kettle zephyr"),
        ("pAsSwOrD Harbor Lantern Fjord Eclipse", [], "Harbor Lantern Fjord Eclipse"),
        ("Netflix login is copper fjord waffle yonder", [], "copper fjord waffle yonder"),
        ("my password is orchard-otter-yonder-harbor-raven", [], "orchard-otter-yonder"),
        ("Passwords\n- amazon: Gulstifro\n- netflix: m34d0w", [], "Gulstifro"),
    ],
)
def test_made_up_words_and_passphrases_are_taken_out(
    text: str, after: list[str], value: str
) -> None:
    out = redact(text, after=after).text
    assert MARKER in out
    assert not any(word in out for word in value.split() if len(word) > 3)


@pytest.mark.parametrize(
    "text",
    [
        "mein Passwort ist abgelaufen",
        "Das Passwort muss mindestens zwölf Zeichen lang sein",
        "La contraseña caduca cada noventa días",
        "la contraseña debe tener mayúsculas minúsculas números",
        "Passphrases should be memorable yet unpredictable sentences",
        "password hint: usual childhood street name",
        "The password should be hashed with bcrypt before storage",
        "Password strength meter shows weak medium strong.",
        "Passwords must contain uppercase lowercase digits and symbols.",
        "Password complexity requirements: minimum length twelve characters, mixed case.",
        "the password field is greyed out on the login page",
        "btw kenji keeps asking me for the Netflix password",
        "access code required? No, just walk in",
        "jag har glömt mitt lösenord igen",
        "Honestly passphrases are better than short passwords, right?",
        "| password | varchar(255) |",
        "I use Bitwarden for every password now",
    ],
)
def test_talk_about_passwords_stays(text: str) -> None:
    assert redact(text).text == text


def test_a_secret_found_before_is_found_again_with_an_underscore_stuck_to_it() -> None:
    """The value was taken out without its trailing "_"; when the model
    said it back with the "_", the known value was not found beside the
    underscore, a word character."""
    redactor = Redactor()
    first = redactor("sure: @Walnut1_", after=["what was the old password?"])
    assert "@Walnut1" not in first.text
    assert redactor.text("Noted: sure: @Walnut1_") == f"Noted: sure: {MARKER}_"


PASSPHRASE_WORDS = [
    *("glacier", "noodle", "drift", "dolphin", "sprocket", "gravel", "hazel", "cactus"),
    *("jasper", "pebble", "meadow", "walnut", "orchard", "otter", "harbor", "raven"),
    *("paprika", "crimson", "saffron", "tundra", "biscuit", "waffle", "lantern", "fjord"),
]


@settings(max_examples=60, deadline=None)
@given(
    words=st.lists(st.sampled_from(PASSPHRASE_WORDS), min_size=3, max_size=6, unique=True),
    joint=st.sampled_from([" ", "-", "."]),
    case=st.sampled_from([str.lower, str.title]),
    frame=st.sampled_from(
        [
            "my password is {}",
            "the wifi password: {}",
            "Passwort: {}",
            "pw {}",
            "my bank PIN is {} now",
            "passphrase = {}",
            "mot de passe : {}",
        ]
    ),
)
def test_a_passphrase_in_a_value_place_is_taken_out_whole(
    words: list[str], joint: str, case: object, frame: str
) -> None:
    phrase = joint.join(case(word) for word in words)  # type: ignore[operator]
    out = redact(frame.format(phrase)).text
    assert MARKER in out
    assert not any(word in out.casefold() for word in words)
