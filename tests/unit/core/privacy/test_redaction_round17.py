"""Round 17: a value said before its credential word, a key drawn as an
emoji, other languages' words for a password, and talk about passwords in
code and in tech that is no password.

Each rule has a phrasing that leaked before and its twin that must stay.
"""

from __future__ import annotations

import pytest

from desktop.core.privacy.redaction import redact

MARKER = "[redacted password]"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # A noun that only ends like a verb is a value: "-ing", "-ed".
        ("the garage password is Dumpling", "Dumpling"),
        ("my bank password is pudding", "pudding"),
        # A verb that puts the value somewhere, before where it goes.
        ("store Marzipan77 as my dropbox password please", "Marzipan77"),
        ("save kettle juniper lobster as the router password", "kettle juniper lobster"),
        # What someone made their password, named after it.
        ("Gherkin was the key I typed for the tax site", "Gherkin"),
        ("CactusOrbitLantern is what I chose as the passphrase", "CactusOrbitLantern"),
        # A question about the value itself.
        ("is Nimbus1990 a strong password for email?", "Nimbus1990"),
        # A key or a lock drawn as the label of a note.
        ("\U0001f511 Quokka_88", "Quokka_88"),
        ("\U0001f512 Spotify \u2192 lanternmossgecko", "lanternmossgecko"),
        # Other languages' words for a password, then a single plain word.
        ("mi contraseña es Girasol", "Girasol"),
        ("das Passwort ist Pfannkuchen", "Pfannkuchen"),
        ("le mot de passe du routeur est tournesol stp", "tournesol"),
        ("login: jeanne.d / mot de passe: Brioche", "Brioche"),
    ],
)
def test_a_value_named_around_it_is_taken_out(text: str, value: str) -> None:
    out = redact(text).text
    assert value not in out
    assert MARKER in out


@pytest.mark.parametrize(
    "text",
    [
        # A verb's ending describes the password.
        "my password is expiring",
        "the wifi password is working again",
        # Nothing but a pronoun or a product before "as" or in the question.
        "save it as my password please",
        "remember this as the new password",
        "is Bitwarden a good password manager?",
        "is this a strong password?",
        "that was the key I needed to finish",
        # An emoji that is only a picture of a lock.
        "\U0001f512 private channel, members only",
        "\U0001f510 end-to-end encrypted",
        # Other languages' words for how a password is.
        "la contraseña es demasiado corta",
        "das Passwort ist falsch",
        "le mot de passe est oublié",
        "das Passwort ist unsicher",
        "¿Cómo cambio mi contraseña? tbh",
    ],
)
def test_words_about_a_password_stay(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    "text",
    [
        # Code that asks for a password is not one.
        "pw = getpass.getpass('Your password: ')",
        "const password = window.prompt('enter password')",
        "password = read_line()",
        # An algorithm, a status code, a description of the field.
        "our service stores passwords as argon2id hashes",
        "we moved passwords from pbkdf2 to argon2",
        "the sign-in API returns 403 on a wrong password",
        "password: the account owner's password, 12 characters or more",
    ],
)
def test_code_and_tech_talk_about_passwords_stay(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("password = 'Tr0mb0ne!'", "Tr0mb0ne!"),
        ("the door code is 401", "401"),
        ("password: the usual one is Walrus42", "Walrus42"),
    ],
)
def test_a_value_beside_code_or_a_number_still_goes(text: str, value: str) -> None:
    assert value not in redact(text).text


def test_a_row_of_words_shaped_like_a_wallet_seed_goes() -> None:
    seed = "orbit velvet lunar gravity copper tissue meadow raven pulse hollow embark lizard"
    out = redact(f"{seed}\n^ the words the wallet showed me").text
    assert seed not in out
    assert "gravity" not in out


@pytest.mark.parametrize(
    "text",
    [
        # Eleven words, or prose that runs with its joining words.
        "orbit velvet lunar gravel copper tissue meadow raven pulse hollow ember",
        "we walked along the river and then over the bridge to the old mill for lunch",
        # A long run of filler: its last 24 words are no seed either.
        " ".join(["filler"] * 40),
        " ".join(["orbit", "velvet", "lunar", "gravel", "copper", "tissue", "meadow"] * 5),
    ],
)
def test_rows_of_words_that_are_no_seed_stay(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # A security question's answer after a sign, whatever its shape.
        ("first pet: Biscuit", "Biscuit"),
        ("mother's maiden name → okafor", "okafor"),
        ("the security answer is Thistlewood", "Thistlewood"),
        # A keypad's code with what it opens or stops in the sentence.
        ("the back gate opens with 7305", "7305"),
        ("to stop the siren you punch in 90417", "90417"),
        ("shed keypad: #3318", "#3318"),
        ("disarm it with 6604 before going in", "6604"),
    ],
)
def test_an_answer_or_a_keypad_code_goes(text: str, value: str) -> None:
    assert value not in redact(text).text


@pytest.mark.parametrize(
    "text",
    [
        "my first pet was a hamster",
        "first pet: a tabby we named after a singer",
        "the security answer is case sensitive",
        "the door opens at 0830 on weekdays",
        "the lobby: 2019 renovation",
        "press 1234 to continue",
    ],
)
def test_stories_and_times_beside_such_words_stay(text: str) -> None:
    assert redact(text).text == text
