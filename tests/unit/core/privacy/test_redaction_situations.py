"""Secrets stated by situation, with no word naming a credential (issue 15):
"the laptop opens with Easter2023$", "hbo = October2015!!", "everything's
maya1980 except the work stuff", a list under "recovery codes", "gym locker
114, combo 3-33-16", "use Autumn2026?" after "How do I get into the shared
drive?".  Each family is built from parts (``tests.secret_situations``):
the value is gone and every other word stays; everyday sentences of the
same look ("the laptop opens with a click", "my flight is LH2023", "room
114") come out as they went in.
"""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.core.privacy.credential_situations import password_shaped
from desktop.core.privacy.redaction import Redactor, redact
from tests.secret_situations import FAMILIES, NEGATIVES, build, everyday

EXAMPLES = settings(max_examples=120, deadline=None)
_WORD = re.compile(r"[^\W_]+")


@pytest.mark.parametrize("family", sorted(FAMILIES))
@EXAMPLES
@given(rng=st.randoms(use_true_random=False))
def test_a_value_stated_by_its_situation_is_taken_out(family: str, rng: random.Random) -> None:
    trial = build(family, rng)

    stored = Redactor()(trial.text, after=list(trial.after)).text

    assert not [value for value in trial.values if value in stored], (trial.text, stored)
    around = trial.text
    for value in sorted(trial.values, key=len, reverse=True):
        around = around.replace(value, " ")
    kept = set(_WORD.findall(stored))
    assert set(_WORD.findall(around)) <= kept | {"redacted", "password"}, (trial.text, stored)


@EXAMPLES
@given(rng=st.randoms(use_true_random=False))
def test_an_everyday_sentence_of_the_same_look_stays(rng: random.Random) -> None:
    text = everyday(rng)
    assert redact(text).text == text


@pytest.mark.parametrize("text", NEGATIVES)
def test_sentences_about_getting_in_without_a_secret_stay(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("How do I get into the shared drive?", "try restarting it"),
        ("How do I get into the city centre?", "take the U2, then the 100 bus"),
        ("What do I type in the search box?", "cheap flights to Lisbon"),
        ("How do I log in to the portal?", "with your work email"),
    ],
)
def test_an_answer_about_getting_in_without_a_value_stays(question: str, answer: str) -> None:
    assert redact(answer, after=[question]).text == answer


@pytest.mark.parametrize(
    "value",
    ["maya1980", "October2023!", "Easter2023$", "ethan.08", "poiuyt", "qwerty123", "m0nk3y"],
)
def test_values_made_as_people_make_passwords_are_shaped_like_one(value: str) -> None:
    assert password_shaped(value)


@pytest.mark.parametrize(
    "value",
    ["Python3.12", "LH2023", "BA2490", "10:30", "#4821", "@maya1980", "v2.4.1", "114", "hello"],
)
def test_versions_flights_times_and_handles_are_not(value: str) -> None:
    assert not password_shaped(value)
