"""Round 27: one conversation of an export was read whole however long it
was: the reader's read-ahead doubled until the conversation fit, so a
``conversations.json`` of one conversation of 500 MB (a damaged or made-up
file) took gigabytes (its text, twice while it grew, and its objects).  A
conversation longer than ``json_stream.ITEM_CHARS`` is refused now, with
the file named, before it is held; nothing is imported.
"""

from __future__ import annotations

import io
import tracemalloc
from pathlib import Path

import pytest

from desktop.core.transfer import json_stream
from desktop.core.transfer.foreign import ExportRefused
from desktop.core.transfer.reading import open_export
from tests.unit.core.transfer.exports import claude, write_json

MOST = 1 << 20
"""The bound the tests set (the app's is 256 MB: too long to write in a test)."""


def test_a_conversation_past_the_bound_is_refused_before_it_is_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(json_stream, "ITEM_CHARS", MOST, raising=False)
    path = write_json(
        tmp_path / "conversations.json",
        [claude("c1", "Short", "Hello."), claude("c2", "Long", "word " * (2 * MOST))],
    )
    export = open_export(path)
    tracemalloc.start()
    try:
        with pytest.raises(ExportRefused, match=r"conversations\.json holds a conversation longer"):
            list(export.conversations())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert peak < 4 * MOST * 4  # twice the bound read, at four bytes a character at most


def test_the_items_before_a_long_one_are_read() -> None:
    text = '[1, {"a": "' + "x" * 100 + '"}, 2]'

    listed = json_stream.items(io.StringIO(text), chunk=8, most=50)

    assert next(listed) == 1
    with pytest.raises(json_stream.ItemTooLong, match="longer than 50 characters at character 5"):
        next(listed)


def test_a_conversation_within_the_bound_is_read_whatever_the_read_ahead() -> None:
    text = '[{"a": "' + "x" * 100 + '"}, 2]'

    assert list(json_stream.items(io.StringIO(text), chunk=1, most=110)) == [{"a": "x" * 100}, 2]
