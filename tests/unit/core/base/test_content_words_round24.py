"""Round 24: the pattern that finds a quotation the user passed on
(``own_words``) counted its words by backtracking over every way to split
the line, so a message with an opening quote and no closing one took
seconds at 25 words and minutes at 30: the harvest, the agenda review and
the chat's ``append_memory`` tool (all of them read the user's words
through ``support``) hung on an ordinary message."""

from __future__ import annotations

import itertools

import pytest

from desktop.core.base.content_words import own_words, support
from tests.growth import LINEAR, growth


def test_own_words_grows_with_the_words_after_an_unclosed_quote_no_faster_than_they_do() -> None:
    texts = itertools.count()  # each text its own, as no cache may help

    def read(words: int) -> None:
        for _ in range(100):
            own_words(f'{next(texts)} "' + "word " * words)

    # Before: four times the words took thousands of times as long (and
    # forty words, hours: a pattern holds the interpreter, no timeout stops it).
    assert growth(read, 4) < LINEAR


def test_the_words_after_an_unclosed_quote_are_still_the_users() -> None:
    said = 'My sister texted "we should meet on Tuesday at the cafe. Also I live in Porto now'
    assert support("User lives in Porto", [said]).sources == (0,)


@pytest.mark.parametrize(
    ("said", "left"),
    [
        ('Ana said "I am moving to Lisbon" today.', "Ana said   today."),
        ('I "kind of" like it', 'I "kind of" like it'),
        ('"hi" and then "we are moving soon" she said', '"hi" and then   she said'),
    ],
)
def test_a_quotation_of_three_words_or_more_still_goes(said: str, left: str) -> None:
    assert own_words(said) == left
