"""``MEMORIES.md``: the memories Reverie leans on most, for reading and backup.

Written at the end of every dream, whole or not at all: pinned memories
first, then the most reinforced and most important, grouped by category.
Secrets are taken out again (the patterns may have grown since a memory
was stored).
"""

from __future__ import annotations

import threading
from datetime import datetime
from itertools import groupby
from pathlib import Path

from desktop.core.base.files import make_missing_folders, write_atomically
from desktop.core.db import Memory, MemoryQuery, MemoryStore
from desktop.core.memory.export import escaped_markdown
from desktop.core.privacy.redaction import redact


def working_set(store: MemoryStore, size: int) -> list[Memory]:
    """The *size* active memories used most: pinned, then seen most often, then important."""
    # The pinned are read apart: among the most reinforced alone, a memory
    # pinned but seen once was left out once a few hundred were seen more.
    pinned = store.browse(MemoryQuery(pinned=True, sort="reinforced", limit=size))
    seen_most = store.browse(MemoryQuery(sort="reinforced", limit=max(size * 4, 200)))
    candidates = {m.id: m for m in (*pinned, *seen_most)}.values()
    ranked = sorted(
        candidates,
        key=lambda m: (
            not m.pinned,
            -m.reinforcement_count,
            -m.current_importance,
            -m.last_seen_at,
        ),
    )
    return ranked[:size]


_WRITING = threading.Lock()
"""Held from reading the memories to writing the file: a dream's write must
not land after an erasure's ("Delete now", a value named a secret later)
with the memories it read before that erasure, putting the text back."""


def write_working_set(store: MemoryStore, path: Path, size: int, now: float | None = None) -> int:
    """Write ``MEMORIES.md`` to *path*; how many memories it lists.  ``OSError`` if it cannot."""
    with _WRITING:
        return _write(store, path, size, now)


def _write(store: MemoryStore, path: Path, size: int, now: float | None) -> int:
    chosen = working_set(store, size)
    stamp = datetime.fromtimestamp(now) if now is not None else datetime.now()
    lines = [
        "# What Reverie remembers most",
        "",
        f"Written {stamp:%Y-%m-%d %H:%M} by the last dream: the {len(chosen)} memories it "
        "uses most. Reverie's memory browser shows them all; this file is only a copy.",
    ]
    by_category = sorted(chosen, key=lambda m: (m.category.casefold(), chosen.index(m)))
    for category, memories in groupby(by_category, key=lambda m: m.category):
        lines += ["", f"## {escaped_markdown(category)}", ""]
        for memory in memories:
            text = " ".join(redact(memory.content).text.split())
            pin = " (pinned)" if memory.pinned else ""
            lines.append(
                f"- {escaped_markdown(text)}{pin} — #{memory.id}, seen "
                f"{memory.reinforcement_count} times"
            )
    make_missing_folders(path.parent)
    write_atomically(path, "\n".join(lines) + "\n")
    return len(chosen)
