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
        for _ in range(1000):  # long enough to time well
            own_words(f'{next(texts)} "' + "word " * words)

    # Before: four times the words took thousands of times as long (and
    # forty words, hours: a pattern holds the interpreter, no timeout stops it).
    assert growth(read, 3, rounds=3) < LINEAR


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


@pytest.mark.parametrize(
    "quoted",
    [
        "'I am pregnant with twins and due in May'",  # straight single quotes
        "\u2018I\u2019m pregnant with twins and due in May\u2019",  # curly single ones
        "\u201eI am pregnant with twins and due in May\u201c",  # German
        "\u201aI am pregnant with twins and due in May\u2018",  # German single
        "\u300cI am pregnant with twins and due in May\u300d",  # Japanese corner brackets
        "\uff02I am pregnant with twins and due in May\uff02",  # full-width
        "\u2039I am pregnant with twins and due in May\u203a",  # single guillemets
        "\u00bbI am pregnant with twins and due in May\u00ab",  # Danish guillemets
        '"I am pregnant with twins\nand due in May"',  # over two lines
    ],
)
def test_a_quotation_in_any_quotation_marks_is_someone_elses(quoted: str) -> None:
    # Before: only straight and English curly double quotes (and
    # guillemets) marked a quotation; Jo's news in single quotes, German
    # or Japanese ones became a fact about the user.
    said = f"Jo texted me this morning: {quoted}"
    assert support("User is pregnant with twins", [said]).sources == ()


@pytest.mark.parametrize(
    ("claim", "said"),
    [
        ("User is pregnant with twins", "I'm pregnant with twins, it's Jo's 'big news' too"),
        ("User lives in Jo's old flat", "I live in Jo's old flat, the kids' room is tiny"),
        ("User is 6'2\" tall", "I'm 6'2\" tall and my brother is 5'9\""),
        ("User prefers 'short' answers", "I prefer 'short' answers"),
    ],
)
def test_apostrophes_and_short_quotes_are_still_the_users_words(claim: str, said: str) -> None:
    assert support(claim, [said]).sources == (0,)


@pytest.mark.parametrize(
    "said",
    [
        "Can you reply to Jo's text:\nI am pregnant with twins and due in May",
        "What should I say to my sister\u2019s message?\nI am pregnant with twins, due in May",
        "Got a message from Jo:\nI am pregnant with twins and due in May",
    ],
)
def test_a_text_handed_over_as_someone_elses_is_not_the_users(said: str) -> None:
    # Before: only "this text", "the following email" and the like handed a
    # paste over; "Jo's text:" and "a message from Jo:" did not.
    assert support("User is pregnant with twins", [said]).sources == ()


@pytest.mark.parametrize(
    ("claim", "said"),
    [
        ("User is allergic to penicillin", "My notes:\nI am allergic to penicillin"),
        ("User lives in Berlin", "I answered Jo's text about my move.\nI live in Berlin now"),
        ("User lives in Berlin", "That's the message:\nI live in Berlin now"),
        ("User lives in Berlin", "I live in Berlin. Jo's email:\nI live in Paris"),
    ],
)
def test_the_users_own_notes_and_words_before_a_paste_are_theirs(claim: str, said: str) -> None:
    assert support(claim, [said]).sources == (0,)
