"""Round 22: a reply's chips, shown again when its conversation opens.

Each excerpt a reply was given was read for secrets again, by every rule,
on the chat window's thread when the conversation was opened: 10-30 ms an
excerpt, seconds for a long conversation (240 excerpts took 5.5-7 s here).
A chip is for the user's eyes, and the conversation it opens shows the
message as stored; only what a model is given is read by every rule again
(an older Reverie stored what today's rules would catch)."""

from __future__ import annotations

from desktop.core.base.prompts import PromptLibrary
from desktop.core.chat.service import USED_EXCERPTS
from desktop.core.db import ConversationStore, Database
from desktop.core.db.message_search import MessageSearch
from desktop.core.memory.excerpts import ExcerptRetriever
from desktop.core.privacy.redaction import Redactor
from models.broker import InferenceBroker
from tests.recalling import recalling_chat

STORED = "when the mail site asks, type Zx8!pre55. The wifi password at the cabin is hunter2zq"
"""As an older Reverie stored it: neither value was caught when it was said."""


def test_a_chip_shows_the_message_as_stored_less_secrets_named_since_and_a_model_gets_it_redacted(
    database: Database,
) -> None:
    store = ConversationStore(database)
    said = store.add_message(store.create("Cabin").id, "user", STORED)
    redactor = Redactor()
    redactor.text("Zx8!pre55 is my email password")  # named a secret since, in this run
    retriever = ExcerptRetriever(MessageSearch(database), None, redactor=redactor)

    shown = retriever.by_id([said.id], for_model=False)[said.id]
    given = retriever.by_id([said.id])[said.id]

    assert shown.content == STORED.replace("Zx8!pre55", "[redacted password]")
    assert "Zx8!pre55" not in given.content
    assert "hunter2zq" not in given.content
    assert given.content.startswith("when the mail site asks, type [redacted")


def test_a_reply_s_chip_is_the_message_as_its_conversation_shows_it(
    database: Database, broker: InferenceBroker, prompts: PromptLibrary
) -> None:
    chat = recalling_chat(database, broker, prompts)
    store = ConversationStore(database)
    said = store.add_message(store.create("Cabin").id, "user", STORED)
    reply = store.add_message(
        store.create("Today").id, "assistant", "Sure.", metadata={USED_EXCERPTS: [said.id]}
    )

    [shown] = chat.used_excerpts(reply)

    [stored] = store.messages_by_ids([said.id])
    assert (shown.message_id, shown.content) == (said.id, stored.content) == (said.id, STORED)
