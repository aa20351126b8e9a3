"""Round 35 of issue 15: an embedding server that takes a request and never answers.

A search's query waited for its vectors as long as the server's read
timeout (five minutes in the app), so every chat turn waited that long
before its reply while the server stayed silent.  A query waits
``QUERY_WAIT_S`` now, then is stopped (its request cut) and the search goes
on by words; embedding memories in the background still waits the timeout.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest

from desktop.core.memory import embedding
from desktop.core.memory.embedding import Embeddings
from models.broker import Backend, InferenceBroker, Role
from models.server_embed import ServerEmbedder
from tests.unit.models.test_server_chat_round12 import ScriptedServer, _models

pytestmark = pytest.mark.allow_hosts(["127.0.0.1"])

PATIENT_S = 3600.0
"""The server's read timeout here: far longer than the test may take."""


def _never(connection: socket.socket, closing: threading.Event) -> None:
    """Takes the request and says nothing until the test's server closes."""
    closing.wait()
    raise OSError("closing")


@pytest.fixture
def silent() -> Iterator[ScriptedServer]:
    with ScriptedServer({"/models": _models, "/embeddings": _never}) as server:
        yield server


@pytest.mark.timeout(60)  # before: the query waited PATIENT_S
def test_a_query_to_a_silent_server_is_given_up_and_searched_by_words(
    silent: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(embedding, "QUERY_WAIT_S", 1.0)
    broker = InferenceBroker()
    broker.start()
    try:
        server = Backend(
            "srv",
            lambda: ServerEmbedder(silent.url, "m", read_timeout=PATIENT_S),
            label="srv",
            remote=True,
        )
        broker.configure(Role.EMBEDDINGS, [server]).result(60)

        assert Embeddings(broker).queries(["Where is my bicycle?"]) is None  # by words
        assert Embeddings(broker).queries(["And my boat?"]) is None  # the lane was freed
    finally:
        broker.stop()
    assert silent.asked.count("/v1/embeddings") == 2  # each query asked, then cut
