"""Which memories and excerpts go with which of the user's messages, so a
turn adds only what is new.

A memory (or an excerpt of another conversation) is given to the model once
per conversation: with the message it first became relevant to, where it
stays in every later prompt (the prompt cache keeps it, so it is never read
again).  The ids are kept in that message's metadata (``GIVEN``,
``GIVEN_EXCERPTS``), never the text: a memory edited, forgotten or taken
out since is shown as it is now, or not at all, and so is an excerpt.

One comes back when it is relevant again and the message it went with is
no longer read (summarised into the conversation's summary, or left out to
fit the context): it goes with the message being answered then.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from desktop.core.db import Message

GIVEN = "given_memories"
"""A user message's metadata key: the ids of the memories first given to the
model with it, in the order they are shown."""
GIVEN_EXCERPTS = "given_excerpts"
"""The same for excerpts: the ids of the messages of other conversations."""


def given(message: Message, key: str = GIVEN) -> tuple[int, ...]:
    """The memories (or excerpts, by *key*) *message* went with."""
    ids = (message.metadata or {}).get(key, [])
    return tuple(i for i in ids if isinstance(i, int)) if isinstance(ids, list) else ()


def given_with(
    read: Sequence[Message],
    answering: int,
    relevant: Iterable[int],
    left_out: int = 0,
    key: str = GIVEN,
) -> dict[int, tuple[int, ...]]:
    """The memories (or excerpts, by *key*) each user message among *read*
    goes with, by message id: what each went with before, and for the
    message *answering*, also the *relevant* ones that none of the messages
    read after the first *left_out* goes with."""
    kept = {m.id: given(m, key) for m in read if m.role == "user"}
    shown = {i for m in read[left_out:] for i in kept.get(m.id, ())}
    mine = kept.get(answering, ())
    kept[answering] = mine + tuple(i for i in dict.fromkeys(relevant) if i not in shown)
    return kept
