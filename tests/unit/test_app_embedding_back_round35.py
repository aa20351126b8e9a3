"""Round 35 of issue 15: an embedding server down at the start that comes back.

The banner said memory search could not answer, and went when it answered
again, without a word in the chat; the memories owed vectors (of the model
the server serves now, or stored while it was down) waited for the next
memory upkeep, half an hour away, and were embedded then without a word.
Now the chat says the role answers again, and the upkeep runs at once,
saying how many memories are embedded again (here: the first to ask the
server again is a search, not the upkeep).
"""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from desktop.app import build_core, load_models
from desktop.core.base.paths import AppPaths
from desktop.ui.shell.application import ReverieApplication
from tests.embedding_server import EmbeddingServer
from tests.unit.test_app import WAIT_MS, app_paths
from tests.unit.test_app_check_embeddings_round31 import _embeddings_on_server
from tests.unit.test_app_round11 import _free_port
from tests.unit.test_app_round33 import a_memory_embedded_before_the_quit

__all__ = ["app_paths"]  # the fixture, used by name

pytestmark = pytest.mark.allow_hosts(["127.0.0.1"])


@pytest.mark.model
def test_an_embedding_server_back_after_the_start_is_said_and_its_vectors_made(
    qtbot: QtBot, app_paths: AppPaths
) -> None:
    a_memory_embedded_before_the_quit(app_paths)
    port = _free_port()
    _embeddings_on_server(app_paths, f"http://127.0.0.1:{port}/v1")  # down at the start
    core = build_core(app_paths)
    started = core.database
    assert started is not None
    app = ReverieApplication(core, load_models(core))
    qtbot.addWidget(app.window)
    banner = app.window.roles_banner
    try:
        qtbot.waitUntil(lambda: banner.isVisibleTo(app.window), timeout=WAIT_MS)
        assert "Memory search" in banner.text()
        memories = core.memories
        assert memories is not None
        with EmbeddingServer(dimension=48, port=port):  # back, serving another model
            memories.about("bicycle")  # a search asks it (the memory browser's)
            qtbot.waitUntil(lambda: not banner.isVisibleTo(app.window), timeout=WAIT_MS)
            said = app.window.transcript.plain_text
            qtbot.waitUntil(lambda: "Memory search answers again" in said(), timeout=WAIT_MS)
            owed = "1 memory is being embedded again with the embedding model in use"
            qtbot.waitUntil(lambda: owed in said(), timeout=WAIT_MS)
            lengths = "SELECT length(embedding) / 4 FROM memory_embeddings"
            qtbot.waitUntil(lambda: started.fetch_value(lengths) == 48, timeout=WAIT_MS)
    finally:
        app.shutdown()
        core.close()
