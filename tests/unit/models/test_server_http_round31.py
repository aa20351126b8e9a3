"""Round 31 against server addresses answered by a web page.

A Wi-Fi's sign-in page (a captive portal), a proxy's, or a web site at the
address entered answers every request with HTML and status 200: the user
was told the server answered '/v1/models with something that is not JSON',
which names no cause and no way out.  A web page is now said to be one,
with what answers so and what to do.
"""

from __future__ import annotations

import httpx
import pytest

from models.server_http import ServerAnswerInvalid, ServerConnection

URL = "http://127.0.0.1:9/v1"
PORTAL = b"<!DOCTYPE html><html><body><h1>Hotel Wi-Fi</h1><form>Sign in</form></body></html>"


@pytest.mark.parametrize(
    "headers",
    [{"content-type": "text/html; charset=utf-8"}, {"content-type": "application/json"}, {}],
    ids=["said to be a page", "said to be JSON", "of no type"],
)
def test_an_address_answered_by_a_web_page_is_said_to_be_one(headers: dict[str, str]) -> None:
    transport = httpx.MockTransport(
        lambda request: httpx.Response(200, content=PORTAL, headers=headers)
    )
    connection = ServerConnection(URL, transport=transport)
    try:
        with pytest.raises(ServerAnswerInvalid) as refused:
            connection.get_json("/models")
    finally:
        connection.close()

    said = str(refused.value)
    assert (
        "answered /v1/models with a web page, not JSON" in said
    )  # was 'something that is not JSON'
    assert "sign-in page" in said and "Open the address in a browser" in said


def test_an_answer_that_is_no_json_and_no_page_is_still_said_so() -> None:
    transport = httpx.MockTransport(lambda request: httpx.Response(200, content=b"OK"))
    connection = ServerConnection(URL, transport=transport)
    try:
        with pytest.raises(ServerAnswerInvalid, match="with something that is not JSON"):
            connection.get_json("/models")
    finally:
        connection.close()
