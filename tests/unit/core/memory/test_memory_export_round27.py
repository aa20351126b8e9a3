"""Round 27: a memory holding a Markdown image made the Markdown export (and
``MEMORIES.md``, written the same way) load an address when a viewer showed
it: ``![x](http://...)`` is fetched as the file is opened (a tracking pixel
that says when, and from where, the user read their memories).  An image's
bracket is escaped now; the text reads as it was written."""

from __future__ import annotations

from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from desktop.core.db import ConversationStore, Database, MemoryStore
from desktop.core.dreaming.working_set import write_working_set
from desktop.core.memory.export import escaped_markdown, export_markdown

IMAGES = {
    "inline": "The user's logo: ![logo](http://tracker.example/p.png?u=1)",
    "by reference": "See ![logo][pixel]\n\n[pixel]: http://tracker.example/q.png",
    "escaped backslash before": "A path C:\\\\![x](http://tracker.example/r.png)",
    "in a link": "[![badge](http://tracker.example/s.svg)](http://example.org)",
}


def _html(path: Path) -> str:
    return str(MarkdownIt("commonmark").render(path.read_text(encoding="utf-8")))


@pytest.mark.parametrize("content", IMAGES.values(), ids=IMAGES.keys())
def test_an_image_in_a_memory_loads_nothing_in_the_export(
    database: Database, store: ConversationStore, tmp_path: Path, content: str
) -> None:
    memories = MemoryStore(database)
    memories.add(content, embedding=None, source_kind="imported", actor="user", category=content)
    exported = tmp_path / "memories.md"

    export_markdown(memories, store, exported)

    html = _html(exported)
    assert "<img" not in html
    assert "tracker.example" in html  # the text itself is kept


@pytest.mark.slow  # the first redaction in a process loads its word lists (~10 s)
def test_an_image_in_a_memory_loads_nothing_in_memories_md(
    database: Database, tmp_path: Path
) -> None:
    memories = MemoryStore(database)
    for content in IMAGES.values():
        memories.add(content, embedding=None, source_kind="imported", actor="user")
    path = tmp_path / "MEMORIES.md"

    write_working_set(memories, path, size=10_000)

    html = _html(path)
    assert "<img" not in html
    assert html.count("tracker.example") == len(IMAGES)


def test_an_escaped_image_reads_as_written() -> None:
    line = escaped_markdown("Look! ![x](http://tracker.example/p.png)")

    assert MarkdownIt("commonmark").renderInline(line) == (
        "Look! ![x](http://tracker.example/p.png)"
    )
