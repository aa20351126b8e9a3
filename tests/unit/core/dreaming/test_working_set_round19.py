"""Round 19: a dream's MEMORIES.md could land after "Delete now" with the
memories it read before the erasure, putting the erased text back in the
file until the next dream."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from desktop.core.db import Memory, MemoryStore
from desktop.core.dreaming import working_set as module
from desktop.core.dreaming.working_set import write_working_set
from desktop.core.memory.service import MemoryService
from tests.dreams import add_memory


def test_a_write_that_read_before_an_erasure_never_lands_after_it(
    memories: MemoryService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_memory(memories, "The user's colleague sits by the window.")
    gone = add_memory(memories, "The user's old friend Quillonby lives in Bergen.")
    path = tmp_path / "MEMORIES.md"
    read, go = threading.Event(), threading.Event()
    chosen_by = module.working_set

    def held_after_reading(store: MemoryStore, size: int) -> list[Memory]:
        chosen = chosen_by(store, size)
        if threading.current_thread().name == "dream":
            read.set()
            go.wait(10)
        return chosen

    monkeypatch.setattr(module, "working_set", held_after_reading)
    dream = threading.Thread(
        target=write_working_set, args=(memories.store, path, 10), name="dream"
    )
    dream.start()
    assert read.wait(10)

    def delete_now() -> None:  # the erasure: the row goes, then the file is written again
        with memories.store.writing("user") as writes:
            writes.remove(gone.id)
        write_working_set(memories.store, path, 10)

    erasure = threading.Thread(target=delete_now)
    erasure.start()
    erasure.join(0.5)  # it waits for the dream's write, or is done before it lands
    go.set()
    dream.join(10)
    erasure.join(10)
    assert "The user's colleague" in path.read_text()
    assert "Quillonby" not in path.read_text()
