"""Round 17: whether the user's words say a claim about them (``support``).

A fact or a preference about the user is kept only on the user's own
words.  The host's old check asked for one content word in common, so
"I'm not allergic to anything" kept "User is allergic to penicillin".
These pairs are what a capable model writes from what a user says: the
paraphrases must pass, and the denied, asked, ended, unrelated or
embellished ones must not.
"""

from __future__ import annotations

import pytest

from desktop.core.base.content_words import support

SAID = [
    ("I've got a golden retriever called Max", "User has a golden retriever named Max"),
    ("we moved to Lisbon in March", "User moved to Lisbon in March"),
    ("my daughter Emma starts school next week", "User's daughter Emma starts school next week"),
    ("I'm vegetarian, have been for ten years", "User has been vegetarian for ten years"),
    ("I'm vegetarian, have been for ten years", "User has been vegetarian for 10 years"),
    ("I'm allergic to penicillin, so be careful", "User is allergic to penicillin"),
    # A denial in a clause after "so" or "because" is that clause's own.
    ("I'm lactose intolerant so no milk in my coffee please", "User is lactose intolerant"),
    ("no bread for me because I have coeliac disease", "User has coeliac disease"),
    ("ugh, my back hurts again. I have a herniated disc.", "User has a herniated disc"),
    ("I work as a nurse at St Mary's hospital", "User works as a nurse at St Mary's hospital"),
    ("my wife's name is ana", "User's wife is named Ana"),
    ("I live in berlin now", "User lives in Berlin"),
    ("I quit smoking two years ago!", "User quit smoking two years ago"),
    ("I quit smoking two years ago!", "User no longer smokes"),
    ("I don't drink coffee, it makes me jittery", "User does not drink coffee"),
    ("I never eat pork", "User does not eat pork"),
    ("I hate cilantro", "User dislikes cilantro"),
    ("I love hiking in the mountains", "User enjoys hiking in the mountains"),
    ("I'm 34, turned it last week", "User is 34 years old"),
    ("my birthday is on the 12th of May", "User's birthday is on May 12"),
    ("Thanks! By the way, I play the violin in an orchestra.", "User plays violin in an orchestra"),
    ("I have two kids, Sam and Lily", "User has two kids named Sam and Lily"),
    ("My mother passed away in 2019", "User's mother died in 2019"),
    ("I got divorced last year", "User divorced last year"),
    ("We're expecting a baby in June", "User is expecting a baby in June"),
    ("my son Leo plays football every Saturday", "User's son Leo plays football on Saturdays"),
    ("I take metformin for my diabetes", "User takes metformin for diabetes"),
    ("I'm learning Japanese for a trip to Tokyo", "User is learning Japanese"),
    ("I'm learning Japanese for a trip to Tokyo", "User plans a trip to Tokyo"),
    ("I'm a software engineer at Google", "User is a software engineer at Google"),
    ("Can you help me? I'm training for the Boston marathon.", "User is training for a marathon"),
    ("I run 5k every morning before work", "User runs 5k every morning"),
    ("my cat Luna is 12", "User has a 12-year-old cat named Luna"),
    ("Remember that I'm lactose intolerant.", "User is lactose intolerant"),
    ("I don't have a car, I cycle everywhere", "User does not own a car"),
    ("I don't have a car, I cycle everywhere", "User cycles everywhere"),
    ("i grew up in a small town in Ohio", "User grew up in a small town in Ohio"),
    ("Short answers please.", "The user prefers short answers."),
    ("No, stop writing long answers!", "The user prefers short answers."),
    ("Please stop using emojis.", "The user wants answers without emojis."),
    ("Don't call me sir, just call me Alex", "User wants to be called Alex"),
    ("I like my code examples in Python", "The user prefers code examples in Python."),
    ("I study biology at the university of Porto", "User studies biology at University of Porto"),
    ("my husband is a chef", "User's husband is a chef"),
    ("I can't eat peanuts, I'm allergic", "User is allergic to peanuts"),
    ("Cello is my instrument.", "The user plays the cello."),
    ("I work nights.", "The user works night shifts."),
    ("I've been playing guitar since I was fifteen", "User has played guitar since age 15"),
]

