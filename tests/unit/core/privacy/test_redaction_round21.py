"""Round 21: secrets said beside others, family by family (several in one
message, a password changed, a list or a table of accounts, a code or a
CVC said alone and quoted, one split across messages), and sentences of
the same look that hold none.  The families are drawn from parts by
``tests.secret_families``; its templates at even places are the ones this
round's rules were written on, and each of them must now lose every value.
"""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.core.privacy.redaction import Redactor, redact
from tests.secret_families import FAMILIES, NEGATIVES, _filled

EXAMPLES = settings(max_examples=60, deadline=None)


def _assert_gone(text: str, *values: str, after: tuple[str, ...] = ()) -> None:
    redacted = redact(text, after=after).text
    for value in values:
        assert re.search(rf"(?<!\w){re.escape(value)}(?!\w)", redacted) is None, redacted


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("tv 5521, tablet Pl@typus3, watch 9090", ("5521", "9090")),
        ("garden shed: 'Otter#41' / car: '7733'", ("Otter#41", "7733")),
        ("codes: j4ckdaw9 for the bank, Heron!22 for the phone", ("Heron!22",)),
        ("the nas is Fjord88!, the printer is Birch#07 and the cam is k3stre1_x", ("k3stre1_x",)),
        ("email: Quill#2290, the safe is '11 4 32' thx", ("11 4 32",)),
    ],
)
def test_every_secret_of_a_list_in_one_message_is_taken_out(
    text: str, values: tuple[str, ...]
) -> None:
    _assert_gone(text, *values)


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("the safe combination changed from 6610 to 4402", ("6610", "4402")),
        ("passcode swap: 'Lantern#9' => 'Mossy!44'", ("Lantern#9",)),
        ("new pin: 5521 (old: 8812)", ("8812",)),
        ("the garage code went from 3344 to 9015 last week", ("3344", "9015")),
    ],
)
def test_both_values_of_a_changed_password_are_taken_out(
    text: str, values: tuple[str, ...]
) -> None:
    _assert_gone(text, *values)


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("Tidal | ana@post.pt | Gr4nite! lol", ("Gr4nite!",)),
        ("deezer, ana_p, kelp_forest_4", ("kelp_forest_4",)),
        ("| Crunchyroll | wasabi_77 |\n| Audible | Pine!cone3 |", ("wasabi_77", "Pine!cone3")),
        ("- [ ] Tidal 'Gr4nite!'\n- [x] Audible `owl_tree_5`", ("Gr4nite!", "owl_tree_5")),
        ("* Tidal \u2014 Gr4nite!\n* Audible \u2014 owl_tree_5", ("owl_tree_5",)),
    ],
)
def test_the_password_of_a_row_or_an_item_of_accounts_is_taken_out(
    text: str, values: tuple[str, ...]
) -> None:
    _assert_gone(text, *values)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("CVV '804' on the back", "804"),
        ('the cvc is "3391"', "3391"),
        ("the shed padlock is '7 19 3'", "7 19 3"),
        ("back door keypad 4417 lol", "4417"),
    ],
)
def test_a_quoted_code_or_cvc_is_taken_out(text: str, value: str) -> None:
    _assert_gone(text, value)


def test_a_cvc_given_in_the_message_after_its_name_is_taken_out() -> None:
    _assert_gone("418 :)", "418", after=("and the cvv is", "Go on."))


@pytest.mark.parametrize(
    "text",
    [
        "Lisbon | Portugal | 545000",
        "website: wikipedia.org, page views: 4200",
        "we moved the party from 7pm to 8pm, the password for the wifi is on the fridge",
        "I changed my PIN yesterday, from the bank's app",
        "the password policy went from 8 to 12 characters",
        "| Sprint | Points |\n| 14 | 21 |",
        "- eggs: 6\n- flour: 500g",
        "tv 2, tablet 1, watch 3",
        "together we changed the password rules",
        "and the cvv is printed on the back",
    ],
)
def test_sentences_of_the_same_look_are_kept(text: str) -> None:
    assert redact(text).text == text


def test_a_password_said_to_be_gone_keeps_the_word() -> None:
    # Found by round 21's negatives: "gone" was taken for the value.
    assert redact("gone, I reset it", after=["my password is"]).text == "gone, I reset it"


def _held_in(family: str) -> list[str | tuple[str, str]]:
    return list(FAMILIES[family][::2])


@pytest.mark.parametrize("family", sorted(FAMILIES))
@EXAMPLES
@given(seed=st.integers(0, 2**32))
def test_a_value_of_the_families_rules_were_written_on_is_taken_out(family: str, seed: int) -> None:
    # A seed, not hypothesis' randoms: a trial draws too many numbers to shrink.
    rng = random.Random(seed)
    trial = _filled(family, "in", rng.choice(_held_in(family)), rng)

    stored = Redactor()(trial.text, after=list(trial.after)).text

    left = [v for v in trial.values if re.search(rf"(?<!\w){re.escape(v)}(?!\w)", stored)]
    assert not left, (trial.after, trial.text, stored)


@pytest.mark.parametrize(
    "negative",
    [negative for family in sorted(NEGATIVES) for negative in NEGATIVES[family]],
)
def test_an_everyday_sentence_of_a_familys_look_stays(negative: str | tuple[str, str]) -> None:
    before, text = negative if isinstance(negative, tuple) else ("", negative)
    assert redact(text, after=[before] if before else []).text == text


# Written after the held-out half was measured (so no longer held out): the
# same families in the shapes that half had.
@pytest.mark.parametrize(
    ("text", "values", "after"),
    [
        ('the pin for the joint card is 4471, for the savings card it\'s "9920"', ("9920",), ()),
        ("bank: Falcon#19\nemail: Wren5512!", ("Wren5512",), ()),
        (
            "zxcvbn is the old one, Marsh!77 is the new pw",
            ("zxcvbn", "Marsh!77"),
            (),
        ),
        ("Tidal  ana_p  Gr4nite!\nAudible  ana_p  owl_tree_5", ("Gr4nite!", "owl_tree_5"), ()),
        ("\u2022 Tidal - ana_p - owl_tree_5", ("owl_tree_5",), ()),
        ("site: Tidal, user: ana_p, owl_tree_5", ("owl_tree_5",), ()),
        ("Tidal:ana_p:owl_tree_5", ("owl_tree_5",), ()),
        ("code for the back gate 5521", ("5521",), ()),
        ("the three digits on the back are 402", ("402",), ()),
        ("the main entrance: '7781'", ("7781",), ()),
        ("garage keypad '3.3.1.9'", ("3.3.1.9",), ()),
        ("12-30-7", ("12-30-7",), ("my bike lock combo",)),
    ],
)
def test_the_held_out_shapes_are_taken_out_too(
    text: str, values: tuple[str, ...], after: tuple[str, ...]
) -> None:
    _assert_gone(text, *values, after=after)


@pytest.mark.parametrize(
    "text",
    [
        "email: anna@mail.de\nphone: 0171 2345678",
        "meeting: 10:30\nroom: 114",
        "Berlin  Germany  3645000",
        "\u2022 milk - 2 - litres",
        "the code for the gate is on the fridge",
        "the three digits on the back are worn off",
        "wifi: HomeNet\nrouter: FRITZ!Box 7530",
        "it was the old one, the new one is faster",
    ],
)
def test_sentences_of_the_held_out_shapes_are_kept(text: str) -> None:
    assert redact(text).text == text
