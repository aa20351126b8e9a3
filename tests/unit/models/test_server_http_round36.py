"""Round 36 of issue 15 against a server's refusals and answers.

A 403 in JSON with no API key set was told as the server asking for one,
and without a word of what the server said: a server that forbids an
address or a model ('not allowed from this network') sent the user off to
look for a key that does not exist.  A 403 is about a key only where the
server says so (FastAPI's 'Not authenticated'); else it is a refusal in the
server's own words.

A 200 answer with an empty body was told as 'a reply that is not a stream
of events (text/event-stream)', or 'not JSON': it now says it was empty.

A server with a self-signed certificate was refused (never downgraded) with
'check that the server is running', and there was no way to trust it:
httpx checks against certifi's certificates alone.  Now this computer's
trusted certificates count too, and the refusal says why and how.

A llama-server's context length was taken from its /props as any integer:
``true`` (1 token, to Python) or 10**30; a token count below nothing was
taken as a count.
"""

from __future__ import annotations

import json
import ssl
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from ipaddress import ip_address
from pathlib import Path

import httpx
import pytest

from models.server_chat import DEFAULT_CONTEXT_LENGTH, ServerChatModel
from models.server_embed import ServerEmbedder
from models.server_http import (
    ServerAnswerInvalid,
    ServerAuthRejected,
    ServerConnection,
    ServerForbidden,
    ServerUnavailable,
)
from tests.unit.models.test_server_chat_round23 import _reply_from
from tests.unit.models.test_server_http_round35 import refusal

pytestmark = pytest.mark.allow_hosts(["127.0.0.1"])

HOST = "127.0.0.1"
URL = f"http://{HOST}:9/v1"


def _refused(status: int, body: dict[str, object], key: str | None = None) -> Exception:
    return refusal(lambda: httpx.Response(status, json=body), key)


@pytest.mark.parametrize("key", [None, "sk-local-1234"])
def test_a_forbidden_request_not_about_a_key_says_what_the_server_said(key: str | None) -> None:
    words = "Requests from 10.1.2.3 are not allowed for this model"
    error = _refused(403, {"error": {"message": words}}, key)

    assert isinstance(error, ServerForbidden)
    said = str(error)
    assert words in said
    assert "API key" not in said  # was 'asks for an API key (403).', nothing of its words
    assert "key" not in error.hint


@pytest.mark.parametrize(
    ("status", "body"),
    [
        (403, {"detail": "Not authenticated"}),  # FastAPI's HTTPBearer, llama-cpp-python's server
        (403, {"error": {"message": "Missing bearer token"}}),
        (401, {"error": {"message": "nope"}}),  # a 401 is about credentials by definition
    ],
)
def test_a_refusal_about_the_key_asks_for_one_and_quotes_the_server(
    status: int, body: dict[str, object]
) -> None:
    error = _refused(status, body)

    assert isinstance(error, ServerAuthRejected)
    assert "asks for an API key" in str(error)
    assert f"({status}: " in str(error)
    assert "key the server expects" in error.hint


@pytest.mark.timeout(60)
@pytest.mark.parametrize("kind", ["text/event-stream", "application/json"])
def test_a_reply_with_an_empty_body_says_it_was_empty(kind: str) -> None:
    with pytest.raises(ServerAnswerInvalid) as caught:
        _reply_from(b"", kind)

    said = str(caught.value)
    assert "with nothing (an empty body)" in said  # was 'not a stream of events
    # (text/event-stream)' and 'a reply event that is not JSON'
    assert "server's own log" in caught.value.hint


def test_an_embedding_answer_with_an_empty_body_says_it_was_empty() -> None:
    transport = httpx.MockTransport(
        lambda request: (
            httpx.Response(200, json={"data": [{"id": "m"}]})
            if request.url.path.endswith("/models")
            else httpx.Response(200, content=b"")
        )
    )
    embedder = ServerEmbedder(URL, "m", transport=transport)
    try:
        with pytest.raises(ServerAnswerInvalid, match=r"embeddings with nothing \(an empty body\)"):
            embedder.embed(["hello"])
    finally:
        embedder.close()


