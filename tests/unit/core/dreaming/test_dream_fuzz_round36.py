"""Round 36: every dream pass, fed answers of new shapes (seed 3636): the
answer followed by a second JSON object, or by itself again; every text in
another language, or 100 KB of it; an item's number named twice in one list
(a merge of a memory with itself); two merges of the same memories in turn
(a into b, b into a).  Each is refused, or only proposed for the user, or
is what the answer as meant applies; nothing is written while planning.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from desktop.core.base.prompts import PromptLibrary
from desktop.core.db import Database
from desktop.core.memory.service import MemoryService
from desktop.core.skills.library import SkillLibrary
from desktop.core.tasks.service import TaskService
from models.broker import InferenceBroker
from tests.fakes import ScriptedChatModel
from tests.unit.core.dreaming.test_dream_fuzz import ALL_PASSES, Scene, _scene
from tests.unit.core.dreaming.test_dream_fuzz_round35 import (
    _places,
    _replaced,
    changes_nothing_unasked,
)

SEED = 3636
PER_PASS = 30
IN_OTHER_LANGUAGES = (
    "L'utilisateur a un chien qui s'appelle Rex.",
    "ユーザーはレックスという名前の犬を飼っています。",
    "Пользователь живёт в Риме.",
)
A_HUNDRED_KB = "Der Benutzer hat einen Hund namens Rex. " * 2_600


def _doubled_numbers(typed: Any) -> list[str]:
    """*typed* with each list of numbers holding its first number twice."""
    lists = [
        path for path, _ in _places(typed) if path and isinstance(path[-1], int) and path[-1] == 0
    ]
    found = []
    for path in lists:
        place = typed
        for step in path[:-1]:
            place = place[step]
        if all(isinstance(n, int) and not isinstance(n, bool) for n in place):
            found.append(json.dumps(_replaced(typed, path[:-1], [place[0], *place])))
    return found


def _shapes(scene: Scene, rng: random.Random) -> list[str]:
    typed = scene.typed or scene.valid
    whole = json.dumps(typed)
    texts = [p for p, v in _places(typed) if isinstance(v, str)]
    found = [
        f"{whole}{json.dumps(scene.valid)}",
        f"{whole}\n{whole}",
        f"{whole} {json.dumps({'note': 'the answer above is final'})}",
        *_doubled_numbers(typed),
    ]
    for path in texts:
        found += [
            json.dumps(_replaced(typed, path, t), ensure_ascii=False) for t in IN_OTHER_LANGUAGES
        ]
        found.append(json.dumps(_replaced(typed, path, A_HUNDRED_KB)))
    rng.shuffle(found)
    return found[:PER_PASS]


SELF_AND_CYCLE = {
    "a memory merged with itself": {
        "toSave": [
            {"content": "The user has a dog named Rex.", "category": "people", "sourceIds": [1, 1]}
        ],
        "toDelete": [1],
    },
    "two merges in turn, a into b and b into a": {
        "toSave": [
            {"content": "The user has a dog named Rex.", "category": "people", "sourceIds": [1, 2]},
            {
                "content": "The user has a dog called Rex.",
                "category": "people",
                "sourceIds": [2, 1],
            },
        ],
        "toDelete": [1, 2],
    },
    "a memory deleted twice": {
        "toSave": [
            {"content": "The user has a dog named Rex.", "category": "people", "sourceIds": [1, 2]}
        ],
        "toDelete": [1, 2, 1],
    },
}


@pytest.mark.slow  # a kind of attack new to the suite, found nothing (round 36)
@pytest.mark.parametrize("name", ALL_PASSES)
def test_answers_of_round_36_shapes_change_nothing_unasked(
    name: str,
    database: Database,
    tasks: TaskService,
    skills: SkillLibrary,
    memories: MemoryService,
    model: ScriptedChatModel,
    prompts: PromptLibrary,
    broker: InferenceBroker,
) -> None:
    scene = _scene(name, database, tasks, skills, memories)
    tried = _shapes(scene, random.Random(SEED))
    if name == "dedup":
        tried += [json.dumps(answer) for answer in SELF_AND_CYCLE.values()]
    outcomes = changes_nothing_unasked(
        name, scene, tried, database, skills, model, memories, prompts, broker
    )
    assert "refused" in outcomes
