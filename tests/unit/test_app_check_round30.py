"""Round 30 of issue 15 against ``reverie --check`` with the chat on a server.

A server that takes the connection and never answers held the check for
the read timeout, five minutes, with nothing on screen after ``reply:``.
The check now gives a server a short, stated limit (``CHECK_SERVER_WAIT_S``)
and says that the server did not answer in that many seconds.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest

import desktop.app
from desktop.app import main
from desktop.core.base.paths import AppPaths
from tests.unit.test_app_round11 import _chat_on_server

pytestmark = pytest.mark.allow_hosts(["127.0.0.1"])

GUARD_S = 60.0
"""Far past the check's limit as set here (1 s): only a check that waits
for the server's own silence is still running then."""


@pytest.fixture
def silent_server() -> Iterator[str]:
    """Takes every connection and reads what is sent; never answers."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.05)  # closing it does not end an accept() waiting
    held: list[socket.socket] = []
    stopping = threading.Event()

    def accept() -> None:
        while not stopping.is_set():
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            held.append(connection)

    thread = threading.Thread(target=accept, name="silent-server")
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    stopping.set()
    thread.join()
    listener.close()
    for connection in held:
        connection.close()


def test_check_gives_a_silent_server_a_stated_limit(
    user_dirs: AppPaths,
    silent_server: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _chat_on_server(user_dirs, silent_server, "llama3")
    monkeypatch.setattr(desktop.app, "CHECK_SERVER_WAIT_S", 1.0, raising=False)
    exits: list[int] = []
    check = threading.Thread(
        target=lambda: exits.append(main(["--check", "--prompt", "Say hi."])), daemon=True
    )

    check.start()
    check.join(GUARD_S)

    assert not check.is_alive(), "the check still waits on the silent server"
    assert exits == [1]
    problems = [line for line in capsys.readouterr().err.splitlines() if "problem:" in line]
    assert any(
        "could not reply" in line and f"{silent_server} did not answer within 1 s" in line
        for line in problems
    ), problems
