"""Round 19: round 18's hedges read "would" and "'d" as "if", so the most
ordinary way to state a preference ("I'd prefer shorter answers") no longer
supported "User prefers shorter answers"."""

from __future__ import annotations

import pytest

from desktop.core.base.content_words import support


@pytest.mark.parametrize(
    ("claim", "said"),
    [
        ("User prefers shorter answers", "I'd prefer shorter answers"),
        ("User prefers shorter answers", "I would like shorter answers"),
        ("User prefers that Reverie not use emojis", "I'd rather you didn't use emojis"),
        ("User wants to be called Sam", "I'd like you to call me Sam"),
        ("User would love to visit Japan", "I'd love to visit Japan"),
    ],
)
def test_a_preference_said_with_would_or_i_d_supports_it(claim: str, said: str) -> None:
    assert support(claim, [said]).sources == (0,)


@pytest.mark.parametrize(
    ("claim", "said"),
    [
        ("User lives in Berlin", "I'd live in Berlin if I could"),
        ("User lives in Berlin", "I would live in Berlin"),
        ("User moved to Berlin", "I'd have moved to Berlin"),
    ],
)
def test_what_would_only_be_so_still_supports_no_fact(claim: str, said: str) -> None:
    assert support(claim, [said]).sources == ()
