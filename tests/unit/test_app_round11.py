"""Round 11 of issue 15 against ``reverie --check`` with the chat on a server.

A server backend loads lazily (nothing is asked at load), so a server that
is down passed the load and the check's one reply then ended in a bare
traceback (``ServerUnavailable``); a server not serving the configured model
did the same, its hint quoting the ids it lists with their ESC and BEL
sequences live, which retitled and cleared the terminal.  Now a reply the
chat model cannot give is a ``problem:`` line, exit 1, and what the server
says is shown, never run.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from desktop.app import main
from desktop.core.base.paths import AppPaths

pytestmark = pytest.mark.allow_hosts(["127.0.0.1"])

TERMINAL_TRICKS = "\x1b]0;PWNED\x07\x1b[2J\x1b[31mFAKE: all is well\x1b[0m"


def _chat_on_server(paths: AppPaths, url: str, model: str) -> None:
    """Settings whose chat and embeddings are both on the server at *url*
    (so the check loads no model of its own)."""
    backend = {"kind": "server", "url": url, "model": model}
    paths.settings_file.parent.mkdir(parents=True, exist_ok=True)
    paths.settings_file.write_text(
        json.dumps({"models": {"chat": [backend], "embeddings": backend}}), encoding="utf-8"
    )


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port  # nothing listens there once it is closed


class _Lister(BaseHTTPRequestHandler):
    """Lists a model whose id holds terminal sequences, and one other; 404 elsewhere."""

    def do_GET(self) -> None:
        found = self.path.endswith("/models")
        models = [{"id": TERMINAL_TRICKS, "owned_by": "llamacpp"}, {"id": "other"}]
        body = json.dumps({"data": models}).encode() if found else b"{}"
        self.send_response(200 if found else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_POST = do_GET

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: pytest fails on output it did not expect in the log."""


@pytest.fixture
def listing_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Lister)
    thread = threading.Thread(target=server.serve_forever, name="lister")
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    thread.join()
    server.server_close()


def test_check_with_the_chat_on_a_server_that_is_down_names_the_problem(
    user_dirs: AppPaths, capsys: pytest.CaptureFixture[str]
) -> None:
    _chat_on_server(user_dirs, f"http://127.0.0.1:{_free_port()}/v1", "llama3")

    assert main(["--check", "--prompt", "Say hi."]) == 1  # and no traceback: it returned

    err = capsys.readouterr().err
    problems = [line for line in err.splitlines() if line.startswith("problem: ")]
    assert any("could not reply" in line and "Cannot reach the server" in line for line in problems)


def test_check_shows_the_ids_a_server_lists_without_running_their_controls(
    user_dirs: AppPaths, listing_server: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _chat_on_server(user_dirs, listing_server, "nope")

    assert main(["--check", "--prompt", "Say hi."]) == 1

    said = capsys.readouterr()
    assert "\x1b" not in said.err + said.out and "\x07" not in said.err + said.out
    problem = next(line for line in said.err.splitlines() if "has no model named" in line)
    assert problem.startswith("problem: ") and "\\x1b]0;PWNED\\x07" in problem
