"""Every text the Markdown export writes stays inside its line or quote
(round 12: a conversation renamed to a pasted two-line name, "Trip\\n<!--",
broke out of its "- From “…”" line; its ``<!--`` opened an HTML comment at
the top level and a Markdown viewer showed one memory of three; "\\r\\n####"
forged a memory heading)."""

from __future__ import annotations

from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from desktop.core.db import ConversationStore, Database, MemoryStore
from desktop.core.memory.export import escaped_markdown, export_markdown

FACTS = ("The user keeps bees.", "The user likes tea.", "The user lives in Lyon.")
BREAKING = [
    "Trip\n<!--",
    "Trip\r\n#### #7 · pinned",
    "Trip\r<!--",
    "Trip\n\n# Forged\n\n<details>",
    "Trip\u2028<script>",
]


def _rendered(path: Path) -> list[str]:
    """The kinds of Markdown blocks a viewer shows for *path*."""
    return [t.type for t in MarkdownIt("commonmark").parse(path.read_text(encoding="utf-8"))]


def _headings(path: Path, tag: str) -> int:
    tokens = MarkdownIt("commonmark").parse(path.read_text(encoding="utf-8"))
    return sum(1 for t in tokens if t.type == "heading_open" and t.tag == tag)


@pytest.mark.parametrize("title", BREAKING, ids=range(len(BREAKING)))
def test_a_conversation_title_stays_inside_its_from_line(
    database: Database, store: ConversationStore, tmp_path: Path, title: str
) -> None:
    memories = MemoryStore(database)
    conversation = store.create("x")
    message = store.add_message(conversation.id, "user", "I keep bees and like tea.")
    store.rename(conversation.id, title)
    for fact in FACTS:
        memories.add(
            fact,
            embedding=None,
            source_kind="harvested",
            actor="harvest",
            source_message_ids=[message.id],
        )
    out = tmp_path / "memories.md"

    export_markdown(memories, store, out)

    assert _headings(out, "h4") == len(FACTS)
    assert _headings(out, "h1") == 1
    assert "html_block" not in _rendered(out)
    assert "html_inline" not in _rendered(out)


def test_a_category_and_a_reference_stay_on_their_line_and_a_memory_inside_its_quote(
    database: Database, store: ConversationStore, tmp_path: Path
) -> None:
    memories = MemoryStore(database)
    memories.add(
        "Line one\r<!--\r\n#### #9 · pinned",
        embedding=None,
        source_kind="imported",
        actor="user",
        category="pets\r\n## Forged",
        external_refs=["ref\n<!--"],
    )
    memories.add("The user likes tea.", embedding=None, source_kind="harvested", actor="harvest")
    out = tmp_path / "memories.md"

    export_markdown(memories, store, out)

    assert _headings(out, "h4") == 2
    assert _headings(out, "h2") == 1  # only the status
    assert "html_block" not in _rendered(out)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("a\nb", "a b"),
        ("a\r\nb", "a b"),
        ("a\rb", "a b"),
        ("<!-- hidden", "\\<!-- hidden"),
        ("# heading", "\\# heading"),
        ("I <3 tea", "I <3 tea"),
    ],
)
def test_escaped_markdown_gives_one_line_of_plain_text(text: str, shown: str) -> None:
    assert escaped_markdown(text) == shown
