"""Round 12 of issue 15 against ``reverie --check``'s one reply.

The check printed the chat model's reply as it came: a server whose reply
held ESC and BEL sequences retitled and cleared the terminal and printed its
own words in colour, though model ids and error reasons from the same server
were already shown with their controls visible (round 11).  Now the reply is
shown the same way (``shown_text``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from desktop.app import main
from desktop.core.base.paths import AppPaths
from tests.unit.test_app_round11 import TERMINAL_TRICKS, _chat_on_server

pytestmark = pytest.mark.allow_hosts(["127.0.0.1"])


def _event(content: str, finish: str | None = None) -> str:
    choice = {"delta": {"content": content}, "finish_reason": finish}
    return f"data: {json.dumps({'choices': [choice]})}\n\n"


class _Replier(BaseHTTPRequestHandler):
    """Serves one model; its chat reply is line one, then terminal sequences."""

    def _send(self, status: int, kind: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path.endswith("/models"):
            body = json.dumps({"data": [{"id": "llama3", "owned_by": "openai"}]}).encode()
            self._send(200, "application/json", body)
        else:
            self._send(404, "application/json", b"{}")

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if not self.path.endswith("/chat/completions"):
            self._send(404, "application/json", b"{}")
            return
        reply = _event("line one\n") + _event(TERMINAL_TRICKS) + _event("", "stop")
        self._send(200, "text/event-stream", (reply + "data: [DONE]\n\n").encode())

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: pytest fails on output it did not expect in the log."""


@pytest.fixture
def replying_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Replier)
    thread = threading.Thread(target=server.serve_forever, name="replier")
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    thread.join()
    server.server_close()


def test_check_shows_a_reply_holding_terminal_sequences_without_running_them(
    user_dirs: AppPaths, replying_server: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _chat_on_server(user_dirs, replying_server, "llama3")

    main(["--check", "--prompt", "Say hi."])  # its exit says how the embeddings did

    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    reply = next(line for line in out.splitlines() if line.startswith("reply: "))
    assert (
        reply == "reply: line one\\x0a\\x1b]0;PWNED\\x07\\x1b[2J\\x1b[31mFAKE: all is well\\x1b[0m"
    )
