"""The HTTP side of OpenAI-compatible servers: addresses, typed errors, which
server it is (its *dialect*), and the ``probe`` the settings window uses.

A role's model may run on a server of the user's own: llama.cpp's
llama-server, Ollama, LM Studio, vLLM, llama-cpp-python's server, or anything
that speaks OpenAI's API.  ``models.server_chat`` and ``models.server_embed``
build on the ``ServerConnection`` here.

Two promises hold for every request:

- Only the address the user entered is contacted.  No proxy or ``.netrc``
  from the environment (``trust_env=False``), no redirects followed, no
  other host tried.
- The API key travels only in the ``Authorization: Bearer`` header.  It is
  never an attribute anyone can print, never in a log line, and any text a
  server sends back is scrubbed of it before it becomes an error message:
  as it is, and as a repr, JSON or a web page quotes it; an error body cut
  at its bound loses the start of a key it ends with.
  A key that cannot be a header value (a line break, a typographic quote) is
  refused before anything is sent (``api_key_problem``), naming what is
  wrong with it and never the key.

Every answer is parsed by ``parse_json``, which refuses nesting deeper than
any answer of the API has (``MAX_JSON_DEPTH``) instead of recursing into it.
Every answer is asked for uncompressed (``Accept-Encoding: identity``) and
read as sent: a compressed one is refused unread (``ServerAnswerInvalid``),
since a few kilobytes of gzip can inflate to gigabytes before any bound on
the answer's size would see them.

Every answer that is not streamed ends in time: besides the read timeout (the
longest silence), it has a total time limit (``answer_timeout``, and a
connection's ``deadline``), so a server that drips its answer a byte at a time
times out too.  So does the error body of a streamed request, which is read
no further than ``MAX_ERROR_BODY_BYTES`` (only its start is shown anyway).
A check of which server it is (``probe_json``: ``/api/version``, ``/props``)
takes at most ``probe_timeout``, a probe's time, whatever the connection's
limits; one never answered means "not that server".  A ``ServerProbe`` (the
settings window's Test) ends within its timeout, and at once when stopped
from another thread (quitting Reverie).

A model list is bounded (``MAX_MODEL_ID_CHARS``, ``MAX_LISTED_MODELS``): a
longer id is no model's name, and such a list an invalid answer; ids are
shown shortened (``shown_models``), never as a wall of text.  What a server
says (its model ids, its words about an error) is shown through
``shown_text``: a control character is written visibly, never run by a
terminal (``reverie --check``) or a log viewer.
"""

from __future__ import annotations

import html
import ipaddress
import json
import logging
import re
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Literal, get_args
from urllib.parse import urljoin, urlsplit

import httpx

from models.download_answers import why_unreachable
from models.errors import ModelError, ModelUnavailable
from models.model_file import shown_text
from models.streaming import overlap

log = logging.getLogger(__name__)

Dialect = Literal[
    "auto", "llama-cpp-python", "llama-server", "ollama", "lmstudio", "vllm", "openai"
]
"""Which server it is, so requests take the shape it honours; "auto" asks it."""
ServerDialect = Literal["llama-cpp-python", "llama-server", "ollama", "lmstudio", "vllm", "openai"]
DIALECTS: tuple[Dialect, ...] = get_args(Dialect)

DEFAULT_CONNECT_TIMEOUT_S = 3.0
DEFAULT_READ_TIMEOUT_S = 300.0
"""The longest silence while waiting for an answer: a big prompt on a slow
server can take minutes before the first token."""
DEFAULT_ANSWER_TIMEOUT_S = 600.0
"""The longest an answer that is not streamed may take in all (an embedding
batch, a token count, a model list): twice the longest silence, so a slow
server that keeps working is not cut, and one dripping bytes is."""
DEFAULT_PROBE_TIMEOUT_S = 10.0
"""The longest a probe (the settings window's Test) takes, all its requests together."""
_DEADLINE_POLL_S = 0.05
_WRITE_TIMEOUT_S = 30.0
_ERROR_TEXT_LIMIT = 300
MAX_ANSWER_BYTES = 64 << 20
"""The largest answer read that is not streamed: an embedding answer for a
batch of 64 texts at 4,096 dimensions is about 6 MB of JSON, a model list a
few kilobytes."""
MAX_ERROR_BODY_BYTES = 64 << 10
"""The most of an error answer's body read: its message is shown shortened
(300 characters), and a server may send an endless one."""
_SENT_AS = {"content-encoding", "content-length", "transfer-encoding"}
MAX_JSON_DEPTH = 64
"""The deepest answer parsed.  The API's answers are a few levels deep (an
embedding is ``{"data": [{"embedding": [...]}]}``, a streamed event five);
schema-bound output arrives as a string, so its own depth does not count."""
MAX_MODEL_ID_CHARS = 1024
"""The longest model id taken from a model list.  Real ones are a name
(``llama3.1:8b``), a Hub path with a quantisation (about 60 characters) or,
for llama-server, the path of the model file."""
MAX_LISTED_MODELS = 10_000
"""The most models a list may name (the largest public lists have a few hundred)."""
SHOWN_MODEL_CHARS = 64
"""How much of a model id a message shows; a longer one is cut in its middle."""
_SURROGATE = re.compile("[\ud800-\udfff]")
_LINE_BREAKS = "\r\n"
_TYPOGRAPHIC_QUOTES = "\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f\u00ab\u00bb\u2039\u203a"

