"""Round 35: round 34's held-out families, now known, taken out (a value
changed, a list of logins, "pin no."), the words after a value that
correct it kept ("the pin is 4821 not 2019"); and round 35's own families
(``tests.secret_families_round35``): secrets in a story, several sentences
after what named them, in a reply to the companion, dictated, seed phrases
typed in a chat, the word for password in more languages; the held-in half
of every family taken out, and everyday chat of the same look kept.
"""

from __future__ import annotations

import pytest

from desktop.core.privacy.redaction import redact
from tests import secret_families_round34, secret_families_round35
from tests.bench.secret_families import missed
from tests.redacted import assert_gone, assert_kept
from tests.secret_families import Trial


@pytest.mark.parametrize(
    ("text", "stored"),
    [
        ("the pin is 4821 not 2019", "the pin is [redacted password] not 2019"),
        (
            "my password is hunter2 not hunter3 ok?",
            "my password is [redacted password] not [redacted password] ok?",
        ),
        (
            "the code is 4821 instead of 1234",
            "the code is [redacted password] instead of [redacted password]",
        ),
    ],
)
def test_the_words_correcting_a_value_after_it_stay(text: str, stored: str) -> None:
    assert redact(text).text == stored


@pytest.mark.parametrize(
    "trial",
    [
        trial
        for family in secret_families_round34.FAMILIES
        for trial in secret_families_round34.trials(family, 3, seed=11)
        if trial.half == "out"
    ],
    ids=lambda trial: trial.family,
)
def test_a_secret_of_round_34s_held_out_half_is_taken_out(trial: Trial) -> None:
    assert missed(trial) == []


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("it used to be Pancake329 but I switched it to cricket164", ("Pancake329", "cricket164")),
        ("the code was 49927 until they changed it to 6654", ("49927", "6654")),
        ("sorry, I typed it wrong - it's lumiere_9, not Ventana_12", ("lumiere_9", "Ventana_12")),
        ("here are my logins - amazon Ruby5630; ebay lumiere_9", ("Ruby5630", "lumiere_9")),
        ("wifi tigerlily6, alarm 553796, safe 22-11-16", ("tigerlily6", "553796", "22-11-16")),
        ("pin no. 0221 for the debit card", ("0221",)),
        ("il-password tiegħi hi Pastel#de#nata", ("Pastel#de#nata",)),
    ],
)
def test_round_34s_leftovers_are_taken_out(text: str, values: tuple[str, ...]) -> None:
    assert_gone(text, *values)


@pytest.mark.parametrize(
    "text",
    [
        "the zip code was 10115 until they changed it to 10117",
        "the error code was 4042 until they changed it to 5003",
        "it used to be Windows10 but I updated it to Windows11",
        "it used to be slow but now it's fine",
        "my code used to be 1200 lines but I cut it to 800",
        "wifi Vodafone-4F2A, alarm works again",
        "here are my plans - monday gym; tuesday 5k run",
        "the meeting is tuesday, not Mila#585",
        "pin no. is on the back of the letter",
        "connect the LED to pin no. 13",
        "pin = 'later'",
        "password: \u2018see the note\u2019",
    ],
)
def test_chat_of_the_leftovers_look_is_kept(text: str) -> None:
    assert_kept(text)


@pytest.mark.parametrize(
    "trial",
    [
        trial
        for family in secret_families_round35.FAMILIES
        for trial in secret_families_round35.trials(family, 3, seed=5)
        if trial.half == "in"
    ],
    ids=lambda trial: trial.family,
)
def test_a_secret_of_the_round_35_families_is_taken_out(trial: Trial) -> None:
    assert missed(trial) == []


@pytest.mark.parametrize(
    ("text", "values", "after"),
    [
        (
            "The alarm code. Don't laugh. It's the same as at our old house. 4821 x",
            ("4821",),
            (),
        ),
        (
            "The locker combination. I wrote it on my hand. I still remember it: 7 45 29",
            ("7 45 29",),
            (),
        ),
        ("yep, 9282 x", ("9282",), ("Do you have the code for the gate?",)),
        ("sure it's framboise33 anyway", ("framboise33",), ("What's your router password?",)),
        ("credentials for the vpn: svc_backup vuvuzela8!", ("vuvuzela8",), ()),
        ("save my laptop password its puffin four seven no spaces x", ("puffin four",), ()),
        # A sign-off "x" ends a dictated value, not the "x" of its "six" nor its capital X.
        ("the wifi is capital W maple garden six one.", ("maple garden",), ()),
        ("the wifi is capital X silver maple three five", ("silver maple",), ()),
        (
            "my recovery phrase is office indicate pistol push degree pudding visual earth "
            "swing flip cube pulp anyway",
            ("degree pudding visual", "cube pulp"),
            (),
        ),
    ],
)
def test_round_35s_families_are_taken_out_as_said(
    text: str, values: tuple[str, ...], after: tuple[str, ...]
) -> None:
    assert_gone(text, *values, after=after)


@pytest.mark.parametrize(
    ("text", "after"),
    [
        *(
            (text, after)
            for family in secret_families_round35.NEGATIVES
            for _, text, after in secret_families_round35.negatives(family)
        ),
        ("The gym is open late. I went at 9. Locker 114 was free.", ()),
        ("I forgot my password. The meeting is in room 2114. See you in 2019.", ()),
        ("the wifi its slow two days now", ()),
        ("yes, 2019 was when we moved", ("do you remember the code for the gate?",)),
        ("yes, 3 comments", ("Did the code review go well?",)),
        ("credentials: see the wiki page", ()),
        ("my login is bob and I forgot the rest", ()),
    ],
)
def test_everyday_chat_of_round_35s_look_is_kept(text: str, after: tuple[str, ...]) -> None:
    assert_kept(text, after=after)


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("login is yxcvb, aaa0", "login is yxcvb, [redacted password]"),
        ("my login is qwert, s3cret!", "my login is qwert, [redacted password]"),
        ("login: yxcvb password: aaa0", "login: yxcvb password: [redacted password]"),
        # Not a pair: the value is the login's password.
        ("my login is hunter2x, don't tell anyone.", "my login is [redacted password], don't"),
        ("login is qwert, and the wifi is x", "login is [redacted password], and"),
    ],
)
def test_a_login_said_as_a_pair_keeps_its_user_in_letters(said: str, kept: str) -> None:
    """The first of "login is X, Y" in letters alone, before a value with a
    digit or a sign, is the user (a user of random letters, "yxcvb", read as
    a made-up value, went too; the phrasings test drew it in CI)."""
    assert redact(said).text.startswith(kept)
