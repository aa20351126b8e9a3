"""Round 21: past conversations recalled into a reply, attacked.

A value the user names a secret in one conversation was taken out of that
conversation only: another conversation that held it ("when the mail site
asks, type X", then elsewhere "X is my email password") kept it, and once
Reverie restarted (the secrets of a run are held in memory only) an excerpt
of that message carried it into the prompt of any conversation recalling it.
"""

from __future__ import annotations

from datetime import timedelta, timezone

import pytest

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import ChatSettings, ModelSettings
from desktop.core.chat.service import ChatService
from desktop.core.db import ConversationStore, Database
from desktop.core.db.message_search import Excerpt
from desktop.core.db.purge import Erasable, PurgeStore
from desktop.core.memory.excerpts import ExcerptRetriever
from desktop.core.memory.lines import excerpt_line
from desktop.core.memory.message_index import MessageIndexer
from desktop.core.memory.recall import Recall
from desktop.core.memory.service import MemoryService
from desktop.core.privacy.redaction import Redactor
from desktop.core.transfer.foreign import timestamp
from models.broker import InferenceBroker
from tests.fakes import Recorder, ScriptedChatModel

VALUE = "Zx8!pre55"


def _started(database: Database, broker: InferenceBroker, prompts: PromptLibrary) -> ChatService:
    """The chat as the app builds it at a start: one new redactor for everything."""
    redactor = Redactor()
    memories = MemoryService.over(database, broker, prompts, redactor)
    recall = Recall(
        memories.retriever,
        ExcerptRetriever.over(database, broker, redactor),
        memories.store.source_messages,
        lambda: True,
    )
    conversations = ConversationStore(database)
    return ChatService(
        conversations,
        memories,
        broker,
        prompts,
        ModelSettings(),
        ChatSettings(),
        redactor=redactor,
        recall=recall,
    )


def test_a_value_named_a_secret_elsewhere_is_never_recalled_after_a_restart(
    database: Database,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    model: ScriptedChatModel,
    store: ConversationStore,
) -> None:
    chat = _started(database, broker, prompts)
    told = chat.new_conversation().id
    chat.run(chat.send(told, f"when the mail site asks, type {VALUE} and tick the box"), Recorder())
    deleted = store.create("old notes").id
    store.add_message(deleted, "user", f"mail site: {VALUE}")
    store.delete(deleted)  # restorable, so recallable again once restored
    named = chat.new_conversation().id
    chat.send(named, f"{VALUE} is my email password")
    MessageIndexer.over(database, broker).index_missing()

    chat = _started(database, broker, prompts)  # the secrets of the last run are forgotten
    store.restore(deleted)
    asking = chat.new_conversation().id
    model.requests.clear()
    chat.run(chat.send(asking, "what do I type when the mail site asks?"), Recorder())

    sent = "\n".join(m.content for messages, _ in model.requests for m in messages)
    assert "mail site asks, type [redacted password]" in sent  # recalled, without it
    assert VALUE not in sent
    for conversation in (told, deleted):
        kept = [m.content for m in store.messages(conversation)]
        assert not any(VALUE in text for text in kept)
        named_as = store.get(conversation)
        assert named_as is not None and VALUE not in named_as.title


@pytest.mark.parametrize("erased", [False, True], ids=["restorable", "erased"])
def test_what_a_memory_the_user_deleted_was_learned_from_is_not_recalled(
    erased: bool,
    database: Database,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    model: ScriptedChatModel,
    store: ConversationStore,
) -> None:
    """The user deleted "the fern is called Gerald" from Reverie's memories;
    the message it was learned from was still recalled, and the reply knew.
    Once the memory was erased for good its sources went with it, and the
    message was recalled again."""
    chat = _started(database, broker, prompts)
    told = chat.new_conversation().id
    chat.run(chat.send(told, "My fern is called Gerald, he sits on the windowsill."), Recorder())
    store.rename(told, "Plants")  # a title made of the message would say it too
    [said] = [m for m in store.messages(told) if m.role == "user"]
    memories = MemoryService.over(database, broker, prompts, Redactor())
    learned = memories.remember(
        "The user's fern is called Gerald.",
        source_kind="harvested",
        actor="harvest",
        message_ids=[said.id],
    ).memory
    kept = chat.new_conversation().id
    chat.run(chat.send(kept, "The windowsill gets sun all morning."), Recorder())
    MessageIndexer.over(database, broker).index_missing()
    memories.set_status([learned.id], "deleted")
    if erased:
        PurgeStore(database).erase(Erasable((learned.id,), ()), now=1.0)
        assert memories.store.get(learned.id) is None

    asking = chat.new_conversation().id
    model.requests.clear()
    chat.run(chat.send(asking, "What is my fern on the windowsill called?"), Recorder())

    sent = "\n".join(m.content for messages, _ in model.requests for m in messages)
    assert "The windowsill gets sun all morning." in sent  # excerpts are recalled
    assert "Gerald" not in sent


def test_an_edited_first_message_leaves_no_trace_in_the_recalled_title(
    database: Database,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    model: ScriptedChatModel,
    store: ConversationStore,
) -> None:
    """The conversation's title is made of its first message, and an edit of
    that message kept the old words in it: recalled elsewhere, the excerpt
    of the edited message came under a title saying what the user took back."""
    chat = _started(database, broker, prompts)
    edited = chat.new_conversation().id
    chat.run(chat.send(edited, "the spare key is under the quokka statue"), Recorder())
    chat.run(chat.edit_last(edited, "the spare key is with the neighbour"), Recorder())
    renamed = chat.new_conversation().id
    chat.run(chat.send(renamed, "the car key is in the quokka bowl"), Recorder())
    chat.rename(renamed, "Where the quokka keys are")
    chat.run(chat.edit_last(renamed, "the car key is in the blue bowl"), Recorder())
    MessageIndexer.over(database, broker).index_missing()

    asking = chat.new_conversation().id
    model.requests.clear()
    chat.run(chat.send(asking, "where is the spare key? and the car key?"), Recorder())

    sent = "\n".join(m.content for messages, _ in model.requests for m in messages)
    assert "the spare key is with the neighbour" in sent
    assert "quokka statue" not in sent
    titles = {c.id: c.title for c in (store.get(edited), store.get(renamed)) if c is not None}
    assert titles == {
        edited: "the spare key is with the neighbour",
        renamed: "Where the quokka keys are",  # the user's own title stays
    }


def test_an_imported_message_dated_at_the_calendar_s_end_is_recalled_in_any_zone() -> None:
    """An export may date a message 31 December 9999, 23:30 UTC: the importer
    kept it, and east of UTC that moment is in the year 10000, which no
    datetime holds; recalling the message raised, and every reply that
    recalled it failed (and the chip of a reply given it, its window)."""
    written = ("9999-12-30T23:59:59Z", "9999-12-31T12:00:00Z", "9999-12-31T23:30:00Z")
    kept = [said_at for said_at in map(timestamp, written) if said_at is not None]
    assert kept  # the calendar's last days are imported
    for said_at in kept:
        excerpt = Excerpt(1, 2, "Far future", said_at, "user", "the time capsule opens")
        for hours in (14, -12):
            line = excerpt_line(excerpt, timezone(timedelta(hours=hours))).render()
            assert "the time capsule opens" in line
