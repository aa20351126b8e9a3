"""The real llama-cpp-python server, run on 127.0.0.1 for tests of the server backends.

``python -m llama_cpp.server`` is started as a subprocess with a config file
that serves the embedded SmolLM2 (alias ``smollm2``) and the converted
all-MiniLM-L6-v2 (alias ``minilm``), on a free port, with a small context and
few threads.  Registered for every test by ``pytest_plugins`` in
``tests/conftest.py``.

pytest runs with ``--disable-socket``: a test that uses these fixtures needs
``@pytest.mark.allow_hosts(["127.0.0.1"])`` (which also lets the fixture find
a free port and see the server answer).  ``enable_socket`` is not needed, and
together with ``allow_hosts`` it would lift the host restriction altogether.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

CHAT_ALIAS = "smollm2"
EMBED_ALIAS = "minilm"
API_KEY = "sk-reverie-test-0f3a9c5e7d1b"
"""What the session's server demands; tests check it never shows up anywhere."""
CHAT_CONTEXT = 2048
EMBED_WINDOW = 512
STARTUP_TIMEOUT_S = 120.0
_POLL_S = 0.1
_STOP_WAIT_S = 10.0


@dataclass
class LlamaServer:
    """A running ``llama_cpp.server`` subprocess and how to reach it."""

    process: subprocess.Popen[bytes]
    port: int
    log_path: Path
    api_key: str | None

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible base URL, as a user would enter it."""
        return f"http://127.0.0.1:{self.port}/v1"

    def log(self) -> str:
        """What the server wrote to stdout and stderr so far."""
        return self.log_path.read_text(errors="replace")

    def kill(self) -> None:
        """End the server at once (SIGKILL), as a crash would."""
        self.process.kill()
        self.process.wait(_STOP_WAIT_S)

    def stop(self) -> None:
        """End the server politely, or kill it if it does not go in time."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(_STOP_WAIT_S)
            except subprocess.TimeoutExpired:
                self.kill()


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def server_config(
    port: int,
    chat_path: Path,
    embed_path: Path | None,
    *,
    threads: int,
    api_key: str | None,
) -> dict[str, Any]:
    """A ``--config_file`` for llama-cpp-python's server (its ``ConfigFileSettings``)."""
    common = {"n_threads": threads, "n_threads_batch": threads, "verbose": False}
    models: list[dict[str, Any]] = [
        {"model": str(chat_path), "model_alias": CHAT_ALIAS, "n_ctx": CHAT_CONTEXT, **common}
    ]
    if embed_path is not None:
        models.append(
            {
                "model": str(embed_path),
                "model_alias": EMBED_ALIAS,
                "embedding": True,
                # A BERT encoder reads a whole text in one micro-batch.
                "n_ctx": EMBED_WINDOW,
                "n_batch": EMBED_WINDOW,
                "n_ubatch": EMBED_WINDOW,
                **common,
            }
        )
    config: dict[str, Any] = {"host": "127.0.0.1", "port": port, "models": models}
    if api_key is not None:
        config["api_key"] = api_key
    return config


def start_llama_server(
    workdir: Path,
    chat_path: Path,
    embed_path: Path | None = None,
    *,
    threads: int = 1,
    api_key: str | None = None,
    startup_timeout: float = STARTUP_TIMEOUT_S,
) -> LlamaServer:
    """Start the server and return once ``/v1/models`` answers.

    Fails the test, showing the server's own output, if the server exits or
    does not answer within *startup_timeout* seconds.
    """
    port = free_port()
    config_path = workdir / f"llama-server-{port}.json"
    config = server_config(port, chat_path, embed_path, threads=threads, api_key=api_key)
    config_path.write_text(json.dumps(config))
    log_path = workdir / f"llama-server-{port}.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--config_file", str(config_path)],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=_clean_environment(workdir),
        )
    server = LlamaServer(process, port, log_path, api_key)
    try:
        _wait_until_ready(server, startup_timeout)
    except BaseException:
        server.stop()
        raise
    return server


def _clean_environment(home: Path) -> dict[str, str]:
    """A bare environment: the server's settings read variables such as
    ``PORT``, ``MODEL``, ``API_KEY`` and ``CONFIG_FILE``, which must not leak in."""
    keep = ("PATH", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")
    env = {name: os.environ[name] for name in keep if name in os.environ}
    env.update(HOME=str(home), PYTHONUNBUFFERED="1", PYTHONDONTWRITEBYTECODE="1")
    return env


def _wait_until_ready(server: LlamaServer, timeout: float) -> None:
    headers = {"Authorization": f"Bearer {server.api_key}"} if server.api_key else {}
    deadline = time.monotonic() + timeout
    with httpx.Client(timeout=2.0, trust_env=False, headers=headers) as client:
        while time.monotonic() < deadline:
            try:
                if client.get(f"{server.base_url}/models").status_code == 200:
                    return
            except httpx.TransportError:
                pass  # not listening yet
            try:
                # Waits for the process to end, at most one poll interval.
                code = server.process.wait(_POLL_S)
            except subprocess.TimeoutExpired:
                continue
            pytest.fail(f"llama_cpp.server exited with {code}:\n{server.log()}")
    pytest.fail(f"llama_cpp.server did not answer within {timeout:.0f} s:\n{server.log()}")


@pytest.fixture(scope="session")
def llama_server(
    tmp_path_factory: pytest.TempPathFactory, smollm2_path: Path, minilm_path: Path
) -> Iterator[LlamaServer]:
    """One server for the session, serving ``smollm2`` and ``minilm``, demanding ``API_KEY``.

    Do not kill it: ``killable_llama_server`` is the one a test may kill.
    """
    server = start_llama_server(
        tmp_path_factory.mktemp("llama-server"), smollm2_path, minilm_path, api_key=API_KEY
    )
    yield server
    server.stop()


@pytest.fixture
def killable_llama_server(tmp_path: Path, smollm2_path: Path) -> Iterator[LlamaServer]:
    """A server of this test's own, serving only ``smollm2`` and no API key;
    the test may kill it (``server.kill()``)."""
    server = start_llama_server(tmp_path, smollm2_path)
    yield server
    server.stop()
