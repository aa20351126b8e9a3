"""Round 31 of issue 15 against ``reverie --check`` with memory search on a server.

A server backend loads lazily, and the check asked only the chat model
for a reply: an embedding server that was down, or answering with another
model's vectors, passed the check (``embeddings model: ... on a server``,
exit 0), and memory search by meaning was gone once the app ran.  The check
now embeds one text too, and says how many memories and past messages wait
for vectors of the model in use (another model's, or another size's).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from desktop.app import main
from desktop.core.base.paths import AppPaths
from desktop.core.db import open_database
from desktop.core.db.memories import MemoryStore
from tests.embedding_server import MODEL, EmbeddingServer
from tests.unit.test_app_round11 import _free_port

pytestmark = pytest.mark.allow_hosts(["127.0.0.1"])


def _embeddings_on_server(paths: AppPaths, url: str) -> None:
    """Settings whose embeddings are on the server at *url* (the chat: the embedded SmolLM2)."""
    backend = {"kind": "server", "url": url, "model": MODEL}
    paths.settings_file.parent.mkdir(parents=True, exist_ok=True)
    paths.settings_file.write_text(
        json.dumps({"models": {"embeddings": backend}}), encoding="utf-8"
    )


def test_check_with_memory_search_on_a_server_that_is_down_names_the_problem(
    user_dirs: AppPaths, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"http://127.0.0.1:{_free_port()}/v1"
    _embeddings_on_server(user_dirs, url)

    exit_code = main(["--check", "--prompt", "Say hi."])

    err = capsys.readouterr().err
    assert exit_code == 1  # was 0
    problems = [line for line in err.splitlines() if line.startswith("problem:")]
    assert any("Memory search" in line and url in line for line in problems), err


def test_check_with_memory_search_on_a_server_that_answers_says_its_size(
    user_dirs: AppPaths, capsys: pytest.CaptureFixture[str]
) -> None:
    user_dirs.database_file.parent.mkdir(parents=True, exist_ok=True)
    database = open_database(user_dirs.database_file)
    try:  # a memory another model embedded, under the name this server serves
        MemoryStore(database).add(
            "My bicycle is kept in the garden shed",
            embedding=np.ones(384, np.float32),
            source_kind="user_explicit",
            actor="user",
            embedding_model=MODEL,
        )
    finally:
        database.close()
    with EmbeddingServer(dimension=48) as server:
        _embeddings_on_server(user_dirs, server.base_url)

        exit_code = main(["--check", "--prompt", "Say hi."])

    out = capsys.readouterr().out
    assert exit_code == 0
    assert "embeddings: 48 dimensions" in out
    assert "memories: 1 wait for vectors of this model" in out