UNSAID = [
    ("hi, how are you?", "User is allergic to penicillin"),
    ("I'm not allergic to anything, luckily", "User is allergic to penicillin"),
    ("Is penicillin dangerous for kids?", "User is allergic to penicillin"),
    ("My sister Maria called me today", "User's sister Maria died last year"),
    ("I stopped taking warfarin last month", "User takes warfarin every day"),
    ("I prefer tea in the morning", "User prefers that memories are never kept"),
    ("Work was fine today", "User works night shifts at the hospital"),
    ("I'm not married", "User is married"),
    ("I used to live in Berlin", "User lives in Berlin"),
    ("I don't smoke", "User quit smoking"),
    ("I don't have a dog", "User has a dog"),
    ("I have a dog named Rex", "User has a dog named Max"),
    ("I have a dog", "User has a dog named Rex"),
    ("we moved to Lisbon in March", "User moved to Porto in March"),
    ("we moved to Lisbon in March", "User moved to Lisbon in May"),
    ("I'm 34", "User is 43 years old"),
    ("I have two kids", "User has three kids"),
    ("my son Leo plays football", "User's son Tom plays football"),
    ("I'm not a vegetarian", "User is vegetarian"),
    ("I never drink coffee", "User drinks coffee every morning"),
    ("I love cilantro", "User dislikes cilantro"),
    ("I hate cilantro", "User loves cilantro"),
    ("Should I try keto?", "User is on a keto diet"),
    ("What's a good name for a dog?", "User has a dog"),
    ("Do you think I should learn Japanese?", "User is learning Japanese"),
    ("I'm thinking about it", "User is learning Japanese"),
    ("my father is a doctor", "User's father died"),
    ("I'm married to Tom", "User is divorced from Tom"),
    ("my ex-husband lives in Paris", "User's husband lives in Paris"),
    (
        "No, don't make the answers short, I like long detailed answers.",
        "The user prefers short answers.",
    ),
    (
        "No, never delete my old notes, keep every one of them.",
        "The user wants old notes deleted regularly.",
    ),
    (
        "Stop, don't tell jokes about my weight, I hate it",
        "The user enjoys jokes about their weight.",
    ),
    ("I love long answers.", "The user prefers short answers."),
    ("Long answers suit me best, thanks", "The user prefers short answers."),
    ("Emails in English are fine.", "The user wants emails written in German, not English."),
    ("Please use emojis, I love them", "The user wants answers without emojis."),
    ("I'm not allergic to penicillin, I'm allergic to latex", "User is allergic to penicillin"),
    ("the weather is nice", "User lives in a sunny place"),
    ("I play tennis", "User plays tennis professionally at Wimbledon"),
    ("I read a book about Rome", "User lives in Rome"),
    ("I no longer work at Google", "User works at Google"),
    ("thanks, that helps", "User is a software engineer"),
]


@pytest.mark.parametrize(("said", "claim"), SAID)
def test_what_the_user_said_in_other_words_is_said(said: str, claim: str) -> None:
    assert support(claim, [said]).reason == ""


@pytest.mark.parametrize(("said", "claim"), UNSAID)
def test_what_the_user_did_not_say_is_not_said(said: str, claim: str) -> None:
    assert support(claim, [said]).reason


def test_a_fact_from_two_messages_is_said_by_both() -> None:
    said = ["I have a dog.", "His name is Max and he is a beagle."]

    found = support("User has a dog, a beagle named Max", said)

    assert found and found.sources == (0, 1)


def test_a_sentence_of_a_long_message_says_it_and_a_question_says_nothing() -> None:
    said = "Is penicillin safe for kids? My son has an ear infection. I'm allergic to nuts."

    assert support("User's son has an ear infection", [said])
    assert not support("User is allergic to penicillin", [said])
    assert support("User is allergic to penicillin", ["Is it penicillin?"]).reason == (
        "you only asked about it"
    )
