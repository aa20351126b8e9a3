"""Round 32: a dream drafting a skill under a deleted skill's name took that
skill's place.

A draft is a new skill, and a new skill takes a deleted one's name with its
row: the skill the user deleted left the Deleted tab, no longer restorable,
because a dream proposed something under its name (and, since round 32, its
file goes then).  A dream never takes a deleted skill's name: the pass does
not propose it, and a draft whose name was deleted (or taken) after the
dream read the skills waits for the next dream."""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import pytest

from desktop.core.db import ConversationStore, Database, DreamStore
from desktop.core.dreaming.control import DreamControl
from desktop.core.dreaming.proposals import Proposal
from desktop.core.skills.library import SkillLibrary
from tests.fakes import ScriptedChatModel
from tests.skill_worlds import World
from tests.unit.core.dreaming.conftest import Dreaming

DELETED = "Summarise invoices\n1. The way the user had it. 2. Quillbrook columns.\n"
DRAFT = {"name": "invoice summary", "text": "Summarise invoices\n1. Collect. 2. Tabulate."}


@pytest.fixture
def dreaming(make_dreaming: Callable[..., Dreaming], skills: SkillLibrary) -> Dreaming:
    return make_dreaming(skills=skills)


def test_a_dream_proposes_no_draft_under_a_deleted_skills_name(
    dreaming: Dreaming, skills: SkillLibrary, model: ScriptedChatModel, database: Database
) -> None:
    deleted = skills.create("invoice summary", DELETED)
    skills.delete(deleted.id)
    store = ConversationStore(database, clock=dreaming.clock)
    for title in ("monday", "friday"):
        conversation = store.create(title)
        store.add_message(conversation.id, "user", "Summarise my invoices into a spreadsheet.")
    model.queue(json.dumps({"skills": [DRAFT]}))

    dreaming.dreamer.run("manual", DreamControl())

    assert skills.list(statuses=("draft",)) == []
    assert skills.restore(deleted.id).status == "active"
    assert skills.read(deleted.id).text == DELETED


def test_a_draft_whose_name_was_deleted_after_the_dream_read_it_waits(world: World) -> None:
    deleted = world.skills.create("invoice summary", DELETED)
    run = DreamStore(world.database).start("manual")
    read_at = time.time()
    world.skills.delete(deleted.id)  # while the model drafted
    draft = Proposal("skill_draft", "Proposed.", dict(DRAFT))

    applied = world.book.apply_pass(run.id, "skills", [draft], None, read_at)

    assert (applied.applied, len(applied.left)) == (0, 1)
    assert world.skills.read(deleted.id).text == DELETED
    assert world.skills.restore(deleted.id).status == "active"