# What each server writes into `owned_by` of /v1/models, read in their sources:
# llama.cpp tools/server ("llamacpp"), vLLM's protocol.py ("vllm"), LM Studio
# ("organization_owner"), llama-cpp-python's server/app.py ("me"), OpenAI.
# Ollama writes the model's namespace ("library"), so it is asked /api/version.
_OWNERS: Mapping[str, ServerDialect] = {
    "llamacpp": "llama-server",
    "vllm": "vllm",
    "organization_owner": "lmstudio",
    "me": "llama-cpp-python",
    "openai": "openai",
    "system": "openai",
    "openai-internal": "openai",
}


class ServerUnavailable(ModelUnavailable):
    """The server cannot be reached, timed out, failed (5xx), is too busy
    (408, 429) or went away mid-reply."""


class ServerTimedOut(ServerUnavailable):
    """The server did not connect or answer within a time limit."""


class ServerAuthRejected(ModelUnavailable):
    """The server refused the API key (401/403)."""


class ServerForbidden(ModelUnavailable):
    """The server forbids the request (403) for a reason other than a key
    (an address or a model it does not allow); the message is its reason."""


class ServerKeyInvalid(ServerAuthRejected):
    """The API key cannot be sent at all (it holds a line break, a
    typographic quote...); nothing was sent.  The message never quotes it."""


class ServerModelNotFound(ModelUnavailable):
    """The server has no model by the name asked for."""


class ServerRequestRejected(ModelError):
    """The server turned a request down (a 4xx other than auth and unknown
    model), e.g. a prompt longer than its context; the message is its reason."""


class ServerAnswerInvalid(ModelUnavailable):
    """The server answered something that is not what its API promises.

    A ``ModelUnavailable``: the user pointed a role at something that does
    not speak the API (or not this dialect of it); a fallback may answer, and
    the role's banner says why."""


@dataclass(frozen=True)
class ServerInfo:
    """What a server says about itself (``probe``)."""

    base_url: str
    dialect: ServerDialect
    models: tuple[str, ...]
    """The names of the models it serves (empty if it does not list them)."""

    @property
    def listing(self) -> str:
        """The models it serves as a message shows them: the first eight, each shortened."""
        return shown_models(self.models, 8)


@dataclass(frozen=True)
class ServerSurvey:
    """What one look at a server found: its dialect and its model listing."""

    dialect: ServerDialect
    entries: tuple[Mapping[str, Any], ...]
    """The entries of ``/v1/models`` (empty if the server has no listing)."""

    @property
    def models(self) -> tuple[str, ...]:
        return tuple(str(entry["id"]) for entry in self.entries)


def api_base(url: str) -> str:
    """*url* as an API base address: no trailing slash, ``/v1`` if it had no path.

    Raises ``ServerUnavailable`` if it cannot be one.  An address with a user
    name or password is refused: it would show up in every error message.
    """
    url = url.strip().rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ServerUnavailable(
            f"{url!r} is not a server address.",
            "An address starts with http:// or https://, e.g. http://127.0.0.1:8080/v1.",
        )
    if parts.username or parts.password:
        raise ServerUnavailable(
            "A server address may not hold a user name or password.", "Give an API key instead."
        )
    return url if parts.path else f"{url}/v1"


def api_key_problem(key: str) -> str | None:
    """What makes *key* unusable as an API key ("has a line break in it"), or
    None.  Never quotes the key or any of its characters.

    A key goes in an HTTP header: printable ASCII, spaces included (a server's
    administrator may choose any such text).  Anything else is a paste
    gone wrong: typographic quotes from a document or a chat, a second line
    of the file it was read from, a tab.
    """
    if any(char in _LINE_BREAKS for char in key):
        return "has a line break in it"
    if any(char in _TYPOGRAPHIC_QUOTES for char in key):
        return "has typographic (curly) quotes in it"
    if any(not char.isascii() for char in key):
        return "has a character in it that is not plain ASCII (an accented letter, say)"
    if any(not char.isprintable() for char in key):
        return "has a control character (a tab, say) in it"
    return None


def whole_text(text: str) -> str:
    """*text* as UTF-8 can hold it: each surrogate pair made the character it
    stands for, each lone surrogate U+FFFD (JSON escapes text as UTF-16, so a
    server may send either)."""
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def shown_model(model: str) -> str:
    """*model*'s id as a message shows it (``shown_text``): its control
    characters visible, at most ``SHOWN_MODEL_CHARS`` characters, cut in the
    middle (where a path or a Hub id is least telling)."""
    return shown_text(whole_text(model), SHOWN_MODEL_CHARS)


