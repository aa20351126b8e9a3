"""Round 30: a password shown to the assistant to be judged or kept, said
in ways round 29's "ask" templates do not (written anew from the family's
description, not from its held-out half): how strong or guessable it is,
whether it leaked, whether it meets a rule, kept "for me"; and everyday
questions of the same look about strength, guessing, leaks and memory.
Written with ``tests.secret_families_round29``'s "ask" description and its
held-in templates only.
"""

from __future__ import annotations

import pytest

from tests.redacted import assert_gone, assert_kept


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("how secure is Mango#2024", "Mango#2024"),
        ("could someone guess Winter2025! easily?", "Winter2025!"),
        ("Would Maya1980 be guessed fast?", "Maya1980"),
        ("Is Copper!Fox77 hard to crack?", "Copper!Fox77"),
        ("How many years to brute force Velvet_Badger!", "Velvet_Badger!"),
        ("how many guesses to break Kestrel!92", "Kestrel!92"),
        ("would a hacker get Kestrel!92 quickly", "Kestrel!92"),
        ("what's the entropy of Kestrel!92", "Kestrel!92"),
        ("score Kestrel!92 for strength", "Kestrel!92"),
        ("test the strength of Blue7Heron$", "Blue7Heron$"),
        ("Tr0ub4dor&3 — good enough?", "Tr0ub4dor&3"),
        ("Kestrel!92 - strong or weak?", "Kestrel!92"),
        ("quick q: CopperFinch62 - secure enough for banking?", "CopperFinch62"),
        ("I'm thinking of using Kestrel!92, any good?", "Kestrel!92"),
        ("which is stronger, Kestrel!92 or Falcon#11?", "Falcon#11"),
        ("my new one is gonna be Lantern_88, how secure is that?", "Lantern_88"),
        ("has Kestrel!92 been leaked?", "Kestrel!92"),
        ("was Sp4rrow310 in the LinkedIn breach", "Sp4rrow310"),
        ("can you check if Kestrel!92 has been pwned", "Kestrel!92"),
        ("Does R1verbend77 meet the bank's password policy?", "R1verbend77"),
        ("does Kestrel!92 meet the 12 character rule", "Kestrel!92"),
        ("should I change Kestrel!92? I've had it for years", "Kestrel!92"),
        ("should I rotate October2023! already?", "October2023!"),
        ("keep this for me: Zq8!mnP2", "Zq8!mnP2"),
        ("could u keep Zq8!mnP2 safe for me", "Zq8!mnP2"),
        ("yo can u remember Tundra$41 for me", "Tundra$41"),
        ("don't let me forget: Hx7$pQ9w is the new one", "Hx7$pQ9w"),
        ("pls save Rosa1986& somewhere, it's for the family netflix", "Rosa1986&"),
    ],
)
def test_a_password_shown_to_be_judged_or_kept_is_taken_out(text: str, value: str) -> None:
    assert_gone(text, value)


@pytest.mark.parametrize(
    "text",
    [
        "i guess Summer2024 was a great festival",
        "I guess the Apollo13 movie is good",
        "how strong is the iPhone15 battery",
        "how strong is Windows11 security",
        "how long is the Route66 drive",
        "which is stronger, Python or Rust?",
        "the strongest Boeing737 variant",
        "was covid19 leaked from a lab",
        "how secure is WPA3 compared to WPA2",
        "is LH2023 a strong flight number lol",
        "help me remember the meeting at 10:30",
        "please keep Flat4B in mind when delivering",
        "can you save this doc as Report_2024",
        "does the essay meet the 500 word rule?",
        "should I change the oil at 10000 km?",
    ],
)
def test_an_everyday_question_of_strength_or_memory_is_kept(text: str) -> None:
    assert_kept(text)
