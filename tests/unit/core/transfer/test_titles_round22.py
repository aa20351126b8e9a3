"""Round 22: titles of any length.  A page pasted as a conversation's name,
or a ChatGPT export's megabyte title, was kept whole: every prompt recalling
that conversation carried it in each excerpt's header (crowding the excerpts
out of their share), and importing it read the megabyte for secrets (about
30 s a conversation).  A title is now kept to ``TITLE_LIMIT`` characters,
read for secrets as far as that needs."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from desktop.core.db import ConversationStore, Database
from desktop.core.db.conversations import TITLE_LIMIT
from desktop.core.db.message_search import Excerpt
from desktop.core.memory.lines import excerpt_line
from desktop.core.privacy.redaction import Redactor
from desktop.core.transfer.imports import Imports
from desktop.core.transfer.progress import PlainState
from tests.unit.core.transfer.archive_world import folder, open_folder
from tests.unit.core.transfer.exports import chatgpt_line

HUGE = "Trip planning " * 80_000  # 1.1 MB


def test_a_title_is_kept_to_its_limit_however_it_comes(database: Database) -> None:
    store = ConversationStore(database)
    made = store.create(HUGE)
    renamed = store.rename(store.create("short").id, HUGE)
    for conversation in (made, renamed):
        assert len(conversation.title) == TITLE_LIMIT
        assert conversation.title.startswith("Trip planning Trip") and conversation.title.endswith(
            "…"
        )


def test_an_imported_megabyte_title_is_cut_and_a_secret_before_the_cut_is_not_kept(
    tmp_path: Path,
) -> None:
    paths = folder(tmp_path / "data")
    database = open_folder(paths)
    try:
        title = "x" * (TITLE_LIMIT - 60) + " my email password is Zx8!pre55 " + HUGE
        export = tmp_path / "conversations.json"
        export.write_text(json.dumps([chatgpt_line("c1", title, "hello", "hi")]))
        Imports(database, paths, Redactor()).run(export, learn=False, state=PlainState())
        [conversation] = ConversationStore(database).list()
    finally:
        database.close()
    assert len(conversation.title) <= TITLE_LIMIT
    assert "Zx8" not in conversation.title
    assert "[redacted" in conversation.title


def test_a_long_title_kept_before_the_limit_does_not_crowd_its_excerpt_out_of_a_prompt() -> None:
    said = "My climbing coach at the bouldering hall is called Brigitte."
    excerpt = Excerpt(7, 3, HUGE, datetime(2026, 1, 5, tzinfo=UTC).timestamp(), "user", said)

    line = excerpt_line(excerpt, UTC).render()

    assert said in line
    assert len(line) < TITLE_LIMIT + len(said) + 60
