"""Round 18: whose words, said how, and all of them (``support``).

Half a claim's words in agreeing clauses let through what the user did
not say: a fact about a relative given to the user, a hope read as a
fact, a denial in a clause of its own, an invented item beside a said
one.  And plain paraphrases ("my kids" for "children") were refused.
"""

from __future__ import annotations

import pytest

from desktop.core.base.content_words import support

SAID = [
    # Someone else's fact is said of them, by the relation or the name.
    ("My brother is a firefighter", "User's brother is a firefighter"),
    ("my mum grows orchids", "User's mother grows orchids"),
    ("My partner Jo and I run a bakery", "User runs a bakery"),
    # A hedge or a wish says the claim that hedges or wishes the same way.
    ("I want to learn the drums", "User wants to learn the drums"),
    ("I might adopt a puppy", "User might adopt a puppy"),
    # Other words for the common facts.
    ("We relocated to Oslo in spring", "User lives in Oslo"),
    ("my daughters both swim", "User's children swim"),
    ("I take my pills with breakfast", "User takes medication with breakfast"),
    ("I'm studying chemistry", "User is learning chemistry"),
    ("I work as a coder", "User works as a developer"),
    ("My husband Paul cooks", "User is married to Paul"),
    ("I can't have shellfish", "User is allergic to shellfish"),
]

UNSAID = [
    # About someone else.
    ("My brother is a firefighter", "User is a firefighter"),
    ("our neighbour keeps bees", "User keeps bees"),
    ("My colleague Ines speaks Greek", "User speaks Greek"),
    # Only possible, wished for, or so only if.
    ("Maybe I have asthma", "User has asthma"),
    ("I hope to own a horse", "User owns a horse"),
    ("If I had time I would paint", "User paints"),
    ("I'd like to run a marathon", "User runs marathons"),
    # A request is no fact.
    ("Explain how insulin pumps work", "User uses an insulin pump"),
    ("Can you show me vegan recipes", "User is vegan"),
    # A denial with nothing of its own denies the clause before.
    ("People assume I'm vegan, but I'm not", "User is vegan"),
    # Every word of the claim is said, not half.
    ("I play chess", "User plays chess and poker"),
    ("I have a garden", "User has a garden with roses"),
    # A paraphrase runs one way: "lives" does not say "moved".
    ("I live in Oslo", "User moved to Oslo"),
]


@pytest.mark.parametrize(("said", "claim"), SAID)
def test_what_the_user_said_in_other_words_is_said(said: str, claim: str) -> None:
    assert support(claim, [said]).reason == ""


@pytest.mark.parametrize(("said", "claim"), UNSAID)
def test_what_the_user_did_not_say_is_not_said(said: str, claim: str) -> None:
    assert support(claim, [said]).reason


def test_a_fact_about_the_user_beside_one_about_someone_else_is_said() -> None:
    said = ["My sister is not allergic to anything. I'm allergic to wasps."]

    assert support("User is allergic to wasps", said)
    assert not support("User's sister is allergic to wasps", said)
