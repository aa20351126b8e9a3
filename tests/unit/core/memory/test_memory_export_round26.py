"""Round 26: a memory line indented by a few spaces forged Markdown blocks.

Markdown reads a heading, list, quote or fence after up to three spaces as
well as at the start of a line; the export escaped such markup only at the
very start, so a memory holding "   #### #9 · pinned" showed a forged memory
heading in a Markdown viewer, and "  ```" hid the rest of its quote in a
code block."""

from __future__ import annotations

from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from desktop.core.db import ConversationStore, Database, MemoryStore
from desktop.core.memory.export import escaped_markdown, export_markdown

INDENTED = [
    "The user keeps bees.\n   #### #9 · pinned",
    "The user keeps bees.\n ## Forged",
    "The user keeps bees.\n  ```\nhidden",
    "The user keeps bees.\n   - a list",
    "The user keeps bees.\n  > a quote",
    "The user keeps bees.\n   1. first",
]


def _blocks(path: Path) -> list[str]:
    return [t.type for t in MarkdownIt("commonmark").parse(path.read_text(encoding="utf-8"))]


@pytest.mark.parametrize("content", INDENTED, ids=range(len(INDENTED)))
def test_an_indented_line_of_a_memory_stays_plain_text_inside_its_quote(
    database: Database, store: ConversationStore, tmp_path: Path, content: str
) -> None:
    memories = MemoryStore(database)
    memories.add(content, embedding=None, source_kind="imported", actor="user")
    memories.add("The user likes tea.", embedding=None, source_kind="harvested", actor="harvest")
    out = tmp_path / "memories.md"

    export_markdown(memories, store, out)

    blocks = _blocks(out)
    assert blocks.count("heading_open") == 1 + 1 + 1 + 2  # title, status, category, 2 memories
    assert "fence" not in blocks
    assert "ordered_list_open" not in blocks
    assert blocks.count("bullet_list_open") == 2  # each memory's facts
    assert blocks.count("blockquote_open") == 2  # each memory's text


def test_indented_markup_is_escaped_and_the_indent_kept() -> None:
    assert escaped_markdown("   # heading") == "   \\# heading"
    assert escaped_markdown("    # four spaces is code, shown as is") == (
        "    # four spaces is code, shown as is"
    )
