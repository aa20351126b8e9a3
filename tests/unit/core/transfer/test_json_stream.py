"""A JSON list read an item at a time: the same items as ``json.loads``
whatever the read-ahead, and a fault for every way a file breaks."""

from __future__ import annotations

import io
import json

import pytest

from desktop.core.transfer.json_stream import MalformedJson, NotAList, items

_VALUES: list[object] = [
    {"a": 1, "text": "x" * 300, "odd": "\ud800 é 😀 \u200f"},
    [1, [2, [3]]],
    12345,
    -0.5e3,
    'a string with "quotes" and ] brackets',
    None,
    True,
    {},
]


@pytest.mark.parametrize("chunk", [1, 2, 7, 64, 1 << 20])
def test_every_item_is_read_whatever_the_read_ahead(chunk: int) -> None:
    text = json.dumps(_VALUES, indent=2)
    assert list(items(io.StringIO(text), chunk)) == _VALUES
    assert list(items(io.StringIO(" [ ] \n"), chunk)) == []


@pytest.mark.parametrize(
    "text",
    ["[1, 2", '[{"a": 1}', "[1,]", "[1 2]", "[1, 2] x", '[{"a": 1}, {"b": ', "[,1]"],
)
@pytest.mark.parametrize("chunk", [1, 5, 1 << 20])
def test_a_broken_or_cut_list_is_a_fault(text: str, chunk: int) -> None:
    with pytest.raises(MalformedJson):
        list(items(io.StringIO(text), chunk))


@pytest.mark.parametrize("text", ["", "   ", '{"conversations": []}', "%PDF-1.7", "hello"])
def test_what_is_no_list_at_all_says_so(text: str) -> None:
    with pytest.raises(NotAList):
        list(items(io.StringIO(text)))


def test_the_items_before_a_fault_come_first() -> None:
    """A caller sees the fault only when it reaches it: it must read to the
    end before acting (the importer does)."""
    read = items(io.StringIO('[{"a": 1}, {"b": 2}, {"c": '), 4)
    assert next(read) == {"a": 1}
    assert next(read) == {"b": 2}
    with pytest.raises(MalformedJson, match="breaks off"):
        next(read)