def _self_signed(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key, as files."""
    x509 = pytest.importorskip("cryptography.x509")
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(x509.oid.NameOID.COMMON_NAME, HOST)])
    now = datetime.now(UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(hours=1))
        .not_valid_after(now + timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ip_address(HOST))]), False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = folder / "cert.pem", folder / "key.pem"
    cert_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_file, key_file


class _Models(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = json.dumps({"data": [{"id": "m"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """An HTTPS server on 127.0.0.1 with a self-signed certificate: its
    base URL, and the certificate's file."""
    cert_file, key_file = _self_signed(tmp_path)
    server = ThreadingHTTPServer((HOST, 0), _Models)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"https://{HOST}:{server.server_address[1]}/v1", cert_file
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_a_self_signed_certificate_is_refused_saying_so_and_the_way_to_trust_it(
    tls_server: tuple[str, Path],
) -> None:
    url, _ = tls_server
    connection = ServerConnection(url)
    try:
        with pytest.raises(ServerUnavailable) as caught:
            connection.get_json("/models")
    finally:
        connection.close()

    assert "certificate is not accepted here (self-signed certificate)" in str(caught.value)
    assert "trusted certificates" in caught.value.hint  # was: 'check the server is running'


def test_a_certificate_this_computer_trusts_is_accepted(
    tls_server: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, cert_file = tls_server
    monkeypatch.setenv("SSL_CERT_FILE", str(cert_file))  # OpenSSL's own way to add one
    connection = ServerConnection(url)
    try:
        answer = connection.get_json("/models")  # httpx alone trusted certifi's only
    finally:
        connection.close()

    assert answer == {"data": [{"id": "m"}]}


@pytest.mark.parametrize(
    ("location", "elsewhere"),
    [
        ("http://203.0.113.5/v1/models", True),
        ("https://models.example.com/v1/models", True),
        ("http://127.0.0.1:8081/v1/models", False),
        ("http://localhost:8081/v1/models", False),
    ],
)
def test_a_redirect_from_this_computer_to_another_is_not_followed_nor_urged(
    location: str, elsewhere: bool
) -> None:
    asked: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        asked.append(str(request.url))
        return httpx.Response(302, headers={"location": location})

    connection = ServerConnection(URL, transport=httpx.MockTransport(answer))
    try:
        with pytest.raises(ServerUnavailable) as caught:
            connection.get_json("/models")
    finally:
        connection.close()

    assert asked == [f"{URL}/models"]  # never followed
    hint = caught.value.hint
    # Was 'Enter http://203.0.113.5/v1 as its address instead.' alone.
    assert ("other computer" in hint) is elsewhere
    assert "as its address instead" in hint


@pytest.mark.parametrize("n_ctx", ["true", "1" + "0" * 30, str(2**40)])
def test_a_context_length_no_model_has_is_not_taken_from_a_server(n_ctx: str) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/props"):
            return httpx.Response(
                200, content=b'{"default_generation_settings": {"n_ctx": %s}}' % n_ctx.encode()
            )
        if request.url.path.endswith("/models"):
            return httpx.Response(200, json={"data": [{"id": "m"}]})
        return httpx.Response(404, json={"error": "not found"})

    chat = ServerChatModel(URL, "m", transport=httpx.MockTransport(answer))
    try:
        chat.connect()
    finally:
        chat.close()

    assert chat.dialect == "llama-server"
    assert chat.context_length == DEFAULT_CONTEXT_LENGTH  # was True (1 token), or 10**30


@pytest.mark.parametrize("count", [-5, -(2**63)])
def test_a_token_count_below_nothing_is_an_invalid_answer(count: int) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/models"):
            return httpx.Response(200, json={"data": [{"id": "m", "owned_by": "vllm"}]})
        return httpx.Response(200, json={"count": count})

    chat = ServerChatModel(URL, "m", transport=httpx.MockTransport(answer))
    try:
        with pytest.raises(ServerAnswerInvalid, match="a token count without 'count'"):
            chat.count_tokens("hello")  # was -5: a prompt of any length 'fitted'
    finally:
        chat.close()