def shown_models(models: tuple[str, ...], most: int) -> str:
    """The first *most* of *models*, shortened, joined by commas ("…" if there are more)."""
    shown = ", ".join(shown_model(model) for model in models[:most])
    return shown + (", …" if len(models) > most else "")


def parse_json(text: str | bytes) -> Any:
    """*text* parsed as JSON; ``ValueError`` if it is not JSON or is nested
    deeper than ``MAX_JSON_DEPTH`` (which would exhaust the stack)."""
    try:
        value = json.loads(text)
    except RecursionError as error:
        raise ValueError("JSON nested too deeply") from error
    if _nested_deeper(value, MAX_JSON_DEPTH):
        raise ValueError("JSON nested too deeply")
    return value


_TITLE = re.compile(r"<title[^>]{0,200}>([^<]{0,200})<", re.IGNORECASE)
"""A web page's title (bounded: a page is read in linear time)."""
# What a refusal about a key says: FastAPI's 403 'Not authenticated' to a
# request without one, 'Invalid API key', 'Missing bearer token'...
_KEY_WORDS = re.compile(
    r"\b(?:api[ _-]?)?keys?\b|auth|token|credential|bearer|log ?in\b|sign ?in\b|password",
    re.IGNORECASE,
)
_MARKUP = re.compile(r"<[^<>]*+>")


def _is_web_page(response: httpx.Response) -> bool:
    """Whether *response* is a web page (as a captive portal or a web site answers)."""
    media = response.headers.get("content-type", "").split(";")[0].strip().lower()
    return media in ("text/html", "application/xhtml+xml") or response.content.lstrip()[
        :15
    ].lower().startswith((b"<!doctype html", b"<html"))


def _trusted_certificates() -> ssl.SSLContext:
    """What a server's certificate may be signed by: this computer's trusted
    certificates (where a user adds a self-signed one, or a company's) and
    certifi's, which httpx alone would use."""
    context = httpx.create_ssl_context(trust_env=False)  # certifi's
    context.load_default_certs()
    return context


def _on_this_computer(url: str) -> bool:
    """Whether *url*'s host is this computer (a loopback name or address)."""
    host = (urlsplit(url).hostname or "").rstrip(".").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _refused_certificate(error: BaseException) -> str:
    """Why the server's certificate was refused, if *error* comes of that
    ("self-signed certificate"); else ""."""
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, ssl.SSLCertVerificationError):
            return str(cause.verify_message or "not signed by a trusted certificate")
        cause = cause.__cause__ or cause.__context__
    return ""


def _nested_deeper(value: Any, limit: int) -> bool:
    """Whether *value* has lists or objects nested more than *limit* deep
    (level by level, without recursion)."""
    level = [value] if isinstance(value, dict | list) else []
    for _ in range(limit):
        children: list[Any] = []
        for item in level:
            inside = item.values() if isinstance(item, dict) else item
            children.extend(child for child in inside if isinstance(child, dict | list))
        if not children:
            return False
        level = children
    return True


class _Secret:
    """An API key that does not show itself when printed."""

    def __init__(self, value: str) -> None:
        self.value = value

    def __repr__(self) -> str:
        return "<secret>"

    __str__ = __repr__


