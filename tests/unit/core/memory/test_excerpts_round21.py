"""Round 21: ``ExcerptRetriever`` attacked with odd past messages.

A pasted megabyte in a past conversation was redacted whole each time it was
recalled: 20 s at every turn that recalled it, and on the chat window's
thread for every reply shown that was given it (``used_excerpts``).  An
excerpt of a long message is now its two ends, each read for secrets, the
end after what stood just before it.
"""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from desktop.core.db import ConversationStore, Database
from desktop.core.db.message_search import MessageSearch
from desktop.core.memory import excerpts
from desktop.core.memory.embedding import Labelled
from desktop.core.memory.excerpts import CONTEXT_CHARS, SHOWN_CHARS, ExcerptRetriever
from desktop.core.memory.message_index import MessageIndexer
from desktop.core.privacy.redaction import Redacted, Redactor, redact
from tests.fakes import HashingEmbedder

FILLER = "we talked about the kayak trip and the weather on the lake again "


def _redacted_lengths(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The lengths of the texts the excerpts are redacted from from now on,
    with what is read before each: redaction is the work."""
    lengths: list[int] = []

    def counted(text: str, *, after: Iterable[str] = ()) -> Redacted:
        before = list(after)
        lengths.append(len(text) + sum(map(len, before)))
        return redact(text, after=before)

    monkeypatch.setattr(excerpts, "redact", counted)
    return lengths


@pytest.mark.slow  # a megabyte stored and indexed
def test_a_pasted_megabyte_is_recalled_by_its_ends_fast_and_redacted(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = ConversationStore(database)
    conversation = store.create("long paste").id
    opening = "notes from the kayak club. my wifi password is hunter2zq by the way. "
    # The value's label stands just before where the end shown starts.
    closing = "the bank password is Kestrel#22x " + "ok " * ((SHOWN_CHARS - 20) // 3)
    pasted = opening + FILLER * (1_000_000 // len(FILLER)) + closing
    message = store.add_message(conversation, "user", pasted)
    search = MessageSearch(database)
    embedder = HashingEmbedder()
    MessageIndexer(search, lambda texts: Labelled(embedder.embed(texts), None)).index_missing()
    retriever = ExcerptRetriever(search, embedder.embed, redactor=Redactor())

    redacted = _redacted_lengths(monkeypatch)
    found = retriever.retrieve("the kayak club notes", k=3)
    again = retriever.by_id([message.id])[message.id]

    assert redacted and max(redacted) <= SHOWN_CHARS + CONTEXT_CHARS + 1
    assert [r.excerpt.message_id for r in found] == [message.id]
    for excerpt in (found[0].excerpt, again):
        assert excerpt.content.startswith("notes from the kayak club. my wifi password is [")
        assert excerpt.content.rstrip().endswith("ok")
        assert len(excerpt.content) < 3 * SHOWN_CHARS
        assert "hunter2zq" not in excerpt.content
        assert "Kestrel#22x" not in excerpt.content


@pytest.mark.slow  # a hundred excerpts redacted once
def test_excerpts_read_again_each_turn_are_not_redacted_again(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A conversation's excerpts are read again at every turn and for every
    reply shown: 500 of a long conversation took 38 s to redact, each time.
    Read again, they cost nothing, and a value named a secret meanwhile is
    still taken out of them."""
    store = ConversationStore(database)
    conversation = store.create("club").id
    said = [
        store.add_message(conversation, "user", f"{FILLER * 8}the word is pumpkin-cart-{n}").id
        for n in range(100)
    ]
    redactor = Redactor()
    retriever = ExcerptRetriever(MessageSearch(database), None, redactor=redactor)
    first = retriever.by_id(said)
    assert "pumpkin-cart-7" in first[said[7]].content
    redactor.text("pumpkin-cart-7 is my bank password")  # named a secret this run

    redacted = _redacted_lengths(monkeypatch)
    again = retriever.by_id(said)

    assert redacted == []
    assert "pumpkin-cart-7" not in again[said[7]].content
    assert again[said[8]].content == first[said[8]].content
