"""Round 35 of issue 15 against error statuses answered by a web page.

A reverse proxy in front of a model server (nginx, a company's proxy)
answers a server that is down with its own error page (502, 504), and a
proxy or firewall that forbids the address with one too (403).  The page's
whole markup was put in the message ('failed (502): <html><head>...'), and
a 403 page was told as the model server asking for an API key, with no
word of the page.  A page is now named by its title, as a page, and a 401
or 403 that came as one says that something in between may be refusing.
"""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from models.server_http import ServerAuthRejected, ServerConnection, ServerUnavailable

URL = "http://127.0.0.1:9/v1"
BAD_GATEWAY = (
    b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
    b"<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.24.0</center>\r\n"
    b"</body>\r\n</html>\r\n"
)
FORBIDDEN = b"<!DOCTYPE html><html><head><title>Access denied | Example Corp proxy</title></head>"


def _refused(status: int, page: bytes, key: str | None = None) -> Exception:
    html = {"content-type": "text/html"}
    return refusal(lambda: httpx.Response(status, content=page, headers=html), key)


def refusal(answer: Callable[[], httpx.Response], key: str | None = None) -> Exception:
    """What asking a server that gives *answer* for its models raised."""
    transport = httpx.MockTransport(lambda request: answer())
    connection = ServerConnection(URL, api_key=key, transport=transport)
    try:
        connection.get_json("/models")
    except Exception as error:  # the test judges what was raised
        return error
    finally:
        connection.close()
    raise AssertionError("the refusal was taken for an answer")


@pytest.mark.parametrize("status", [502, 504])
def test_a_proxys_error_page_is_named_by_its_title_not_shown_as_markup(status: int) -> None:
    error = _refused(status, BAD_GATEWAY)

    assert isinstance(error, ServerUnavailable)
    said = str(error)
    assert f"failed ({status})" in said
    assert "a web page titled “502 Bad Gateway”" in said
    assert "<" not in said  # was the page's markup, '<html>\r\n<head>...'


@pytest.mark.parametrize("key", [None, "sk-local-1234"])
@pytest.mark.parametrize("status", [401, 403])
def test_a_refusal_that_is_a_web_page_says_so_and_what_may_refuse(
    status: int, key: str | None
) -> None:
    error = _refused(status, FORBIDDEN, key)

    assert isinstance(error, ServerAuthRejected)
    said = str(error)
    assert "a web page titled “Access denied | Example Corp proxy”" in said
    assert "proxy or firewall between Reverie and the server" in said
