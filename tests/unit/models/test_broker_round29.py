"""Round 29 of issue 15 against the broker: a server turning a reply down.

A server answering a chat request with a 400 of its own words ("context
length exceeded", a proxy's "model not allowed") failed the reply with a
typed ``ServerRequestRejected`` saying so, as it should; but the lane logged
it as a bug, at ERROR with a traceback: 25 lines on stderr between
``reply:`` and ``problem:`` in ``reverie --check``, and one in the log at
every turn.  A typed model error (a server's refusal, a prompt longer than
a local model's context) is the user's to fix, not a bug: it is logged as
one line, naming it.
"""

from __future__ import annotations

import json
import logging

import pytest

from models.broker import Backend, InferenceBroker, Role
from models.interfaces import ChatMessage, GenerationOptions
from models.server_chat import ServerChatModel
from models.server_http import ServerRequestRejected
from tests.unit.models.test_server_chat_round12 import ScriptedServer, _models
from tests.unit.models.test_server_http_round23 import _answer

pytestmark = pytest.mark.allow_hosts(["127.0.0.1"])

TIMEOUT = 10.0
REFUSAL = {"error": {"message": "context length exceeded", "type": "invalid_request_error"}}


@pytest.mark.timeout(60)
def test_a_reply_a_server_refuses_is_logged_as_its_refusal_not_as_a_bug(
    caplog: pytest.LogCaptureFixture,
) -> None:
    routes = {
        "/models": _models,
        "/chat/completions": _answer("400 Bad Request", json.dumps(REFUSAL).encode()),
    }
    broker = InferenceBroker()
    with ScriptedServer(routes) as server, caplog.at_level(logging.INFO, logger="models"):
        remote = Backend(
            "srv",
            lambda: ServerChatModel(server.url, "m", dialect="openai"),
            label="srv",
            remote=True,
        )
        broker.start()
        try:
            broker.configure(Role.CHAT, [remote]).result(TIMEOUT)
            job = broker.chat([ChatMessage("user", "hi")], GenerationOptions(max_tokens=16))
            with pytest.raises(ServerRequestRejected, match="context length exceeded"):
                job.result(TIMEOUT)
        finally:
            broker.stop()

    failed = [r for r in caplog.records if "inference job failed" in r.getMessage()]
    assert len(failed) == 1
    assert failed[0].exc_info is None
    assert failed[0].levelno == logging.WARNING
    assert "refused the request (400): context length exceeded" in failed[0].getMessage()
