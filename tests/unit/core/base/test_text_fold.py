"""Folding a text a run at a time (or in one translation) gives what
folding it a character at a time gives; every apostrophe is one."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from desktop.core.base.text_fold import APOSTROPHES, fold, folded, folded_text, normalised

_SOME = "ab Z\t\n\x00\x1b\x1c\x7f\u0301\u00e9\u200b\u0430\uff50\U0001f9d1\u200d\ud55c\u3164"
"""Plain letters and spaces, controls, accents, invisibles, look-alikes, emoji, Hangul."""


def _one_at_a_time(text: str) -> tuple[str, list[int]]:
    forms = [fold(char) for char in text]
    return "".join(forms), [index for index, form in enumerate(forms) for _ in form]


@given(st.text(alphabet=st.sampled_from(_SOME)))
def test_runs_fold_as_their_characters_do(text: str) -> None:
    assert folded(text) == _one_at_a_time(text)


def test_a_long_plain_run_keeps_its_places_after_a_folded_character() -> None:
    text = "\uff50" + "words " * 1000 + "\u00e9"  # a full-width p, an accented e
    seen, origins = folded(text)
    assert seen == "p" + "words " * 1000 + "e"
    assert origins[:3] == [0, 1, 2] and origins[-1] == len(text) - 1


@given(st.text(alphabet=st.sampled_from(_SOME)))
def test_the_folded_text_alone_is_the_folded_text(text: str) -> None:
    assert folded_text(text) == folded(text)[0]


def test_every_apostrophe_a_keyboard_types_is_one_mark() -> None:
    # Round 14: "didn\u02bct" (U+02BC, what some keyboards type) hid a denial.
    typed = "\u2019\u2018`\u00b4\u02bc\u02bb\u02bd\u02b9\u2032\u2035\ua78c\uff07"

    assert typed.translate(APOSTROPHES) == "'" * len(typed)
    assert normalised("DIDN\u02bcT") == "didn't"