class ServerConnection:
    """One kept HTTP connection to a server, with typed errors.

    One thread uses it at a time; ``interrupt`` and ``close`` may be called
    from any thread.  At most one connection is open, so the socket a request
    uses is always the one last connected: ``interrupt`` shuts it down, which
    ends a read that is blocked waiting for the server at once.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT_S,
        read_timeout: float = DEFAULT_READ_TIMEOUT_S,
        answer_timeout: float = DEFAULT_ANSWER_TIMEOUT_S,
        probe_timeout: float = DEFAULT_PROBE_TIMEOUT_S,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        """*transport* replaces the default one (tests record requests with it);
        ``interrupt`` can cut a blocked read only over an ``httpx.HTTPTransport``."""
        self.base_url = api_base(base_url)
        self.connect_timeout = connect_timeout
        """The longest wait for a connection."""
        self.root_url = self.base_url.removesuffix("/v1")
        """Where the servers' own endpoints (/props, /tokenize, /api/...) live."""
        self.read_timeout = read_timeout
        """The longest wait for the server to say something (its silence)."""
        self.answer_timeout = answer_timeout
        """The longest an answer that is not streamed takes in all."""
        self.probe_timeout = probe_timeout
        """The longest a check of which server it is (``probe_json``) takes."""
        self.deadline: float | None = None
        """A moment (``time.monotonic``) no answer that is not streamed may
        go past, whatever is left of its own time (a probe's whole time)."""
        self._closed = False
        if api_key and (problem := api_key_problem(api_key)):
            raise ServerKeyInvalid(
                f"The API key for the server at {self.base_url} cannot be used: it {problem}.",
                "Enter the key again in the settings (Models), as plain text.",
            )
        self._key = _Secret(api_key) if api_key else None
        headers = {"Accept-Encoding": "identity"}  # httpx asks for gzip, deflate, br, zstd
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        self._client = httpx.Client(
            headers=headers,
            timeout=httpx.Timeout(
                read_timeout, connect=connect_timeout, write=_WRITE_TIMEOUT_S, pool=connect_timeout
            ),
            limits=httpx.Limits(max_connections=1, max_keepalive_connections=1),
            trust_env=False,
            follow_redirects=False,
            verify=_trusted_certificates(),
            transport=transport,
        )
        self._extensions = {"trace": self._on_trace}
        self._socket: socket.socket | None = None

    def __repr__(self) -> str:
        return f"ServerConnection({self.base_url!r})"

    # -- requests -------------------------------------------------------------
    def get_json(self, path: str, *, at_root: bool = False, missing_ok: bool = False) -> Any:
        """The JSON answer to GET *path*; ``None`` for a 404 if *missing_ok*."""
        response = self._send("GET", path, None, at_root)
        if missing_ok and response.status_code == 404:
            return None
        self._check(response)
        return self._json(response)

    def post_json(
        self,
        path: str,
        body: Mapping[str, Any],
        *,
        at_root: bool = False,
        model: str = "",
        quick: bool = False,
    ) -> Any:
        """The JSON answer to POST *body* to *path*; *model* names it in a 404.
        A *quick* request (a token count) takes at most ``probe_timeout``:
        every server answers one at once, and a caller waits on it unstoppable."""
        until = self._until()
        if quick:
            until = min(until, time.monotonic() + self.probe_timeout)
        response = self._send("POST", path, body, at_root, until=until)
        self._check(response, model)
        return self._json(response)

    def probe_json(self, path: str, *, at_root: bool = True, by: float | None = None) -> Any:
        """GET *path*, or ``None`` if the server has no such endpoint (any
        answer but 200 with JSON, or none by *by*: ``time.monotonic``, by
        default ``probe_timeout`` from now).  Only an unreachable server
        raises, one past the connection's own limits, or one whose answer
        cannot be read (larger than ``MAX_ANSWER_BYTES``, or compressed)."""
        limit = time.monotonic() + self.probe_timeout if by is None else by
        until = self._until()
        if limit <= time.monotonic():
            return None  # the checks before it took all their time
        try:
            response = self._send("GET", path, None, at_root, until=min(until, limit))
        except ServerTimedOut:
            if until <= limit or time.monotonic() < limit:
                raise  # the connection's own limit (a probe's whole time), or no connection
            return None  # a server that keeps such a check waiting is not that server
        if response.status_code != 200:
            return None
        try:
            return parse_json(response.content)
        except ValueError:
            return None

    @contextmanager
    def stream(self, path: str, body: Mapping[str, Any], *, model: str) -> Iterator[httpx.Response]:
        """POST *body* and hand over the response as it streams in.

        A transport failure before or during the stream (the server killed
        mid-reply, a timeout, an ``interrupt``) raises ``ServerUnavailable``.
        """
        answered = False
        try:
            with self._client.stream(
                "POST", self._url(path, False), json=body, extensions=self._extensions
            ) as response:
                self._remember_socket(response)
                if response.status_code != 200:
                    self._check(self._read_error(response, path), model)
                self._refuse_encoded(response, path)
                answered = True
                yield response
        except httpx.TransportError as error:
            raise self._lost(error, mid_reply=answered) from error
        except httpx.StreamError as error:  # e.g. read after close(): the answer is cut
            raise self._lost(error, mid_reply=answered) from error

    def _send(
        self, method: str, path: str, body: Any, at_root: bool, *, until: float | None = None
    ) -> httpx.Response:
        """The whole answer to one request that is not streamed (``_read``),
        by *until* (``time.monotonic``; default ``_until()``)."""
        url = self._url(path, at_root)
        until = self._until() if until is None else until
        # close() from another thread cuts the request too: while it still
        # connects there is no socket to cut, so the watchdog tries until there is.
        answered = False
        with self._watchdog(until) as deadline:
            try:
                with self._client.stream(
                    method, url, json=body, extensions=self._extensions
                ) as response:
                    answered = True  # reached: what fails now is the answer
                    return self._read(response, path, until, deadline)
            except httpx.TransportError as error:
                if self._closed:  # cut by close(), or failed as it was closed
                    raise self._was_closed() from error
                if deadline.fired:  # the connection was cut because time was up
                    raise self.timed_out() from error
                raise self._lost(error, mid_reply=answered) from error
            except RuntimeError as error:  # httpx: the client was closed meanwhile
                if not self._closed:
                    raise
                raise self._was_closed() from error

    def _read_error(self, response: httpx.Response, path: str) -> httpx.Response:
        """The error answer a streamed request got, read as ``_send`` reads
        an answer (``_read``), within its own time limit from now."""
        until = self._until()
        with self._watchdog(until) as deadline:
            return self._read(response, path, until, deadline)

    def _watchdog(self, until: float) -> Watchdog:
        """Cuts the connection once *until* has passed, or once it is closed."""
        return Watchdog(
            lambda: self._closed or time.monotonic() >= until,
            self.interrupt,
            poll=_DEADLINE_POLL_S,
            name="reverie-server-deadline",
        )

    def _read(
        self, response: httpx.Response, path: str, until: float, deadline: Watchdog
    ) -> httpx.Response:
        """*response* read whole by *until*, with *deadline* cutting a read
        blocked then: an answer up to ``MAX_ANSWER_BYTES`` (a server sending
        more is refused, not held; one still sending then times out).  Of an
        error answer, what came by then, up to ``MAX_ERROR_BODY_BYTES``: only
        its start is shown, and it says why the request failed."""
        failed = response.status_code != 200
        most = MAX_ERROR_BODY_BYTES if failed else MAX_ANSWER_BYTES
        content = bytearray()
        cut = False
        if failed and _encoding(response):
            most = 0  # its words cannot be read unpacked; the status says enough
        elif not failed:
            self._refuse_encoded(response, path)
        try:
            # Sent as is (or not read): nothing here is inflated.
            for chunk in response.iter_bytes() if most else ():
                content += chunk
                if self._closed:
                    raise self._was_closed()
                if failed and (len(content) >= most or time.monotonic() >= until):
                    cut = True
                    break  # enough to say why; leaving the stream closes it
                if len(content) > most:
                    raise self.invalid(f"an answer to {path} larger than {most >> 20} MB")
                if time.monotonic() >= until:
                    raise self.timed_out()
        except httpx.TransportError:
            if self._closed or not (failed and deadline.fired):
                raise
            # An error answer cut because its time was up: what came says why.
            cut = True
        body = bytes(content[:most])
        if cut or len(content) > most:
            body = self._without_cut_key(body)
        # As read, so without the headers saying how it was sent.
        kept = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in _SENT_AS]
        return httpx.Response(
            response.status_code, headers=kept, content=body, request=response.request
        )

    def _refuse_encoded(self, response: httpx.Response, path: str) -> None:
        """``ServerAnswerInvalid`` if *response* comes compressed (or in any
        content coding), though it was asked for as it is."""
        encoding = _encoding(response)
        if encoding:
            raise ServerAnswerInvalid(
                f"The server at {self.base_url} sent its answer to {path} compressed "
                f"({self.scrub(encoding)}), though Reverie asks for answers uncompressed.",
                "Turn compression off on the server (or on a proxy in front of it).",
            )

    def _until(self) -> float:
        """When the answer to a request sent now must be in (``time.monotonic``)."""
        if self._closed:
            raise self._was_closed()
        until = time.monotonic() + self.answer_timeout
        if self.deadline is not None:
            until = min(until, self.deadline)
            if until <= time.monotonic():
                raise self.timed_out()
        return until

    def _url(self, path: str, at_root: bool) -> str:
        return f"{self.root_url if at_root else self.base_url}{path}"

    # -- interrupting ---------------------------------------------------------
    def interrupt(self) -> bool:
        """Shut the current connection down, from any thread; False if there
        is none (yet: it may still be connecting)."""
        sock = self._socket
        if sock is None:
            return False
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:  # closed already, or not connected: not the one in use
            return False
        return True

    def close(self) -> None:
        """Close the connection; usable from any thread.  A request waiting
        for its answer ends (``ServerUnavailable``), one still connecting as
        soon as it is connected (its watchdog cuts it), and none is sent after."""
        self._closed = True
        self.interrupt()
        self._client.close()

    def _on_trace(self, event: str, info: Mapping[str, Any]) -> None:
        # httpcore reports every new connection; with one connection at most,
        # the last one connected is the one any request uses.
        if event == "connection.connect_tcp.started":
            self._socket = None  # the old one is gone; the new one is not there yet
        elif event == "connection.connect_tcp.complete":
            stream = info.get("return_value")
            if stream is not None:
                self._socket = stream.get_extra_info("socket")

    def _remember_socket(self, response: httpx.Response) -> None:
        stream = response.extensions.get("network_stream")
        sock = stream.get_extra_info("socket") if stream is not None else None
        if isinstance(sock, socket.socket):
            self._socket = sock

    # -- errors ---------------------------------------------------------------
    def _lost(self, error: Exception, *, mid_reply: bool) -> ServerUnavailable:
        url = self.base_url
        if isinstance(error, httpx.ConnectTimeout):
            return self.timed_out("connect", self.connect_timeout)
        if isinstance(error, httpx.ReadTimeout):
            return self.timed_out("answer", self.read_timeout)
        if isinstance(error, httpx.TimeoutException):
            return self.timed_out()
        if mid_reply:
            return self.cut_short()
        reason = (
            why_unreachable(error)
            if isinstance(error, httpx.TransportError)
            else self.scrub(str(error)).rstrip(".") or type(error).__name__
        )
        if refused := _refused_certificate(error):
            return ServerUnavailable(
                f"Cannot reach the server at {url}: its certificate is not accepted here "
                f"({self.scrub(refused)}).",
                "Add the certificate to this computer's trusted certificates, or, for a "
                "server on this computer, enter its http:// address.",
            )
        return ServerUnavailable(
            f"Cannot reach the server at {url} ({reason}).",
            "Check that the server is running and that the address is right.",
        )

    def _check(self, response: httpx.Response, model: str = "") -> None:
        status = response.status_code
        if status == 200:
            return
        reason = self._reason(response)
        url = self.base_url
        if status in (401, 403):
            raise self._refused(response, reason)
        if model and status in (400, 404) and _names_missing_model(reason):
            raise ServerModelNotFound(
                f"The server at {url} has no model named {model!r}: {reason}",
                "Choose one of the models it serves.",
            )
        if status == 404:
            raise ServerUnavailable(
                f"The server at {url} has no {response.request.url.path} ({reason}).",
                "Check the address: an OpenAI-compatible one usually ends in /v1.",
            )
        if status in (408, 429):  # not now: a fallback may answer, this one again later
            raise ServerUnavailable(
                f"The server at {url} is too busy to answer ({status}): {reason}",
                "Try again in a while, or give the role a second backend.",
            )
        if 300 <= status < 400:
            raise self._redirected(response)
        if status >= 500:
            raise ServerUnavailable(
                f"The server at {url} failed ({status}): {reason}", "Check the server's own log."
            )
        raise ServerRequestRejected(f"The server at {url} refused the request ({status}): {reason}")

    def _refused(self, response: httpx.Response, reason: str) -> ModelUnavailable:
        """The error for a 401 or 403: about the key where the server says so
        (a 401 always is), else a refusal in the server's own words."""
        status, url = response.status_code, self.base_url
        said = "refused the API key" if self._key else "asks for an API key"
        if _is_web_page(response):  # a model server answers in JSON
            return ServerAuthRejected(
                f"The server at {url} {said} ({status}: {reason}).",
                "A proxy or firewall between Reverie and the server may be refusing: open "
                "the address in a browser to see what answers; else enter the key the "
                "server expects in the settings.",
            )
        if status == 401 or _KEY_WORDS.search(reason):
            return ServerAuthRejected(
                f"The server at {url} {said} ({status}: {reason}).",
                "Enter the key the server expects in the settings.",
            )
        return ServerForbidden(
            f"The server at {url} forbids the request ({status}): {reason}",
            "The server's own settings decide what it allows: check them, or ask whoever runs it.",
        )

    def _redirected(self, response: httpx.Response) -> ServerUnavailable:
        """The error for a redirect (never followed), naming where it points
        and, where that is the same request elsewhere, the address to enter."""
        location = response.headers.get("location", "")
        if not location:
            return ServerUnavailable(
                f"The server at {self.base_url} sends requests elsewhere ({response.status_code}).",
                "Enter the address it redirects to instead.",
            )
        target = urljoin(str(response.request.url), location)
        asked = str(response.request.url)
        base = self.base_url if asked.startswith(self.base_url) else self.root_url
        rest = asked.removeprefix(base)  # "/models": what was asked of the base
        enter = target.removesuffix(rest) if rest and target.endswith(rest) else ""
        hint = (
            f"Enter {self.scrub(enter)} as its address instead"
            if enter
            else "Enter the address it redirects to instead"
        )
        if _on_this_computer(self.base_url) and not _on_this_computer(target):
            # Not followed: what the user sends must not leave the computer unasked.
            hint += (
                ", only if you mean your conversations to go to that other computer "
                "(nothing was sent there)"
            )
        return ServerUnavailable(
            f"The server at {self.base_url} sends requests elsewhere "
            f"({response.status_code}, to {self.scrub(target)}).",
            f"{hint}.",
        )

    def _reason(self, response: httpx.Response) -> str:
        """The server's own words about an error, scrubbed and shortened; a
        web page (a proxy's error page) by its title, not its markup."""
        if _is_web_page(response):
            return self._page(response.text)
        try:
            answer = parse_json(response.content)
        except ValueError:
            answer = response.text
        text = _error_text(answer) if not isinstance(answer, str) else answer
        return self.scrub(text.strip()) or response.reason_phrase

    def _page(self, page: str) -> str:
        """A web page as an error's reason: its title, else its text, never its markup."""
        title = _TITLE.search(page)
        words = " ".join(html.unescape(title[1] if title else _MARKUP.sub(" ", page)).split())
        if not words:
            return "a web page"
        return (
            f"a web page titled “{self.scrub(words)}”"
            if title
            else f"a web page: {self.scrub(words)}"
        )

    def _json(self, response: httpx.Response) -> Any:
        try:
            return parse_json(response.content)
        except ValueError as error:
            if not response.content.strip():
                raise self.empty(response) from error
            where = f"The server at {self.base_url} answered {response.request.url.path}"
            if _is_web_page(response):
                raise ServerAnswerInvalid(
                    f"{where} with a web page, not JSON: something else answers at this "
                    "address (a Wi-Fi's or a proxy's sign-in page, or a web site).",
                    "Open the address in a browser to see what answers, then enter the "
                    "address of the model server itself.",
                ) from error
            raise ServerAnswerInvalid(
                f"{where} with something that is not JSON (or is nested too deeply to read)."
            ) from error

    def _scrub(self, text: str) -> str:
        text = whole_text(text)
        for shown in self._key_as_quoted():
            text = text.replace(shown, "[api key]")
        return text

    def _key_as_quoted(self) -> list[str]:
        """The API key as an answer may quote it, longest first: as it is,
        as a repr (str or bytes) quotes a header, as JSON (a server's own
        error body, or one put back into JSON) and as a web page escapes it."""
        if not self._key:
            return []
        key = self._key.value
        quoted = {key, repr(key)[1:-1], repr(key.encode())[2:-1], json.dumps(key)[1:-1]}
        quoted.add(html.escape(key))
        return sorted(quoted, key=len, reverse=True)

    def _without_cut_key(self, content: bytes) -> bytes:
        """*content*, an answer's body cut short, without the start of the API
        key its end may hold (cut within the key, no scrub would know it)."""
        end = content.decode("latin-1")  # one character a byte: ends stay in place
        held = max((overlap(end, shown) for shown in self._key_as_quoted()), default=0)
        return content[: len(content) - held]

    def _was_closed(self) -> ServerUnavailable:
        return ServerUnavailable(
            f"The connection to the server at {self.base_url} was closed.",
            "Reverie is quitting, or the server's settings changed.",
        )

    def timed_out(self, kind: str = "answer", within: float | None = None) -> ServerTimedOut:
        """The error for a server that did not *kind* ("connect", "answer")
        in time: *within* so many seconds, when one limit says how long."""
        said = "in time" if within is None else f"within {within:g} s"
        return ServerTimedOut(
            f"The server at {self.base_url} did not {kind} {said}.",
            "It may be busy or stuck; check it, then try again.",
        )

    def cut_short(self) -> ServerUnavailable:
        """The error for an answer the server stopped partway."""
        return ServerUnavailable(
            f"The server at {self.base_url} stopped answering in the middle of a reply.",
            "Check that it is still running.",
        )

    def invalid(self, what: str) -> ServerAnswerInvalid:
        """The error for an answer that lacks what the API promises."""
        return ServerAnswerInvalid(f"The server at {self.base_url} sent {what}.")

    def empty(self, response: httpx.Response) -> ServerAnswerInvalid:
        """The error for a 200 answer with nothing in its body."""
        return ServerAnswerInvalid(
            f"The server at {self.base_url} answered {response.request.url.path} with "
            "nothing (an empty body).",
            "Check the server's own log: it may have failed as it began to answer.",
        )

    def scrub(self, text: str) -> str:
        """*text* from the server, safe to put in a message: without the API
        key, its control characters visible, shortened (``shown_text``)."""
        return shown_text(self._scrub(text), _ERROR_TEXT_LIMIT)


