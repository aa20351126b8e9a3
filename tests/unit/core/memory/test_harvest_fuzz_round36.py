"""Round 36: a harvest answer of new shapes (seed 3636): followed by a
second JSON object or by itself again; a fact in another language or of
100 KB; one message number named twice; a fact sourced to a number no
message of this conversation has.  The harvest keeps nothing of an answer
that is not the schema, and a fact it keeps is clean text of a bounded size.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.text import readable
from desktop.core.memory.harvest import HarvestFailed
from models.broker import InferenceBroker
from tests.fakes import ScriptedChatModel
from tests.harvesters import harvesting, talk

SEED = 3636
FACT = {"fact": "The user's sister lives in Porto.", "category": "people", "messages": [3]}


def _answers() -> list[str]:
    whole = json.dumps({"facts": [FACT]})
    found = [
        whole + json.dumps({"facts": []}),
        f"{whole}\n{whole}",
        json.dumps({"facts": [{**FACT, "messages": [3, 3]}]}),
        json.dumps({"facts": [FACT, FACT]}),
        json.dumps({"facts": [{**FACT, "messages": [7]}]}),  # another conversation's, or none
        json.dumps({"facts": [{**FACT, "fact": "La sœur de l'utilisateur vit à Porto."}]}),
        json.dumps({"facts": [{**FACT, "fact": "ユーザーの妹はポルトに住んでいます。"}]}),
        json.dumps({"facts": [{**FACT, "fact": "The user's sister lives in Porto. " * 3_000}]}),
    ]
    random.Random(SEED).shuffle(found)
    return found


@pytest.mark.slow  # a kind of attack new to the suite, found nothing (round 36)
@pytest.mark.parametrize("raw", _answers(), ids=lambda raw: raw[:60])
def test_a_harvest_answer_of_a_round_36_shape_is_refused_or_kept_as_clean_text(
    raw: str,
    broker: InferenceBroker,
    model: ScriptedChatModel,
    prompts: PromptLibrary,
    tmp_path: Path,
) -> None:
    model.default = raw
    with harvesting(tmp_path / "shape.sqlite3", broker, prompts) as parts:
        database, store, memories, harvester = parts
        other = store.create("other")
        talk(store, other.id, "My brother lives in Lyon.", "Noted.")
        conversation = store.create("c")
        talk(store, conversation.id, "I like tea a lot.", "My sister lives in Porto.")
        try:
            harvester.harvest(conversation.id)
        except HarvestFailed:
            assert memories.store.listed(limit=10_000) == []
            assert database.fetch_value("SELECT count(*) FROM memory_history") == 0
            return
        kept = memories.store.listed(limit=10_000)
        assert len(kept) <= 1  # one fact, however often it is named
        for memory in kept:
            assert memory.content == readable(memory.content)
            assert len(memory.content) < 10_000
            sources = database.fetch_all(
                "SELECT m.conversation_id FROM memory_sources s JOIN messages m"
                " ON m.id = s.message_id WHERE s.memory_id = ?",
                (memory.id,),
            )
            assert {row[0] for row in sources} <= {conversation.id}
