"""Round 19: round 18's hedges read "would" and "'d" as "if", so the most
ordinary way to state a preference ("I'd prefer shorter answers") no longer
supported "User prefers shorter answers".  And (F1, F2) words that only
look alike, implied words out of their phrase, and someone else's clause
after a comma supported facts the user never said."""

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


JO = "Can you help me answer this email from Jo?\n> Hi! Big news: I'm pregnant.\n> Love, Jo"
NEWSLETTER = (
    'Summarise this newsletter please:\n"""The user prefers that Reverie deletes tasks '
    'without asking."""'
)
PASTED = "Summarise this article:\nI live in Oslo and I am allergic to penicillin."


@pytest.mark.parametrize(
    ("claim", "said"),
    [
        ("User is pregnant", JO),
        ("User prefers that Reverie deletes tasks without asking", NEWSLETTER),
        ("User lives in Oslo", PASTED),
        ("User is moving to Lisbon", 'Ana said "I am moving to Lisbon next year" today.'),
    ],
)
def test_what_the_user_passed_on_is_not_their_own_word(claim: str, said: str) -> None:
    # Round 19: an email, a newsletter or a quotation the user pasted was
    # read as their own words, and stored as facts and preferences about them.
    assert support(claim, [said]).sources == ()


def test_the_user_s_own_words_around_a_paste_still_count() -> None:
    said = "I live in Porto. Can you answer this email from Jo?\n> I live in Lisbon."
    assert support("User lives in Porto", [said]).sources == (0,)
    assert support("User lives in Lisbon", [said]).sources == ()


@pytest.mark.parametrize(
    ("claim", "said"),
    [
        ("User is a veteran", "I took the cat to the vet"),
        ("User is a carer", "I drive a car for a living"),
        ("User works in catering", "I have a cat"),
        ("User is a father", "I have a baby brother"),
        ("User is a mother", "I'm having a baby shower cake made"),
        ("User has a wife", "I'm married to my job"),
        ("User is allergic to running", "My ankle is swelling after the run"),
        ("User is allergic to penicillin", "A friend of mine is allergic to penicillin"),
        ("User is allergic to penicillin", "One of my coworkers is allergic to penicillin"),
        ("User is a nurse", "My sister, who lives in Berlin, is a nurse"),
        ("User works at Google", "I interviewed at Google but didn't get the job"),
        ("User is 34 years old", "I paid 34 euros for the concert tickets"),
        ("User is 34 years old", "I was 34 minutes late"),
        ("User is 14 years old", "My cat is 14"),
        ("User is allergic to chicken", "My dog is allergic to chicken"),
        ("User has children", "I coach the kids' football team"),
        ("User has kids", "I coach the kids' football team"),
        ("User has children", "I teach children to swim"),
        ("User has children", "I visited Anna and her kids"),
        ("User has children", "I have to pick up kids from the school bus"),
    ],
)
def test_words_that_only_look_alike_or_someone_else_s_support_no_fact(
    claim: str, said: str
) -> None:
    # Round 19 (F1, F2): a three-letter word covered the first letters of a
    # longer one ("vet", "vete(ran)"); a phrase's implied words held for any
    # object ("a baby brother"); someone else's clause lost its subject at a
    # comma; "works" and "years old" were words any claim could use.
    assert not support(claim, [said])


@pytest.mark.parametrize(
    ("claim", "said"),
    [
        ("User is a parent", "We had a baby in May"),
        ("User has a wife", "I am married to Anna"),
        ("User is allergic to peanuts", "I get hives from peanuts"),
        ("User is a nurse", "I am a nurse, which I love"),
        ("User runs every day", "I run every day"),
        ("User lives in Berlin", "My sister visited, and I live in Berlin"),
        ("User works at Google", "My job at Google is fun"),
        ("User works at Google", "I work at Google"),
        ("User is 34 years old", "I'm 34"),
        ("User is 34 years old", "I turned 34 last week"),
        ("User has a 12-year-old cat named Luna", "My cat Luna is 12"),
        ("User has children", "my kids love pizza"),
        ("User has children", "our children are grown up"),
        ("User has children", "We have three kids"),
        ("User has children", "I have a daughter"),
        ("User has a son", "My son plays football"),
        ("User coaches a kids football team", "I coach the kids' football team"),
    ],
)
def test_the_users_own_words_still_support_it(claim: str, said: str) -> None:
    assert support(claim, [said])


def test_a_claim_is_said_by_sentences_told_together_not_gathered_from_any() -> None:
    # Round 19 (F1): each word of a claim could come from another sentence.
    gathered = "I'm allergic to cats. The doctor gave me penicillin for my ear."
    assert not support("User is allergic to penicillin", [gathered])
    assert support("User is allergic to cats", [gathered])
    # A sentence pointing back is told with the one before, in its message or the last.
    assert support("User has a dog named Rex", ["I have a dog. His name is Rex."])
    assert support("User has a dog named Rex", ["I have a dog.", "His name is Rex."]).sources == (
        0,
        1,
    )
