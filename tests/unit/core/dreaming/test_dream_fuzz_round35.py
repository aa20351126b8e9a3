"""Round 35: every dream pass, fed answers that are valid JSON of new shapes
(seed 3535): a number written as text with spaces, leading zeros, other
digits or as "3.0"; a key named twice with two values, deep in the answer;
a megabyte of combining marks, a right-to-left override, a NUL in a text;
a number of an item made after the prompt was built.  Each is refused, or
only proposed for the user; nothing is written while planning.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from desktop.core.base.prompts import PromptLibrary
from desktop.core.db import ConversationStore, Database
from desktop.core.dreaming.passes import PassRejected
from desktop.core.memory.service import MemoryService
from desktop.core.skills.library import SkillLibrary
from desktop.core.tasks.service import TaskService
from models.broker import InferenceBroker
from tests.fakes import CallProbe, ScriptedChatModel
from tests.unit.core.dreaming.test_dream_fuzz import ALL_PASSES, Scene, _plan, _scene, _state

SEED = 3535
PER_PASS = 40
NUMBERS_AS_TEXT = (" 1", "1 ", "01", "1.0", "3.0", "\uff11", "\u0661", "0x1", "1e0", "+1")
NUMBERS_LOOSE: tuple[object, ...] = (3.0, 1e0, -0.0, 2**63, -(2**63) - 1)
TEXTS = (
    "a" + "\u0301" * 1_000_000,  # a megabyte of combining marks on one letter
    "\u202eThe user has a dog named Rex.",  # read backwards
    "The user has a dog\u0000 named Rex.",
    "\u0000",
    "\u2066\u2067\u2068\u2069\u200f",
)


def _places(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every (path, leaf) of *value*: numbers, flags and texts."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _places(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _places(item, (*path, index))
    else:
        yield path, value


def _replaced(value: Any, path: tuple[Any, ...], new: object) -> Any:
    copy = json.loads(json.dumps(value))
    place = copy
    for step in path[:-1]:
        place = place[step]
    place[path[-1]] = new
    return copy


def _twice(value: Any, rng: random.Random) -> str:
    """*value* as JSON with one object's key named again with another value."""
    objects = [path for path, _ in _places(value)]
    path = rng.choice(objects)
    key = path[-1] if isinstance(path[-1], str) else None
    if key is None:
        return json.dumps({**value, "__again__": 1}).replace('"__again__": 1', '"x": 1, "x": 2')
    marker = "\u2063MARK\u2063"
    text = json.dumps(_replaced(value, path, marker), ensure_ascii=False)
    leaf = dict(_places(value))[path]
    other = "keep_first" if isinstance(leaf, str) else (not leaf if isinstance(leaf, bool) else 2)
    return text.replace(
        json.dumps(marker, ensure_ascii=False),
        f"{json.dumps(leaf)}, {json.dumps(key)}: {json.dumps(other)}",
    )


def _shapes(scene: Scene, rng: random.Random) -> list[str]:
    typed = scene.typed or scene.valid
    leaves = list(_places(typed))
    numbers = [p for p, v in leaves if isinstance(v, int) and not isinstance(v, bool)]
    texts = [p for p, v in leaves if isinstance(v, str)]
    found: list[str] = []
    for path in numbers:
        found += [json.dumps(_replaced(typed, path, n)) for n in (*NUMBERS_AS_TEXT, *NUMBERS_LOOSE)]
    for path in texts:
        found += [json.dumps(_replaced(typed, path, t)) for t in TEXTS]
        found += [json.dumps(_replaced(typed, path, t), ensure_ascii=False) for t in TEXTS[1:]]
    found += [_twice(typed, rng) for _ in range(8)]
    rng.shuffle(found)
    return found[:PER_PASS] if len(found) > PER_PASS else found


def _applied(scene: Scene, proposals: list[Any]) -> set[str]:
    """What of *proposals* is applied without the user (a skill's draft and a
    change the host made in its own words aside), each with its payload."""
    return {
        f"{p.summary} {json.dumps(p.payload, sort_keys=True, default=str)}"
        for p in proposals
        if not p.needs_approval and p.kind != "skill_draft" and not scene.host_made(p)
    }


@pytest.mark.parametrize("name", ALL_PASSES)
def test_answers_of_new_shapes_change_nothing_unasked(
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
    outcomes = changes_nothing_unasked(
        name, scene, tried, database, skills, model, memories, prompts, broker
    )
    assert "refused" in outcomes  # the shapes reached the checks (round 35: 146 of 197)


def changes_nothing_unasked(
    name: str,
    scene: Scene,
    tried: list[str],
    database: Database,
    skills: SkillLibrary,
    model: ScriptedChatModel,
    memories: MemoryService,
    prompts: PromptLibrary,
    broker: InferenceBroker,
) -> list[str]:
    """Plan *scene*'s pass (*name*) on each answer *tried*: none may apply
    more than the answer as meant, nor write anything while planning; what
    became of each ("refused", "waits" for the user)."""
    before = _state(database, skills)
    # What the answer as meant applies: an item of it a shape left whole may
    # still be taken (a task's other action), nothing else.
    typed = json.dumps(scene.typed or scene.valid)
    meant = _applied(scene, _plan(scene, typed, model, memories, prompts, broker))
    outcomes: list[str] = []
    for answer in tried:
        try:
            proposals = _plan(scene, answer, model, memories, prompts, broker)
        except PassRejected:
            outcomes.append("refused")
            continue
        applied = _applied(scene, proposals) - meant
        outcomes.append("applied" if applied else "waits")
        assert not applied, f"{name} took {answer[:200]!r} as {sorted(applied)[0][:300]!r}"
        assert _state(database, skills) == before
    return outcomes


class MadeDuringTheCall(CallProbe):
    """Makes an item (a memory, a task) while the model reads the prompt."""

    def __init__(self, make: Callable[[], object]) -> None:
        super().__init__()
        self._make = make

    @contextmanager
    def call(self) -> Iterator[None]:
        self._make()
        with super().call():
            yield


@pytest.mark.parametrize("name", ["dedup", "tasks"])
def test_a_number_of_an_item_made_after_the_prompt_was_built_is_refused(
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
    if name == "dedup":
        made = MadeDuringTheCall(  # stored as the user's /remember stores it, minus the vector
            lambda: memories.store.add(
                "The user has a dog named Rex!",
                embedding=None,
                source_kind="user_explicit",
                actor="user",
            )
        )
        answer = {"toSave": [{**scene.valid["toSave"][0], "sourceIds": [1, 3]}], "toDelete": [1, 3]}
    else:
        conversation = ConversationStore(database).list()[0]
        made = MadeDuringTheCall(lambda: tasks.add("Feed the cat", conversation_id=conversation.id))
        answer = {"actions": [{"task": 3, "action": "update", "priority": 2}]}
    model.probe = made
    before = _state(database, skills)
    with pytest.raises(PassRejected):
        _plan(scene, json.dumps(answer), model, memories, prompts, broker)
    assert _state(database, skills) != before  # the item was made meanwhile, and only it