class Watchdog:
    """Watches beside a request that may block: once *fires* says so
    (asked every *poll* seconds), calls *interrupt* (which cuts the
    connection) until that succeeds (no socket yet while connecting).

    Needed because a read blocked on a socket cannot be woken otherwise: a
    server may be silent for minutes while it reads a long prompt, or send
    one byte just within each read timeout, for hours.
    """

    def __init__(
        self, fires: Callable[[], bool], interrupt: Callable[[], bool], *, poll: float, name: str
    ) -> None:
        self.fired = False
        self._fires = fires
        self._interrupt = interrupt
        self._poll = poll
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name=name, daemon=True)

    def __enter__(self) -> Watchdog:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._done.set()
        self._thread.join()

    def _watch(self) -> None:
        while not self._done.wait(self._poll):
            if self._fires():
                self.fired = True
                break
        while self.fired and not self._interrupt() and not self._done.wait(self._poll):
            pass


def _encoding(response: httpx.Response) -> str:
    """The content codings *response* says it is sent in ("gzip, gzip"), or ""
    if none but ``identity``."""
    listed = response.headers.get_list("content-encoding", split_commas=True)
    codings = [coding.strip() for coding in listed]
    if all(coding.lower() in ("", "identity") for coding in codings):
        return ""
    return ", ".join(codings)


