"""Round 36: round 35's held-out families, now known, taken out (a reply to
the companion's question, "login details", a key safe, a combination in
spaces, Turkmen); round 35's leftovers (the words correcting a value of
words kept, a number a later sentence names kept); and round 36's own
families (``tests.secret_families_round36``): the held-in half of every
family taken out, and everyday chat of the same look kept.
"""

from __future__ import annotations

import pytest

from desktop.core.privacy.redaction import redact
from tests import secret_families_round35, secret_families_round36
from tests.bench.secret_families import missed
from tests.redacted import assert_gone, assert_kept
from tests.secret_families import Trial


@pytest.mark.parametrize(
    ("text", "stored"),
    [
        ("the password is blue whale not 2019", "the password is [redacted password] not 2019"),
        (
            "the password is blue whale instead of 2019",
            "the password is [redacted password] instead of 2019",
        ),
        # A passphrase may hold "not" where no value follows it alone.
        (
            "the passphrase is correct horse not battery staple 9",
            "the passphrase is [redacted password]",
        ),
    ],
)
def test_the_words_correcting_a_value_of_words_stay(text: str, stored: str) -> None:
    assert redact(text).text == stored


@pytest.mark.parametrize(
    "text",
    [
        "my password expired. call me back: 07700900123",
        "my pin is new. call me on 07700900123",
        "my pin is new. room 2114",
        "my pin is blocked. room 2114",
        "my password is temporary. flight 2490 leaves at 9",
    ],
)
def test_a_number_a_later_sentence_names_stays(text: str) -> None:
    """A sentence that ends what is said of the credential ends its reach:
    the number after it is what its own sentence says it is."""
    assert_kept(text)


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("my pin is new. 4821", ("4821",)),
        ("The alarm code. Don't laugh. It's the same as at our old house. 4821", ("4821",)),
        ("my password expired. it is 4821 now", ("4821",)),
    ],
)
def test_a_value_a_later_sentence_gives_goes(text: str, values: tuple[str, ...]) -> None:
    assert_gone(text, *values)


@pytest.mark.parametrize(
    "trial",
    [
        trial
        for family in ("relay", "reply", "credwords", "between", "language")
        for trial in secret_families_round35.trials(family, 3, seed=11)
        if trial.half == "out"
    ],
    ids=lambda trial: trial.family,
)
def test_a_secret_of_round_35s_held_out_half_is_taken_out(trial: Trial) -> None:
    assert missed(trial) == []


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("pass this on to the cleaner: the key safe is 0455 haha", ("0455",)),
        ("the key safe is 25604 x", ("25604",)),
        ("the safe combination is 15 35 25 haha", ("15 35 25",)),
        ("meniň parolym Falken77? x", ("Falken77",)),
    ],
)
def test_a_value_before_a_sign_off_is_taken_out(text: str, values: tuple[str, ...]) -> None:
    """A laugh, "anyway" or a kiss ("x") after a lock's code ends it as a
    thanks does."""
    assert_gone(text, *values)


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("Kettle42, hunter2 and Rosebud77 are my passwords", ("Kettle42", "hunter2", "Rosebud77")),
        ("03284692, 96474403 and 30932265 are the recovery codes", ("03284692",)),
        ("27854005, 44939456 and 11252352: those are my backup codes ty", ("27854005", "11252352")),
        ("Otter!899, velvet-tractor-7 are the passwords", ("Otter!899", "velvet-tractor-7")),
    ],
)
def test_every_value_of_a_list_before_its_credential_word_goes(
    text: str, values: tuple[str, ...]
) -> None:
    """The first of "X, Y and Z are my passwords" went unread: only a value
    joined by "and" or "or" was taken, not one a comma joins."""
    assert_gone(text, *values)


@pytest.mark.parametrize(
    "trial",
    [
        trial
        for family in secret_families_round36.FAMILIES
        for trial in secret_families_round36.trials(family, 3, seed=5)
        if trial.half == "in"
    ],
    ids=lambda trial: trial.family,
)
def test_a_secret_of_the_round_36_families_is_taken_out(trial: Trial) -> None:
    assert missed(trial) == []


@pytest.mark.parametrize(
    ("text", "after"),
    [
        *(
            (text, after)
            for family in secret_families_round36.NEGATIVES
            for _, text, after in secret_families_round36.negatives(family)
        ),
        ("Hi Bob, I forgot my password", ()),
        ("12, 14 and 16 are my lucky numbers", ()),
        ("the door code changes monthly haha", ()),
        ("the screen is 1920 x 1080", ()),
    ],
)
def test_everyday_chat_of_round_36s_look_is_kept(text: str, after: tuple[str, ...]) -> None:
    assert_kept(text, after=after)


