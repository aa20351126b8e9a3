"""Whatever the model answers a harvest (broken or truncated JSON, wrong
types, huge or odd text, message numbers out of range, written loosely or
named twice, thousands of facts, prompt tags), the harvest raises
``HarvestFailed`` and keeps nothing, or keeps only the facts of that
answer, each once, with its sources; never another exception, never half
a harvest."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any, get_args

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import MemorySettings
from desktop.core.base.tokens import TokenCounter
from desktop.core.db import ConversationStore, open_database
from desktop.core.memory.category import MemoryCategory
from desktop.core.memory.harvest import Harvester, HarvestFailed, UnusableAnswer
from desktop.core.memory.service import MemoryService
from models.broker import InferenceBroker
from tests.fakes import ScriptedChatModel
from tests.harvesters import harvesting, talk

ODD = [
    "\\ud83d",  # a lone surrogate, as JSON may escape it
    "\\u0000",
    "\u202eevil\u202c",
    "e\u0301\u0301\u0301",
    "\ufeff",
    "\u200b\u200d",
    "👩‍👩‍👧",
    "ǅ",
    "\r\n\t",
]
TAGS = [
    "</memories>",
    "</ memories>",
    "< /MEMORIES >",
    "<|im_end|>",
    "<|im_start|>system",
    "[INST]",
    "<start_of_turn>",
    "[SYSTEM EVENT]",
    "{known}",
    "{transcript}",
]
_SAFE_ODD = [odd for odd in ODD if "\\" not in odd]

words = st.text(min_size=0, max_size=40)
fact_text = st.one_of(
    words,
    st.builds(
        lambda a, t, b: f"The user {a}{t}{b} likes tea.", words, st.sampled_from(TAGS), words
    ),
    st.builds(lambda t: f"The user likes {t} very much.", st.sampled_from(_SAFE_ODD)),
    st.integers(300, 100_000).map(lambda n: "The user " + "x" * n),
    st.integers(),
    st.none(),
    st.lists(st.integers(), max_size=2),
)
numbers = st.one_of(
    st.lists(st.integers(-3, 6), min_size=0, max_size=10),
    st.lists(st.sampled_from([2**63, -(2**63), 10**30, 1.5, "1", None, True]), max_size=3),
    st.lists(st.sampled_from([1, 2, True, False, 1.0, 2.0, "1", "2", 1e0]), min_size=1, max_size=3),
    st.lists(st.integers(1, 4), min_size=1, max_size=3).map(lambda ns: [*ns, ns[0]]),
    st.integers(1, 4),
)
category = st.one_of(st.sampled_from(get_args(MemoryCategory)), words)
fact = st.fixed_dictionaries(
    {"fact": fact_text, "category": category, "messages": numbers},
    optional={"extra": st.integers()},
)
plausible = st.fixed_dictionaries(
    {
        "fact": st.builds(
            lambda odd, n: f"The user {odd} keeps {n} kites.",
            st.sampled_from(TAGS + _SAFE_ODD + [""]),
            st.integers(0, 10**6),
        ),
        "category": st.sampled_from(get_args(MemoryCategory)),
        "messages": st.lists(st.integers(1, 4), min_size=1, max_size=3),
    }
)
answer = st.fixed_dictionaries({"facts": st.lists(fact | plausible, max_size=20)})
plausible_answer = st.fixed_dictionaries({"facts": st.lists(plausible, max_size=15)})
many = st.builds(lambda f, n: {"facts": [f] * n}, fact, st.sampled_from([16, 1_000, 5_000]))
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)


def _dumped(value: Any, compact: bool) -> str:
    return json.dumps(value, separators=(",", ":") if compact else None)


raw_answers = st.one_of(
    st.builds(_dumped, plausible_answer, st.booleans()),
    st.builds(_dumped, answer, st.booleans()),
    st.builds(_dumped, many, st.just(True)),
    st.builds(
        lambda text, cut: text[:cut],
        st.builds(_dumped, answer, st.just(False)),
        st.integers(0, 400),
    ),
    st.builds(
        lambda odd: (
            '{"facts": [{"fact": "The user likes '
            + odd
            + ' tea.", "category": "other", "messages": [1]}]}'
        ),
        st.sampled_from(ODD),
    ),
    st.builds(_dumped, json_values, st.booleans()),
    st.text(max_size=200),
    st.builds(lambda text: f"```json\n{text}\n```", st.builds(_dumped, answer, st.just(True))),
)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(raw=raw_answers)
def test_any_answer_fails_cleanly_or_keeps_only_its_facts(
    raw: str,
    broker: InferenceBroker,
    model: ScriptedChatModel,
    prompts: PromptLibrary,
    tmp_path: Path,
) -> None:
    model.default = raw  # every harvest of this example gets this answer
    path = tmp_path / f"fuzz-{next(_examples)}.sqlite3"
    with open_database(path) as database:
        store = ConversationStore(database)
        memories = MemoryService.over(database, broker, prompts)
        harvester = Harvester(
            store,
            memories,
            broker,
            prompts,
            TokenCounter(broker),
            context_length=100_000,
            settings=MemorySettings(),
        )
        conversation = store.create("c")
        said = talk(store, conversation.id, "I like tea a lot.", "My sister lives in Porto.")
        try:
            report = harvester.harvest(conversation.id)
        except HarvestFailed:
            event("failed cleanly")
            assert memories.store.listed(status="active") == []
            assert database.fetch_value("SELECT count(*) FROM memory_history") == 0
            assert store.get(conversation.id).harvested_through_message_id is None  # type: ignore[union-attr]
            return
        assert report is not None
        event("kept facts" if report.added else "kept nothing, refused some or none")
        kept = {m.id for m in memories.store.listed(limit=10_000)}
        assert kept == {m.id for m in report.added} and report.reinforced == ()
        ids = {m.id for m in said}
        for memory in report.added:
            assert memory.reinforcement_count == 1
            assert set(memories.store.sources(memory.id).message_ids) <= ids
        assert store.get(conversation.id).harvested_through_message_id == said[-1].id  # type: ignore[union-attr]


_examples = itertools.count()


@pytest.mark.parametrize("odd", ODD)
def test_odd_text_in_a_fact_is_kept_as_text_or_the_answer_refused(
    odd: str,
    broker: InferenceBroker,
    model: ScriptedChatModel,
    prompts: PromptLibrary,
    tmp_path: Path,
) -> None:
    raw = (
        '{"facts": [{"fact": "The user likes '
        + odd
        + ' tea.", "category": "other", "messages": [1]}]}'
    )
    model.default = raw
    with harvesting(tmp_path / "odd.sqlite3", broker, prompts) as parts:
        _, store, memories, harvester = parts
        conversation = store.create("c")
        talk(store, conversation.id, "I like tea a lot.")
        try:
            report = harvester.harvest(conversation.id)
        except HarvestFailed:
            assert memories.store.listed() == []
            return
        assert report is not None
        for memory in memories.store.listed():
            memory.content.encode("utf-8")  # text any file or prompt can hold
            assert "\x00" not in memory.content


LOOSE_NUMBERS = [[True], [False, 1], [1.0], [2.0, 1], ["1"], [1, 1], [1, 1.0], [2, 1, 2]]
"""Message numbers lax parsing would read as numbers shown (``true`` as 1,
``1.0`` as 1), or a number named twice, which is not two messages."""


@pytest.mark.parametrize("messages", LOOSE_NUMBERS, ids=json.dumps)
def test_message_numbers_written_loosely_or_twice_make_the_answer_unusable(
    messages: list[object],
    broker: InferenceBroker,
    model: ScriptedChatModel,
    prompts: PromptLibrary,
    tmp_path: Path,
) -> None:
    fact = {"fact": "The user's sister lives in Porto.", "category": "people"}
    model.default = json.dumps({"facts": [{**fact, "messages": messages}]})
    with harvesting(tmp_path / "loose.sqlite3", broker, prompts) as parts:
        database, store, memories, harvester = parts
        conversation = store.create("c")
        talk(store, conversation.id, "I like tea a lot.", "My sister lives in Porto.")

        with pytest.raises(UnusableAnswer):
            harvester.harvest(conversation.id)

        assert memories.store.listed(limit=10_000) == []
        assert database.fetch_value("SELECT count(*) FROM memory_history") == 0
        assert store.get(conversation.id).harvested_through_message_id is None  # type: ignore[union-attr]
        model.default = json.dumps({"facts": [{**fact, "messages": [3]}]})
        report = harvester.harvest(conversation.id)  # the same answer written as meant is taken
        assert report is not None and [m.content for m in report.added] == [fact["fact"]]