def _names_missing_model(reason: str) -> bool:
    """Whether a 400/404's reason says the model is unknown (vLLM: "The model
    `x` does not exist."; Ollama: 'model "x" not found'), not the path."""
    said = reason.lower()
    return "model" in said and ("not found" in said or "does not exist" in said)


def _error_text(answer: Any) -> str:
    """The message in an error body: OpenAI's ``{"error": {"message"}}``,
    Ollama's ``{"error": "..."}``, FastAPI's ``{"detail": ...}``."""
    if isinstance(answer, dict):
        for key in ("error", "detail", "message"):
            if key in answer:
                return _error_text(answer[key])
        if isinstance(answer.get("code"), str):
            return str(answer["code"])
    if isinstance(answer, list) and answer:
        return _error_text(answer[0])
    return answer if isinstance(answer, str) else json.dumps(answer)


# -- which server, which models ----------------------------------------------
def survey(connection: ServerConnection, dialect: Dialect = "auto") -> ServerSurvey:
    """List the server's models and find its dialect (unless given)."""
    entries = model_entries(connection)
    found = dialect if dialect != "auto" else detect_dialect(connection, entries)
    log.debug("server at %s: dialect %s, %d models", connection.base_url, found, len(entries))
    return ServerSurvey(found, entries)


def detect_dialect(
    connection: ServerConnection, entries: tuple[Mapping[str, Any], ...]
) -> ServerDialect:
    """Which server this is: its ``owned_by`` where that names it, else cheap probes.

    Anything unrecognised is treated as OpenAI's own API, the shape every
    compatible server accepts.  The probes take ``probe_timeout`` in all,
    whatever the connection's limits; one unanswered then says "not that server".
    """
    for entry in entries:
        owner = entry.get("owned_by")
        if isinstance(owner, str) and owner in _OWNERS:
            return _OWNERS[owner]
    by = time.monotonic() + connection.probe_timeout
    version = connection.probe_json("/api/version", by=by)
    if isinstance(version, dict) and "version" in version:
        return "ollama"
    props = connection.probe_json("/props", by=by)
    if isinstance(props, dict) and "default_generation_settings" in props:
        return "llama-server"
    return "openai"


