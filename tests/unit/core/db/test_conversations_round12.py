"""Round 12's finding in ``ConversationStore.search``: a search text over
SQLite's 50,000-byte LIKE pattern limit (17,000 CJK characters; 25,001 ``_``
or ``%``, which the escape doubles) raised ``QueryFailed``, "a bug", out of
the conversation list's search box.
"""

from __future__ import annotations

import pytest

from desktop.core.db import ConversationStore
from desktop.core.db.conversations import SEARCH_MAX_CHARS


@pytest.mark.parametrize(
    "query",
    ["中" * 17_000, "_" * 25_001, "%" * 25_001, "a" * 60_000, "晚饭 " * 20_000],
    ids=["cjk", "underscores", "percents", "ascii", "cjk-words"],
)
def test_a_search_text_of_any_length_finds_without_failing(
    store: ConversationStore, query: str
) -> None:
    conversation = store.create("晚饭")
    store.add_message(conversation.id, "user", "今天晚饭吃什么")

    found = store.search(query)

    assert [c.id for c in found] in ([], [conversation.id])


def test_only_the_first_characters_of_a_long_search_text_are_searched_for(
    store: ConversationStore,
) -> None:
    head = ("pumpkin soup " * SEARCH_MAX_CHARS)[:SEARCH_MAX_CHARS]
    conversation = store.create("Soup")
    store.add_message(conversation.id, "user", head)
    store.create("Tax forms")

    found = store.search(head + "z" * 50_000)

    assert [c.id for c in found] == [conversation.id]
