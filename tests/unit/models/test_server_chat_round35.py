"""Round 35 of issue 15 against a streamed reply cut inside an event.

A server killed (or a proxy cutting the connection) in the middle of an
event, inside a multi-byte character or anywhere else in its JSON, was told
as a server that "sent a reply event that is not JSON": the user checked
the server's answers when it had stopped.  An event the stream ended
inside was never sent whole (the SSE standard drops it); it is told now as
the server stopping in the middle of a reply, as a cut between two events is,
and what came before it is kept.  (An event whose data came whole and only
its blank line is missing is still read: some servers end so.)
"""

from __future__ import annotations

import socket
import threading

import pytest

from models.server_http import ServerUnavailable
from tests.unit.models.test_server_chat_round12 import _event
from tests.unit.models.test_server_chat_round30 import HEAD, _stream

pytestmark = pytest.mark.allow_hosts(["127.0.0.1"])

SAID = "The capital of France is"
NEXT = (  # as servers send it: the characters themselves, not JSON's escapes of them
    'data: {"choices": [{"delta": {"content": " Paris \u2603 \U0001f600."}, '
    '"finish_reason": null}]}\n\n'
).encode()
CUTS = {
    "inside a snowman": NEXT.index("\u2603".encode()) + 1,
    "inside an emoji": NEXT.index("\U0001f600".encode()) + 2,
    "inside its JSON": NEXT.index(b"delta") + 2,
    "before its closing brace": NEXT.index(b"\n") - 1,
}


@pytest.mark.parametrize("cut", list(CUTS.values()), ids=list(CUTS))
def test_a_stream_cut_inside_an_event_is_told_as_cut_and_what_came_is_kept(cut: int) -> None:
    def answer(connection: socket.socket, closing: threading.Event) -> None:
        connection.sendall(HEAD + _event(SAID) + NEXT[:cut])

    chunks, error = _stream(answer)

    assert "".join(chunk.text for chunk in chunks) == SAID
    assert isinstance(error, ServerUnavailable), error
    assert "stopped answering in the middle of a reply" in str(error)