def resolve_model(connection: ServerConnection, wanted: str, served: tuple[str, ...]) -> str:
    """The served model *wanted* names, or ``ServerModelNotFound``.

    An empty name means the server's only model.  Servers that list nothing
    are left to judge the name themselves.  Ollama's ``name`` means ``name:latest``.
    """
    if not served:
        if not wanted:
            raise ServerModelNotFound(
                f"No model name given for the server at {connection.base_url}.",
                "Enter the name the server knows the model by.",
            )
        return wanted
    if wanted in served:
        return wanted
    if not wanted and len(served) == 1:
        return served[0]
    if ":" not in wanted and f"{wanted}:latest" in served:
        return wanted
    names = shown_models(served, 20)
    said = f"has no model named {shown_model(wanted)!r}" if wanted else "serves several models"
    raise ServerModelNotFound(
        f"The server at {connection.base_url} {said}.", f"It serves: {names}."
    )


def model_entries(connection: ServerConnection) -> tuple[Mapping[str, Any], ...]:
    """The entries of the server's ``/models`` list (none if it has no list)."""
    listing = connection.get_json("/models", missing_ok=True)
    if listing is None:
        return ()
    data = listing.get("data") if isinstance(listing, dict) else None
    if not isinstance(data, list) or not all(
        isinstance(entry, dict) and isinstance(entry.get("id"), str) for entry in data
    ):
        raise connection.invalid("a model list (/models) without a list of models with ids")
    if len(data) > MAX_LISTED_MODELS:
        raise connection.invalid(
            f"a model list (/models) of more than {MAX_LISTED_MODELS:,} models"
        )
    if any(len(entry["id"]) > MAX_MODEL_ID_CHARS for entry in data):
        raise connection.invalid(
            f"a model list (/models) with an id longer than {MAX_MODEL_ID_CHARS:,} characters"
        )
    return tuple(data)


