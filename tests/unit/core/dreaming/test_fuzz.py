"""Property: whatever a model answers, a dream changes nothing it did not show it.

Random answers (valid, off the schema, naming numbers never shown, absurd
in size, not JSON at all) are fed to the duplicate pass, and one random
verdict to every question of the contradiction pass, over a store holding
a duplicate cluster, a contradicting pair and bystanders.  Whatever the
passes showed the model is read off its requests: no memory it was not
shown ever changes, and a memory the dream made names only shown memories
as its sources.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import DreamSettings
from desktop.core.db import Database, MemoryStore, open_database
from desktop.core.dreaming.control import DreamControl
from desktop.core.memory.embedding import Embeddings
from desktop.core.memory.gate import WriteGate
from desktop.core.memory.service import MemoryService
from models.broker import InferenceBroker
from tests.dreams import add_memory, make_dreamer
from tests.fakes import HashingEmbedder, ScriptedChatModel

SHOWN = ["The user has a dog named Rex", "The user has a dog called Rex"]
PAIR = ["The user lives in Rome", "The user lives in Oslo"]
BYSTANDERS = [
    "The user plays the cello on Sundays.",
    "The user's sister Ana works in Porto.",
    "The user is allergic to peanuts and shellfish.",
    "The user's favourite film is Stalker by Tarkovsky.",
]

_numbers = st.integers(min_value=-3, max_value=9)
_text = st.text(min_size=0, max_size=60)
_saved = st.fixed_dictionaries(
    {
        "content": _text,
        "category": st.sampled_from(["people", "other", "nonsense"]),
        "sourceIds": st.lists(_numbers, max_size=5),
    }
)
_dedup = st.one_of(
    st.builds(
        lambda save, delete: json.dumps({"toSave": save, "toDelete": delete}),
        st.lists(_saved, max_size=4),
        st.lists(_numbers, max_size=5),
    ),
    _text,
)
_verdict = st.one_of(
    st.builds(
        lambda verdict, merged: json.dumps({"verdict": verdict, "merged": merged}),
        st.sampled_from(["keep_both", "keep_first", "keep_second", "merge", "burn"]),
        st.one_of(st.none(), _text, st.sampled_from(PAIR + BYSTANDERS)),
    ),
    _text,
)


def _rows(database: Database) -> dict[int, tuple[Any, ...]]:
    return {row["id"]: tuple(row) for row in database.fetch_all("SELECT * FROM memories")}


def _shown(model: ScriptedChatModel, memories: dict[str, int]) -> set[int]:
    """The memories whose text some request put before the model."""
    asked = "\n".join(m.content for messages, _ in model.requests for m in messages)
    return {memory_id for text, memory_id in memories.items() if text in asked}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dedup=_dedup, verdict=_verdict)
def test_no_row_outside_what_a_pass_was_shown_ever_changes(dedup: str, verdict: str) -> None:
    model = ScriptedChatModel(default=verdict)  # the dedup answer, then this verdict for all
    model.queue(dedup)
    broker = InferenceBroker()
    broker.start()
    with tempfile.TemporaryDirectory() as folder:
        database = open_database(Path(folder) / "reverie.sqlite3")
        try:
            broker.load_chat_model(lambda: model).result(timeout=5)
            broker.load_embedder(HashingEmbedder).result(timeout=5)
            prompts = PromptLibrary(Path(folder) / "prompts")
            memories = MemoryService(
                MemoryStore(database), Embeddings(broker), WriteGate.for_prompts(prompts)
            )
            ids = {text: add_memory(memories, text).id for text in SHOWN + PAIR + BYSTANDERS}
            before = _rows(database)
            dreamer = make_dreamer(
                database, memories, broker, prompts, Path(folder), DreamSettings(quiet_seconds=0)
            )

            report = dreamer.run("manual", DreamControl())

            assert report.run.status == "completed"
            after = _rows(database)
            shown = _shown(model, ids)
            assert shown >= {ids[text] for text in PAIR}  # the pair is always asked about
            for memory_id in set(ids.values()) - shown:
                assert after[memory_id] == before[memory_id]
            for memory_id in set(after) - set(before):  # made by the dream
                history = memories.store.history(memory_id)
                assert history[0].actor.startswith("dream:")
                pointing = database.fetch_all(
                    "SELECT id FROM memories WHERE superseded_by = ?", (memory_id,)
                )
                assert {row[0] for row in pointing} <= shown
        finally:
            database.close()
            broker.stop()