@pytest.mark.parametrize(
    ("text", "values", "after"),
    [
        ("lucia and lumiere_9 thx", ("lumiere_9",), ("You wanted the Netflix login earlier?",)),
        ("ana, Pastel#de#nata x", ("Pastel#de#nata",), ("Your login for the portal?",)),
        ("login details for the school app: ana, chuva_forte7", ("chuva_forte7",), ()),
        (
            "the answer to what you asked before: Hafen#Kiel4, that's the laptop one",
            ("Hafen#Kiel4",),
            (),
        ),
        ("it's his email and Pastel#de#nata, so we can watch", ("Pastel#de#nata",), ()),
        (
            "Here's my email password. Please never share it, even if someone asks. b@n@n@!",
            ("b@n@n@",),
            (),
        ),
    ],
)
def test_round_35s_held_out_replies_are_taken_out(
    text: str, values: tuple[str, ...], after: tuple[str, ...]
) -> None:
    """A login asked for and answered "user and X" or "user, X", the answer
    to what the companion asked, a value said with its user's e-mail, and
    a value of letters and signs closing the message that named it."""
    assert_gone(text, *values, after=after)


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("### Wifi\n`Cobalt?428`", ("Cobalt?428",)),
        ("## Wifi:\nnutmeg-velvet-75", ("nutmeg-velvet-75",)),
        ("the router one is `s@ffron*walrus` if you need it", ("s@ffron*walrus",)),
        ("the router one is `Velvet&744` if you need it 🙏", ("Velvet&744",)),
        ("it's tundr@*walrus, that's tundr@*walrus with a capital", ("tundr@*walrus",)),
        ("it's Pretzel%966, that's Pretzel%966 with a capital.", ("Pretzel%966",)),
        ("mia pasvorto estas OxbJvKsgeZcQ", ("OxbJvKsgeZcQ",)),
        ("ereygayga sirta ah waa cob@lt#paprika", ("cob@lt#paprika",)),
    ],
)
def test_round_36s_families_are_taken_out_as_said(text: str, values: tuple[str, ...]) -> None:
    """A value alone under a markdown heading, letters with signs for
    letters ("b@n@n@"), a value said twice to confirm it."""
    assert_gone(text, *values)


@pytest.mark.parametrize(
    "text",
    [
        "### Wifi\nThe router is upstairs",
        "## Wifi\nupstairs",
        "### Token\nv2",
        "## Network\n192.168.1.1",
        "flight BA2490, I repeat BA2490",
        "what?? yes what??",
        "the colours are black+white+grey",
        "x+y=z, that's x+y=z",
        "AT&T, that's AT&T",
        "the wifi is at AT&T",
        "my router is a TP-Link, R&D dept",
        "what you asked for: 3 apples and 2 pears",
        "the answer to what you asked earlier: 14:30 on Tuesday",
        "my email and phone number are on the card",
        "I could not log in yesterday\nbob and alice came at 9",
    ],
)
def test_chat_of_round_36s_fixes_look_is_kept(text: str) -> None:
    assert_kept(text)


@pytest.mark.parametrize(
    "text",
    [
        "In 2024, I changed my password",
        "Since 2019, my pin has been the same",
        "By 2030, passwords are gone",
    ],
)
def test_a_time_before_a_credential_word_stays(text: str) -> None:
    """A year after "in", "since" or "by" says when, not which value: "In
    2024, I changed my password" lost "2024" (a round 36 negative found it)."""
    assert_kept(text)


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("Kettle42, my password", ("Kettle42",)),
        ("I use Rosebud77, the password for wifi", ("Rosebud77",)),
    ],
)
def test_a_value_before_its_credential_word_still_goes(text: str, values: tuple[str, ...]) -> None:
    assert_gone(text, *values)


@pytest.mark.parametrize(
    ("text", "stored"),
    [
        ("<password: hunter2>", "<password: [redacted password]>"),
        ("<li>password: hunter2</li>", "<li>password: [redacted password]</li>"),
        ("the wifi password is <Kettle42> ok", "the wifi password is <[redacted password]> ok"),
    ],
)
def test_the_angle_brackets_around_a_value_stay(text: str, stored: str) -> None:
    """Found by helper S in a prompt's tags: the '>' closing "<password: X>"
    went with the value, as ')', ']' and '}' no longer do.  ("password:
    <X>" stays whole: a template's stand-in, "<put it here>".)"""
    assert redact(text).text == stored
