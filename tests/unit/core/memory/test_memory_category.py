"""Guessing a category for a memory kept with /remember: by cues, by meaning
with the real embedding model, and as MemoryService files one."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from desktop.core.memory.category import (
    CATEGORIES,
    CategoryGuesser,
    MemoryCategory,
    guess_category,
    load_examples,
)
from desktop.core.memory.embedding import Vectors
from desktop.core.memory.service import MemoryService
from models.llama_embedder import LlamaEmbedder

HELD_OUT: list[tuple[str, MemoryCategory]] = [
    # Written after the cue lists and the shipped examples were fixed, labelled
    # before the first run, and never used to tune either; many on purpose use
    # words no cue lists.
    ("The user's first language is Welsh.", "personal"),
    ("lives on a houseboat in Amsterdam", "personal"),
    ("I turned forty in March", "personal"),
    ("The user has a tattoo of a fox on their arm.", "personal"),
    ("i'm a keen birdwatcher", "personal"),
    ("I knit jumpers in the winter", "personal"),
    ("The user went to school in Nairobi.", "personal"),
    ("I'm colour-blind", "personal"),
    ("I rent a room in a shared house", "personal"),
    ("The user's twin brother is called Felix.", "people"),
    ("my stepdad taught me to fish", "people"),
    ("The user's parrot can say hello.", "people"),
    ("my flatmate Zoe is vegan", "people"),
    ("I look after my elderly mother", "people"),
    ("The user's ex-wife lives in Leeds.", "people"),
    ("my godson just started university", "people"),
    ("The user prefers trains to planes.", "preferences"),
    ("not a morning person, don't message before 9", "preferences"),
    ("I really don't enjoy small talk", "preferences"),
    ("loves anything with mango", "preferences"),
    ("The user would rather text than call.", "preferences"),
    ("cats over dogs, always", "preferences"),
    ("keep explanations simple please", "preferences"),
    ("my go-to pizza is margherita", "preferences"),
    ("The user is a paediatric nurse.", "work"),
    ("I drive a delivery van for a living", "work"),
    ("I got laid off in January", "work"),
    ("The user's boss is called Greta.", "work"),
    ("I'm on call every other weekend", "work"),
    ("I teach English to adults online", "work"),
    ("The user is doing a master's in economics.", "work"),
    ("my contract ends in June", "work"),
    ("I own a small vineyard", "work"),
    ("The user is recovering from a concussion.", "health"),
    ("I have a pacemaker", "health"),
    ("I can't eat shellfish, I swell up", "health"),
    ("The user wears hearing aids.", "health"),
    ("my physio says I need to stretch more", "health"),
    ("I've been feeling burnt out lately", "health"),
    ("I stopped taking the antidepressants in May", "health"),
    ("The user has a bad knee.", "health"),
    ("I'm doing couch to 5k", "health"),
    ("our baby is due in August", "plans"),
    ("The user is moving to Canada next year.", "plans"),
    ("we're going to repaint the hallway this weekend", "plans"),
    ("I'm applying for a mortgage soon", "plans"),
    ("The user wants to write a novel.", "plans"),
    ("flight to Lagos on the 14th", "plans"),
    ("I'm signing up for a half marathon", "plans"),
    ("The user plans to propose to Kim in December.", "plans"),
    ("I might take a sabbatical next spring", "plans"),
    ("the dishwasher is broken", "other"),
    ("the gate code is 4471", "other"),
    ("the nearest pharmacy shuts at six", "other"),
    ("it's pronounced 'shiv-awn'", "other"),
    ("bus 42 stops outside the house", "other"),
    ("the plants need water on Saturdays", "other"),
]


def accuracy(guessed: Sequence[str]) -> float:
    return sum(g == want for g, (_, want) in zip(guessed, HELD_OUT, strict=True)) / len(HELD_OUT)


class Pointing:
    """An embedder in which every text points one way (*towards*'s examples
    alone elsewhere): meaning always says *towards*.  Counts its calls."""

    def __init__(self, towards: MemoryCategory, examples: dict[MemoryCategory, list[str]]) -> None:
        self.towards = set(examples[towards])
        self.calls = 0

    def __call__(self, texts: Sequence[str]) -> Vectors:
        self.calls += 1
        out = np.zeros((len(texts), 2), dtype=np.float32)
        for row, text in enumerate(texts):
            out[row, 0 if text in self.towards else 1] = 1.0
        return out


EXAMPLES: dict[MemoryCategory, list[str]] = {c: [f"an example of {c}"] for c in CATEGORIES}
TOWARDS = np.array([1.0, 0.0], dtype=np.float32)
"""The vector of a text closest to the examples of the category ``Pointing`` favours."""


# -- by cues ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("I'm allergic to peanuts", "health"),
        ("The user's sister Ana lives in Porto.", "people"),  # third person, read as first
        ("my mum lives in Dublin", "people"),  # whom it is about outweighs where
        ("The user works as an accountant.", "work"),
        ("I'm going to Japan in April", "plans"),
        ("I'd like to learn the guitar", "plans"),  # "would like to" is a wish, not a taste
        ("I like green tea", "preferences"),
        ("remember that I was born in Lisbon", "personal"),
        ("I am an introvert", "personal"),  # about the user, though no cue says so
        ("the bins go out on Monday", "other"),  # one weak cue about a thing is no plan
        ("the spare key is under the blue pot", "other"),
    ],
)
def test_cues_file_what_they_recognise(text: str, category: MemoryCategory) -> None:
    assert guess_category(text) == category


def test_cues_alone_file_more_than_half_of_unseen_phrasings() -> None:
    # Measured: 58%.  What no cue names falls back to personal or other.
    assert accuracy([guess_category(text) for text, _ in HELD_OUT]) >= 0.55


# -- by meaning, where the cues are not decisive --------------------------
def test_meaning_decides_where_cues_are_weak_and_cues_where_they_are_decisive() -> None:
    guesser = CategoryGuesser(Pointing("work", EXAMPLES), EXAMPLES)

    assert guesser.guess("I have a pacemaker", TOWARDS, "m") == "work"  # no cue: meaning
    assert guesser.guess("I'm allergic to peanuts and pollen", TOWARDS, "m") == "health"
    assert guesser.guess("I have a pacemaker") == "personal"  # no vector: the cues alone


def test_the_examples_are_embedded_once_per_embedding_model() -> None:
    embed = Pointing("plans", EXAMPLES)
    guesser = CategoryGuesser(embed, EXAMPLES)

    for _ in range(3):
        assert guesser.guess("I have a pacemaker", TOWARDS, "first") == "plans"
    assert embed.calls == 1
    guesser.guess("I have a pacemaker", TOWARDS, "second")
    assert embed.calls == 2


def test_without_an_embedder_the_cues_decide() -> None:
    guesser = CategoryGuesser(lambda texts: None, EXAMPLES)

    assert guesser.guess("my cat Miso is twelve", TOWARDS, "gone") == "people"


@pytest.mark.model
def test_with_the_real_embedder_it_files_most_unseen_phrasings_better_than_cues(
    minilm_path: Path,
) -> None:
    with LlamaEmbedder(minilm_path) as model:
        guesser = CategoryGuesser(model.embed)
        vectors = model.embed([text for text, _ in HELD_OUT])
        guessed = [
            guesser.guess(text, vector, model.name)
            for (text, _), vector in zip(HELD_OUT, vectors, strict=True)
        ]
    by_cues = accuracy([guess_category(text) for text, _ in HELD_OUT])
    # Measured: 74% (cues alone 58%, meaning alone 72%).
    assert accuracy(guessed) >= 0.7
    assert accuracy(guessed) >= by_cues + 0.1


# -- the examples -------------------------------------------------------------
def test_the_shipped_examples_cover_every_category() -> None:
    examples = load_examples()

    assert set(examples) == set(CATEGORIES)
    assert all(len(texts) >= 10 for texts in examples.values())
    held_out = {text for text, _ in HELD_OUT}
    assert not held_out & {t for texts in examples.values() for t in texts}


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[hobbies]\nI knit\n", "no category called 'hobbies'"),
        ("I knit\n[personal]\n", "an example before any"),
        ("[personal]\nI knit\n", "no examples of people"),
    ],
)
def test_a_broken_examples_file_says_where(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "examples.txt"
    path.write_text(text, encoding="utf-8")

    with pytest.raises(ValueError, match=problem):
        load_examples(path)


# -- as the memory service files a memory ----------------------------------
def test_a_memory_kept_without_a_category_is_filed_by_its_guess(memories: MemoryService) -> None:
    kept = memories.remember(
        "I'm allergic to peanuts", source_kind="user_explicit", actor="user", category=None
    )
    again = memories.remember(
        "I'm allergic to peanuts", source_kind="user_explicit", actor="user", category=None
    )
    harvested = memories.remember(
        "The user likes tea.", source_kind="harvested", actor="harvest", category="preferences"
    )

    assert kept.memory.category == "health"
    assert again.outcome == "reinforced" and again.memory.category == "health"
    assert harvested.memory.category == "preferences"  # a given category is kept as given
