"""Round 18: a preference counts only from the user's words about
themselves, and is a firm correction only when the correcting words say
it (``supports``, ``corrects``).  "No, my husband likes short answers,
not me" and "No worries! Short answers are fine" gave a preference on one
message."""

from __future__ import annotations

import pytest

from desktop.core.dreaming.evidence import corrects, supports

SHORT = "The user prefers short answers."
FORMAL = "The user prefers a formal tone."


@pytest.mark.parametrize(
    "message",
    [
        "No, my wife wants short answers, I don't",
        "Stop. My boss prefers a formal tone.",
        "my daughter likes short answers",
    ],
)
def test_a_preference_given_to_someone_else_does_not_count(message: str) -> None:
    point = FORMAL if "formal" in message else SHORT

    assert not supports(point, message)
    assert not corrects(message, point)


@pytest.mark.parametrize(
    "message", ["No problem! Short answers work for me", "Never mind, short answers are ok"]
)
def test_a_passing_no_is_no_correction(message: str) -> None:
    assert not corrects(message, SHORT)


def test_a_correction_that_says_something_else_is_not_one_for_the_preference() -> None:
    assert not corrects("No, stop using emojis. Short answers are good.", SHORT)


@pytest.mark.parametrize(
    "message", ["No! Keep your answers short.", "Stop writing long answers, please"]
)
def test_a_correction_that_says_the_preference_is_one(message: str) -> None:
    assert corrects(message, SHORT)