class ServerProbe:
    """One look at a server for the settings window (``run``), which another
    thread can end at once (``stop``, as Reverie quits).

    The address and key are checked on construction (their typed errors);
    nothing is sent until ``run``.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        timeout: float = DEFAULT_PROBE_TIMEOUT_S,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        """*timeout*: the longest the whole probe takes, all its requests together."""
        self.timeout = timeout
        self._connection = ServerConnection(
            base_url,
            api_key,
            connect_timeout=min(timeout, DEFAULT_CONNECT_TIMEOUT_S),
            read_timeout=timeout,
            answer_timeout=timeout,
            probe_timeout=timeout,
            transport=transport,
        )

    def __repr__(self) -> str:
        return f"ServerProbe({self._connection.base_url!r})"

    def run(self) -> ServerInfo:
        """Is the server there, which dialect does it speak, which models does it serve?

        Raises the same typed errors as the backends; ``ServerUnavailable``
        once ``timeout`` has passed, or once stopped.
        """
        connection = self._connection
        connection.deadline = time.monotonic() + self.timeout
        try:
            found = survey(connection)
        finally:
            connection.close()
        return ServerInfo(connection.base_url, found.dialect, found.models)

    def stop(self) -> None:
        """End the probe at once, from any thread (it raises ``ServerUnavailable``)."""
        self._connection.close()


def probe(
    base_url: str,
    api_key: str | None = None,
    *,
    timeout: float = DEFAULT_PROBE_TIMEOUT_S,
    transport: httpx.BaseTransport | None = None,
) -> ServerInfo:
    """Is the server there, which dialect does it speak, which models does it serve?

    For the settings window; raises the same typed errors as the backends,
    within *timeout* seconds in all (``ServerProbe``).
    """
    return ServerProbe(base_url, api_key, timeout=timeout, transport=transport).run()
