"""The items of a JSON list read one at a time from a text stream.

An export's ``conversations.json`` is one list that may hold a gigabyte;
``json.load`` would hold all of it as Python objects at once (several
times the file's size).  Here each item is decoded when it is reached and
handed on, so what is held at a time is one conversation plus the text
read ahead of it.  The limit: one item (one conversation) is still read
whole, and the read-ahead grows to hold it, up to ``ITEM_CHARS``: an item
longer than that is refused (``ItemTooLong``), not read into memory.

A file that is not one JSON list, is cut short or has anything after the
list raises ``MalformedJson`` when that point is reached: a caller that
must not act on half a file reads it to the end first.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TextIO

CHUNK_CHARS = 1 << 20
"""How much is read at a time."""
ITEM_CHARS = 256 << 20
"""The longest item read (its JSON text): a conversation of a quarter of a
billion characters, past any chat's (ChatGPT's longest, with every branch
and its metadata, are megabytes); held as text and as Python objects it
takes a gigabyte or more."""
_WHITESPACE = " \t\n\r"


class MalformedJson(ValueError):
    """The text is not one JSON list, or breaks off; ``str()`` says where."""


class NotAList(MalformedJson):
    """The text is not a JSON list at all (another kind of file)."""


class ItemTooLong(MalformedJson):
    """An item is longer than the most read (``ITEM_CHARS``); ``most`` says how long."""

    def __init__(self, message: str, most: int) -> None:
        super().__init__(message)
        self.most = most


class _Reader:
    def __init__(self, stream: TextIO, chunk: int) -> None:
        self._stream = stream
        self._chunk = chunk
        self.text = ""
        self.at = 0
        self.ended = False
        self.consumed = 0  # characters dropped before ``text``, to say where a fault is

    def more(self, at_least: int = 0) -> bool:
        """Read on (at least *at_least* characters, if there are); whether any came."""
        if self.ended:
            return False
        piece = self._stream.read(max(self._chunk, at_least))
        if not piece:
            self.ended = True
            return False
        self.consumed += self.at
        self.text = self.text[self.at :] + piece
        self.at = 0
        return True

    def next_char(self) -> str:
        """The next character that is not white space ("" at the end), not consumed."""
        while True:
            while self.at < len(self.text) and self.text[self.at] in _WHITESPACE:
                self.at += 1
            if self.at < len(self.text) or not self.more():
                return self.text[self.at : self.at + 1]

    def fault(self, what: str, kind: type[MalformedJson] = MalformedJson) -> MalformedJson:
        return kind(f"{what} at character {self.consumed + self.at + 1}")


def items(stream: TextIO, chunk: int = CHUNK_CHARS, most: int | None = None) -> Iterator[object]:
    """Each item of the JSON list *stream* holds, in order; ``ItemTooLong``
    at an item longer than *most* characters (``ITEM_CHARS``)."""
    decoder = json.JSONDecoder(parse_int=_whole_number)
    reader = _Reader(stream, chunk)
    if not reader.next_char():  # no character to say a place by
        raise NotAList("it is empty")
    if reader.next_char() != "[":
        raise reader.fault("not a JSON list", NotAList)
    reader.at += 1
    first = True
    while True:
        char = reader.next_char()
        if char == "]":
            reader.at += 1
            if reader.next_char():
                raise reader.fault("more text after the list")
            return
        if not char:
            raise reader.fault("the list breaks off")
        if not first:
            if char != ",":
                raise reader.fault("a comma is missing")
            reader.at += 1
            reader.next_char()
        yield _decoded(decoder, reader, ITEM_CHARS if most is None else most)
        first = False


def _decoded(decoder: json.JSONDecoder, reader: _Reader, most: int) -> object:
    """The item at the reader's place, reading on until it is whole (up to
    *most* characters)."""
    while True:
        try:
            item, end = decoder.raw_decode(reader.text, reader.at)
        except json.JSONDecodeError as error:
            # Cut by the read-ahead, or broken: only the end of the file says which.
            if _read_on(reader, most):
                continue
            raise reader.fault(f"{error.msg}: the list breaks off or is damaged") from None
        # A number or word at the end of what was read may go on in the next piece.
        if end == len(reader.text) and _read_on(reader, most):
            continue
        reader.at = end
        return item


def _read_on(reader: _Reader, most: int) -> bool:
    """Read on for an item not whole in what was read (doubling it: a huge
    item is not read again per chunk); ``ItemTooLong`` once that is past
    *most* characters already."""
    if len(reader.text) - reader.at > most:
        raise ItemTooLong(
            f"an item is longer than {most:,} characters at character "
            f"{reader.consumed + reader.at + 1}",
            most,
        )
    return reader.more(len(reader.text))


def _whole_number(digits: str) -> int | float:
    """*digits* as ``int``, or as a float (infinite) past the digits Python
    reads (``sys.get_int_max_str_digits``): its ``ValueError`` would cost
    the whole file for one field no export writes so, and no caller takes
    such a number for anything."""
    try:
        return int(digits)
    except ValueError:
        return float(digits)
