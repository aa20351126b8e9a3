"""A preference's threshold is counted on the host, from the messages themselves.

The model labels how firmly a preference was said and cites messages; the
label alone is never enough.  Only cited messages that say something of
the preference count, each distinct text once, commands never; and "a
strong correction" is taken as one message only when that message reads as
a correction.
"""

from __future__ import annotations

import json

from desktop.core.db import ConversationStore, Database, MemoryQuery
from desktop.core.dreaming.control import DreamControl
from desktop.core.dreaming.evidence import corrects, supports
from tests.fakes import ScriptedChatModel
from tests.unit.core.dreaming.conftest import Dreaming

SHORT = "The user prefers short answers."


def _said(database: Database, dreaming: Dreaming, *texts: str) -> list[int]:
    store = ConversationStore(database, clock=dreaming.clock)
    conversation = store.create("kept")
    return [store.add_message(conversation.id, "user", text).id for text in texts]


def _answer(strength: str, messages: list[int], preference: str = SHORT) -> str:
    found = {"preference": preference, "strength": strength, "sensitive": False}
    return json.dumps({"preferences": [{**found, "messages": messages}]})


def _inferred(dreaming: Dreaming) -> list[str]:
    return [m.content for m in dreaming.memories.browse(MemoryQuery(source_kinds=("inferred",)))]


def test_one_message_labelled_a_strong_correction_that_is_none_is_not_enough(
    dreaming: Dreaming, model: ScriptedChatModel, database: Database
) -> None:
    _said(database, dreaming, "I like short answers in the morning.")
    model.queue(_answer("strong_correction", [1]))

    dreaming.dreamer.run("manual", DreamControl())

    assert _inferred(dreaming) == []


def test_a_cited_message_that_does_not_say_the_preference_does_not_count(
    dreaming: Dreaming, model: ScriptedChatModel, database: Database
) -> None:
    _said(database, dreaming, "No, stop, what is the weather in Oslo?", "Shorter answers, please.")
    model.queue(_answer("strong_correction", [1]), _answer("mild_pushback", [1, 2]))

    dreaming.dreamer.run("manual", DreamControl())
    dreaming.clock.advance(60)
    _said(database, dreaming, "Thanks!")
    dreaming.dreamer.run("manual", DreamControl())

    assert _inferred(dreaming) == []


def test_the_same_words_in_two_messages_count_once(
    dreaming: Dreaming, model: ScriptedChatModel, database: Database
) -> None:
    _said(database, dreaming, "Short answers please.", "short  answers PLEASE.")
    model.queue(_answer("mild_pushback", [1, 2]))

    dreaming.dreamer.run("manual", DreamControl())

    assert _inferred(dreaming) == []


def test_a_command_the_user_typed_is_not_a_message_saying_it(
    dreaming: Dreaming, model: ScriptedChatModel, database: Database
) -> None:
    store = ConversationStore(database, clock=dreaming.clock)
    conversation = store.create("kept")
    store.add_message(conversation.id, "user", "Shorter answers, please.")
    store.add_message(
        conversation.id, "user", "/remember short answers", metadata={"kind": "command"}
    )
    model.queue(_answer("mild_pushback", [1, 2]))

    dreaming.dreamer.run("manual", DreamControl())

    assert _inferred(dreaming) == []


def test_a_preference_said_enough_keeps_only_the_messages_that_say_it(
    dreaming: Dreaming, model: ScriptedChatModel, database: Database
) -> None:
    ids = _said(
        database,
        dreaming,
        "Shorter answers, please.",
        "What's the weather in Oslo?",
        "Keep answers short, thanks.",
    )
    model.queue(_answer("mild_pushback", [1, 2, 3]))

    dreaming.dreamer.run("manual", DreamControl())

    [memory] = dreaming.memories.browse(MemoryQuery(source_kinds=("inferred",)))
    assert memory.content == SHORT
    assert dreaming.memories.store.sources(memory.id).message_ids == (ids[0], ids[2])


def test_a_firm_correction_once_is_enough() -> None:
    said = "No, stop writing long answers!"
    assert corrects(said, SHORT) and supports(SHORT, said)
    assert not corrects("I like short answers in the morning.", SHORT)
    assert not supports(SHORT, "What is the weather in Oslo?")
