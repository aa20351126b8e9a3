"""Round 35: a harvest answer of new shapes (seed 3535): a message number
written as text with spaces, leading zeros, other digits or as "3.0"; a key
named twice with two values; a megabyte of combining marks, a right-to-left
override or a NUL in a fact.  The harvest keeps nothing of an answer that
is not the schema, and a fact it keeps is text a prompt and a file can hold.
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

SEED = 3535
FACT = {"fact": "The user's sister lives in Porto.", "category": "people", "messages": [3]}
NUMBERS: list[object] = [" 3", "3 ", "03", "3.0", "\uff13", "\u0663", "0x3", 3.0, 3e0, [3.0], ["3"]]
TEXTS = [
    "The user's sister lives in Porto." + "\u0301" * 1_000_000,
    "\u202eThe user's sister lives in Porto.",
    "The user's sister lives\u0000 in Porto.",
    "The user's sister lives in \u2067Porto\u2069.",
]


def _answers() -> list[str]:
    found = [
        json.dumps({"facts": [{**FACT, "messages": n if isinstance(n, list) else [n]}]})
        for n in NUMBERS
    ]
    found += [json.dumps({"facts": [{**FACT, "fact": text}]}) for text in TEXTS]
    fact = json.dumps(FACT)[:-1]
    found += [
        '{"facts": [' + fact + ', "fact": "The user\'s sister lives in Oslo."}]}',
        '{"facts": [' + fact + ', "messages": [1]}]}',
        '{"facts": [' + fact + "}], " + '"facts": []}',
        '{"facts": [' + fact + ', "category": "other"}]}',
    ]
    random.Random(SEED).shuffle(found)
    return found


@pytest.mark.parametrize("raw", _answers(), ids=lambda raw: raw[:60])
def test_a_harvest_answer_of_a_new_shape_is_refused_or_kept_as_clean_text(
    raw: str,
    broker: InferenceBroker,
    model: ScriptedChatModel,
    prompts: PromptLibrary,
    tmp_path: Path,
) -> None:
    model.default = raw
    with harvesting(tmp_path / "shape.sqlite3", broker, prompts) as parts:
        database, store, memories, harvester = parts
        conversation = store.create("c")
        talk(store, conversation.id, "I like tea a lot.", "My sister lives in Porto.")
        try:
            harvester.harvest(conversation.id)
        except HarvestFailed:
            assert memories.store.listed(limit=10_000) == []
            assert database.fetch_value("SELECT count(*) FROM memory_history") == 0
            return
        kept = [m.content for m in memories.store.listed(limit=10_000)]
        for text in kept:
            assert text == readable(text), repr(text[:100])
            assert len(text) < 10_000
