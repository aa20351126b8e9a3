"""Round 9 of issue 15 against streamed replies from a server: text that
is not whole characters.

JSON escapes text as UTF-16, so a server streaming code units may send an
emoji's two surrogates in two events ("\\ud83d", then "\\ude00"), or one
alone.  The reply streamed to the window, then storing it raised a bare
``UnicodeEncodeError`` ("surrogates not allowed") and the reply was lost.  Now
a pair split across events is joined, and a lone surrogate is U+FFFD, before
the text leaves the model.
"""

from __future__ import annotations

import pytest

from models.interfaces import Chunk, GenerationOptions
from models.server_chat import whole_characters
from tests.unit.models.test_server_chat_round8 import HELLO, Server

DONE = b"data: [DONE]\n\n"


def _event(escaped: str, finish: str | None = None) -> bytes:
    """An event whose content is the JSON string literal *escaped* (as sent)."""
    said = "null" if finish is None else f'"{finish}"'
    return (
        f'data: {{"choices": [{{"delta": {{"content": {escaped}}}, "finish_reason": {said}}}]}}\n\n'
    ).encode()


def _streamed(*events: bytes) -> list[Chunk]:
    model = Server([*events, DONE]).model()
    try:
        return list(model.stream(HELLO, GenerationOptions(max_tokens=16)))
    finally:
        model.close()


def _text(chunks: list[Chunk]) -> str:
    text = "".join(chunk.text for chunk in chunks)
    text.encode("utf-8")  # what storing it does: raises on a surrogate
    return text


def test_a_surrogate_pair_split_across_two_events_is_one_character() -> None:
    chunks = _streamed(_event('"emoji \\ud83d"'), _event('"\\ude00 done"'), _event('""', "stop"))
    assert _text(chunks) == "emoji \U0001f600 done"
    assert chunks[-1].finish_reason == "stop"


def test_a_lone_surrogate_becomes_the_replacement_character() -> None:
    chunks = _streamed(_event('"Hello \\ud800 there"'), _event('"\\udc00!"', "stop"))
    assert _text(chunks) == "Hello \ufffd there\ufffd!"


def test_a_high_surrogate_last_in_the_reply_pairs_with_nothing() -> None:
    chunks = _streamed(_event('"cut \\ud83d"'), _event('""', "stop"))
    assert _text(chunks) == "cut \ufffd"
    assert chunks[-1].finish_reason == "stop"


def test_a_pair_within_one_event_and_plain_text_are_untouched() -> None:
    chunks = _streamed(_event('"\\ud83d\\ude00 \\u00e9t\\u00e9"'), _event('"."', "stop"))
    assert _text(chunks) == "\U0001f600 \u00e9t\u00e9."


@pytest.mark.parametrize(
    ("pieces", "expected"),
    [
        (["a\ud83d", "\ude00b"], "a\U0001f600b"),
        (["\ud83d", "\ud83d", "\ude00"], "\ufffd\U0001f600"),
        (["\ude00", "x"], "\ufffdx"),
        (["x\ud83d"], "x\ufffd"),  # the chunks end without a finish
    ],
)
def test_whole_characters_joins_across_any_chunks(pieces: list[str], expected: str) -> None:
    assert _text(list(whole_characters(Chunk(piece) for piece in pieces))) == expected
