"""What the user changes while a dream's model is thinking (seconds to
minutes with a real model) is not overwritten by the answer: a change
touching a memory, a skill or a task changed after its pass read it is left
for the next dream, which judges it as it is then, and the dream log says so."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence

import pytest

from desktop.core.db import ConversationStore, Database
from desktop.core.db.memory_rows import MemoryStatus
from desktop.core.dreaming.control import DreamControl
from desktop.core.skills.library import SkillLibrary
from models.interfaces import ChatMessage
from tests.fakes import ScriptedChatModel
from tests.unit.core.dreaming.conftest import Dreaming

REX = "The user has a dog named Rex"
REX_TWIN = "The user has a dog called Rex"
LONG = "How to brew tea the way the user likes it\n" + "Boil the water, then wait. " * 60
SHORTER = "How to brew tea\n1. Boil water. 2. Wait two minutes. 3. Steep for 3 minutes.\n"


class Meanwhile(ScriptedChatModel):
    """A scripted model during whose answer to a prompt holding a marker the
    user does something."""

    def __init__(self) -> None:
        super().__init__(default='{"toSave": [], "toDelete": []}')
        self.meanwhile: dict[str, Callable[[], object]] = {}

    def _next_reply(self, messages: Sequence[ChatMessage]) -> str:
        for marker in [m for m in self.meanwhile if any(m in c.content for c in messages)]:
            self.meanwhile.pop(marker)()
        return super()._next_reply(messages)


@pytest.fixture
def model() -> Meanwhile:
    return Meanwhile()


def _merge_of_both() -> str:
    saved = {"content": "The user has a dog named Rex.", "category": "people", "sourceIds": [1, 2]}
    return json.dumps({"toSave": [saved], "toDelete": [1, 2]})


@pytest.mark.parametrize("status", ["deleted", "archived"])
def test_a_memory_deleted_or_archived_while_the_model_merges_it_stays_so(
    dreaming: Dreaming, model: Meanwhile, status: MemoryStatus
) -> None:
    first = dreaming.add(REX)
    second = dreaming.add(REX_TWIN)
    model.queue(_merge_of_both())

    def user_acts() -> None:
        dreaming.clock.advance(1)
        dreaming.memories.set_status([first.id], status)

    model.meanwhile["duplicates"] = user_acts

    report = dreaming.dreamer.run("manual", DreamControl())

    assert not model.meanwhile, "the merge was asked for"
    assert dreaming.get(first.id).status == status
    assert dreaming.get(second.id).status == "active"
    assert [m.id for m in dreaming.memories.store.listed()] == [second.id]
    assert "left for the next dream: memory #1" in report.outcomes["dedup"]


@pytest.mark.parametrize("where", ["the skill editor", "another editor"])
def test_a_skill_edited_while_the_model_condenses_it_keeps_the_edit(
    make_dreaming: Callable[..., Dreaming], skills: SkillLibrary, model: Meanwhile, where: str
) -> None:
    dreaming = make_dreaming(skills=skills)
    tea = skills.create("brew-tea", LONG)
    edited = LONG + "\nAdd honey (the user's own step).\n"
    model.queue(json.dumps({"text": SHORTER}))

    def user_saves() -> None:
        dreaming.clock.advance(1)
        if where == "the skill editor":
            skills.update_text(tea.id, edited)
        else:  # the file alone: the library's row learns of it only later
            skills.path(tea).write_text(edited)

    model.meanwhile["Condense"] = user_saves

    report = dreaming.dreamer.run("manual", DreamControl())

    assert not model.meanwhile, "the condensing was asked for"
    assert skills.read(tea.id).text == edited
    assert "left for the next dream: skill “brew-tea”" in report.outcomes["skills"]


def test_conversations_erased_while_the_model_drafts_from_them_leave_no_word_of_it(
    make_dreaming: Callable[..., Dreaming],
    skills: SkillLibrary,
    model: Meanwhile,
    database: Database,
) -> None:
    dreaming = make_dreaming(skills=skills)
    store = ConversationStore(database, clock=dreaming.clock)
    said = []
    for title in ("monday", "friday"):
        conversation = store.create(title)
        store.add_message(conversation.id, "user", "Sort my quillfern receipts into the ledger.")
        said.append(conversation.id)
    draft = {"name": "quillfern receipts", "text": "Sort quillfern receipts\n1. Sort. 2. File."}
    model.queue(json.dumps({"skills": [draft]}))
    model.meanwhile["several conversations"] = lambda: dreaming.dreamer.eraser.erase_conversations(
        said
    )

    dreaming.dreamer.run("manual", DreamControl())

    assert not model.meanwhile, "the draft was asked for"
    assert skills.list(statuses=("draft",)) == []
    held = [
        name
        for name in os.listdir(dreaming.folder)
        if (dreaming.folder / name).is_file()
        and b"quillfern" in (dreaming.folder / name).read_bytes().lower()
    ]
    assert held == []
    recorded = database.fetch_all("SELECT summary, payload, before, after FROM dream_changes")
    assert recorded, "the draft's change was recorded"
    assert not any("quillfern" in str(value).lower() for row in recorded for value in row)
