"""What a fifteenth look at redaction found: a value given as the way in
("sign in using X", "to get into gmail type X", "I entered X three times and
now I'm locked out"), asked about ("Is X strong enough as my password?"),
changed ("from X to Y", "X -> Y"), or written in a case no word has
("zLhkahUM", "MonkeyGinger").  Products named the same way ("iCloud",
"PayPal") and ways in that are no value stay."""

from __future__ import annotations

import pytest

from desktop.core.privacy.redaction import Redactor, redact

_MARK = "[redacted password]"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("sign in using Pumpkin1960", f"sign in using {_MARK}"),
        ("to get into my laptop type MonkeyGinger", f"to get into my laptop type {_MARK}"),
        ("connect to the wifi with 46pancake", f"connect to the wifi with {_MARK}"),
        ("you can log into my Xbox with jun!pEr", f"you can log into my Xbox with {_MARK}"),
        ("sign in as tom@fastmail.com with 0rCh!d", f"sign in as tom@fastmail.com with {_MARK}"),
        (
            "tried logging in with Goblin57 and it failed",
            f"tried logging in with {_MARK} and it failed",
        ),
        (
            "I entered 4Monkey three times and now I'm locked out of Facebook",
            f"I entered {_MARK} three times and now I'm locked out of Facebook",
        ),
        (
            "enter jun!pEr when it asks for the password",
            f"enter {_MARK} when it asks for the password",
        ),
        (
            "why does Disney+ say invalid password when I type shadoW?",
            f"why does Disney+ say invalid password when I type {_MARK}?",
        ),
        (
            "Is Milo55 strong enough as my Spotify password?",
            f"Is {_MARK} strong enough as my Spotify password?",
        ),
        (
            "can you think of a better password than biscuit1?",
            f"can you think of a better password than {_MARK}?",
        ),
        (
            "I changed the router password from 51Summer to zLhkahUM",
            f"I changed the router password from {_MARK} to {_MARK}",
        ),
    ],
)
def test_the_value_goes(text: str, expected: str) -> None:
    assert redact(text).text == expected


def test_the_new_value_of_a_change_goes() -> None:
    assert "1985Bella" not in redact("password updated: YVLTXGKLL -> 1985Bella").text


@pytest.mark.parametrize(
    "text",
    [
        "sign in using Face ID",
        "sign in using FaceID",
        "sign in with iCloud Keychain",
        "tried logging in with LastPass and it failed",
        "log in with your Google account",
        "Log into GitHub with SSO",
        "connect to the wifi with my MacBook",
        "unlock the phone with TouchID",
        "you can log into the NAS with admin rights",
        "I entered the wrong password three times",
        "I entered my PIN at the ATM",
        "Is PayPal safe enough for my passwords?",
        "I moved the password from the notebook to the manager",
        "password updated: old -> new",
        "the wifi CabinNet is slow today",
        # Words describing the password, not being it.
        "the password is case sensitive",
        "the new password is much longer than the old one",
        "passphrases are better than short passwords",
        "the password is stronger now",
    ],
)
def test_a_way_in_or_a_name_stays(text: str) -> None:
    assert redact(text).text == text


def test_what_a_model_is_sent_loses_the_secrets_caught_this_run() -> None:
    redactor = Redactor()
    assert redactor.known("type Qz2Fv84Mt when the NAS asks") == "type Qz2Fv84Mt when the NAS asks"

    redactor("the NAS password is Qz2Fv84Mt")

    assert redactor.known("type Qz2Fv84Mt when the NAS asks") == f"type {_MARK} when the NAS asks"
    assert redactor.known("nothing here") == "nothing here"
