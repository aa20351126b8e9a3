"""A ``ChatModel`` on an OpenAI-compatible server, with Stop that works at once.

Every reply is streamed (server-sent events): closing a streamed answer is
what makes a server stop generating, whereas a plain request runs to its end
after the client has gone.  ``should_stop`` is honoured at once, also while
the server is still reading the prompt and nothing has arrived: a watchdog
thread polls it every 50 ms and shuts the connection's socket down, which
ends the blocked read.  The reply then ends with a ``"cancelled"`` chunk.

Structured output is asked for in the shape each server honours (see
``schema_request``); a lazy schema (``json_schema_after``: free text until a
trigger, then JSON) has no server equivalent, so such a request goes out
unconstrained and the caller's validation decides.  Sampling options a server
does not know are left out: OpenAI's own API rejects unknown fields.

A server that ignores ``"stream": true`` and sends the whole reply as one
JSON object gets it taken as the reply (Stop still cuts it); a 200 answer
with not a single event (a web page, an empty body) is an invalid answer
naming what came, never an empty reply.

Every reply ends, whatever the server sends: at its finish (nothing after
it is waited for: a server may follow it with keep-alive comments only), an
event larger than ``MAX_EVENT_CHARS`` is an invalid answer (read no further),
a reply going on well past ``max_tokens`` is cut with finish "length"
(``reply_bounds``), and no event for the read timeout (keep-alive comments do
not count) is a timeout.  An error answer ends within the connection's limits
(``ServerConnection.stream``), and so do the checks of which server it is.

The text is whole characters (``whole_characters``): JSON escapes text as
UTF-16, so a server streaming code units may send an emoji's two surrogates
in two events, or a lone one; a pair is joined across events, and a lone
surrogate becomes U+FFFD, before the text is shown or stored (SQLite, and
any UTF-8 file, refuses a surrogate).
"""

from __future__ import annotations

import json
import logging
import math
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import httpx

from models.errors import ModelError
from models.interfaces import ChatMessage, Chunk, GenerationOptions, ShouldStop
from models.sampling import grammar_for_schema
from models.server_http import (
    DEFAULT_CONNECT_TIMEOUT_S,
    DEFAULT_READ_TIMEOUT_S,
    Dialect,
    ServerConnection,
    ServerDialect,
    ServerRequestRejected,
    ServerSurvey,
    ServerUnavailable,
    Watchdog,
    parse_json,
    resolve_model,
    survey,
    whole_text,
)

log = logging.getLogger(__name__)

DEFAULT_CONTEXT_LENGTH = 4096
MAX_SERVED_CONTEXT = 1 << 24
"""The longest context a server's word is taken for (16M tokens; the longest
real models claim 10M): past it the answer is no context length."""
"""The context assumed when neither the caller nor the server says (as for local models)."""
STOP_POLL_S = 0.05
MAX_EVENT_CHARS = 1 << 20
"""The largest streamed event read (its ``data``, in characters).  Real ones
are a token or a few (about 200 bytes), the last one a usage report (about
1 kB); the largest are whole replies sent as one event by servers that do
not really stream: 4,096 tokens are about 16 kB, some 100 kB with every
character escaped.  A megabyte leaves ten times that."""
_EVENTS_PER_TOKEN = 2
_EVENTS_SLACK = 32
"""Servers send about one event per token (fewer when several tokens go in
one), plus a few without text: the role first, the finish, a usage report."""
_CHARS_PER_TOKEN = 32
_CHARS_SLACK = 1024
"""A token is about 4 characters of prose; the longest in common
vocabularies (runs of spaces or '=' in code) about 16 to 64, never all of them."""

# Servers that take llama.cpp's own sampling fields beside OpenAI's.
_TOP_K_AND_REPEAT = {
    "llama-cpp-python": "repeat_penalty",
    "llama-server": "repeat_penalty",
    "lmstudio": "repeat_penalty",
    "vllm": "repetition_penalty",
}
_SCHEMA_NAME = re.compile(r"[^A-Za-z0-9_-]")
_CUT_FINISHES = frozenset({"content_filter", "abort", "error"})
"""Finish reasons of a reply the server broke off (OpenAI's moderation, vLLM's
aborted request): not a whole reply, as "stop" (or "tool_calls") is."""
_THINKING_FIELDS = ("reasoning_content", "reasoning")
"""Where servers put a thinking model's thoughts (llama-server, vLLM,
DeepSeek's API: ``reasoning_content``; Ollama and OpenRouter: ``reasoning``)."""
_LINE_END = re.compile(r"\r\n|\r|\n")
_SURROGATE = re.compile("[\ud800-\udfff]")
_HIGH_SURROGATES = ("\ud800", "\udbff")


class ServerChatModel:
    """A chat model served over HTTP.  Not thread-safe: one owner (the
    broker) streams; ``close`` may come from any thread.

    The server is looked at on first use, or by ``connect``: its dialect
    (unless given), whether it serves *model*, and its context length (unless
    given).  Until then nothing is contacted, and no attribute ever contacts
    it (``isinstance`` against a protocol reads every attribute).
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        dialect: Dialect = "auto",
        context_length: int | None = None,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT_S,
        read_timeout: float = DEFAULT_READ_TIMEOUT_S,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        """*context_length*: the caller's setting; ``None`` learns it from a
        server that says (llama-server, vLLM), else ``DEFAULT_CONTEXT_LENGTH``."""
        self._connection = ServerConnection(
            base_url,
            api_key,
            connect_timeout=connect_timeout,
            read_timeout=read_timeout,
            transport=transport,
        )
        self.name = model
        self.context_length = context_length or DEFAULT_CONTEXT_LENGTH
        """The caller's setting; else what the server says, once connected."""
        self._context_given = context_length is not None
        self._wanted_dialect = dialect
        self._survey: ServerSurvey | None = None
        self._closed = threading.Event()

    def __repr__(self) -> str:
        return f"ServerChatModel({self.base_url!r}, model={self.name!r}, dialect={self.dialect!r})"

    @property
    def base_url(self) -> str:
        return self._connection.base_url

    @property
    def dialect(self) -> Dialect:
        """The server's dialect; "auto" until the first use found it."""
        return self._survey.dialect if self._survey else self._wanted_dialect

    def connect(self) -> ServerChatModel:
        """Look at the server now (done on first use anyway); raises its typed errors."""
        self._ready()
        return self

    def interrupt(self) -> bool:
        """Cut the request under way (it raises ``ServerUnavailable``), from
        any thread; False while there is none to cut (yet)."""
        return self._connection.interrupt()

    def close(self) -> None:
        """End any reply in flight (it ends "cancelled") and close the connection."""
        self._closed.set()
        self._connection.close()

    # -- streaming ------------------------------------------------------------
    def stream(
        self,
        messages: Sequence[ChatMessage],
        options: GenerationOptions,
        should_stop: ShouldStop | None = None,
    ) -> Iterator[Chunk]:
        stop_requested = _either(should_stop, self._closed.is_set)
        if stop_requested():
            yield Chunk("", "cancelled")
            return
        with Watchdog(
            stop_requested, self._connection.interrupt, poll=STOP_POLL_S, name="reverie-server-stop"
        ) as watchdog:
            try:
                body = chat_request(self._ready().dialect, self.name, messages, options)
                yield from whole_characters(self._reply(body, stop_requested, options.max_tokens))
            except ServerUnavailable:
                if not (watchdog.fired or stop_requested()):
                    raise
                # The connection was cut on purpose (the watchdog, close()): a stop.
                yield Chunk("", "cancelled")

    def _reply(
        self, body: Mapping[str, Any], stop_requested: ShouldStop, max_tokens: int
    ) -> Iterator[Chunk]:
        final: Chunk | None = None
        most_events, most_chars = reply_bounds(max_tokens)
        events = chars = 0
        done = thought = False
        with self._connection.stream("/chat/completions", body, model=self.name) as response:
            if _media_type(response) == "json":  # a server that does not stream
                whole = self._whole_body(response)
                if not whole.strip():
                    raise self._connection.empty(response)
                text, finish, thought = self._event(whole, "message")
                self._refuse_all_thinking(finish, bool(text), thought, max_tokens)
                yield Chunk(text, finish or "stop")
                return
            for data in self._events(response):
                events += 1
                if data == "[DONE]":
                    done = True
                    break
                text, finish, thinking = self._event(data)
                chars += len(text)
                thought = thought or thinking
                if finish is not None:
                    # The reply is whole.  What may follow (a usage report,
                    # [DONE], or keep-alives for minutes) is not waited for:
                    # leaving the stream closes it, the next request reconnects.
                    final = Chunk(text, finish)
                    break
                if stop_requested():
                    yield Chunk(text, "cancelled")
                    return  # leaving the stream closes it: the server stops
                if events > most_events or chars > most_chars:
                    log.warning(
                        "the server at %s went on past %d tokens; the reply was cut",
                        self.base_url,
                        max_tokens,
                    )
                    final = Chunk("", "length")
                    break  # leaving the stream closes it: the server stops
                if text:
                    yield Chunk(text)
        if not events:
            if stop_requested():  # cut on purpose where nothing tells a cut from an end
                yield Chunk("", "cancelled")
                return
            if not response.num_bytes_downloaded:
                raise self._connection.empty(response)
            shown = self._connection.scrub(_media_type(response) or "no type")
            raise self._connection.invalid(f"a reply that is not a stream of events ({shown})")
        if final is None:
            if not done:  # the connection ended as the body did: nothing says it is whole
                raise self._connection.cut_short()
            log.debug("the server at %s ended a reply without a finish reason", self.base_url)
            final = Chunk("", "stop")
        self._refuse_all_thinking(final.finish_reason, chars > 0, thought, max_tokens)
        yield final

    def _refuse_all_thinking(
        self, finish: str | None, said: bool, thought: bool, max_tokens: int
    ) -> None:
        """``ReplyAllThinking`` if a reply cut at its length said nothing but
        its thinking (a thinking model's ``reasoning_content``, which is not
        the reply): else an empty reply, as if the model had nothing to say."""
        if finish == "length" and thought and not said:
            raise ReplyAllThinking(
                f"The model at {self.base_url} spent the whole reply ({max_tokens} tokens) "
                "thinking, and gave no answer.",
                "Raise the longest reply (models.max_reply_tokens), or turn the model's "
                "thinking off on the server.",
            )

    def _events(self, response: httpx.Response) -> Iterator[str]:
        """The data of each event of *response*, within ``MAX_EVENT_CHARS``
        and the read timeout; typed errors otherwise."""
        idle_limit = self._connection.read_timeout
        try:
            yield from sse_data(response.iter_text(), idle_limit=idle_limit)
        except EventTooLarge as error:
            raise self._connection.invalid(
                f"a reply event larger than {MAX_EVENT_CHARS:,} characters"
            ) from error
        except NoEvent as error:
            raise self._connection.timed_out(within=idle_limit) from error

    def _whole_body(self, response: httpx.Response) -> str:
        """The text of a reply sent whole, within ``MAX_EVENT_CHARS`` and the
        read timeout (as one event, which it is instead of a stream of them)."""
        parts: list[str] = []
        size, started = 0, time.monotonic()
        for part in response.iter_text():
            parts.append(part)
            size += len(part)
            if size > MAX_EVENT_CHARS:
                raise self._connection.invalid(
                    f"a reply larger than {MAX_EVENT_CHARS:,} characters"
                )
            if time.monotonic() - started > self._connection.read_timeout:
                raise self._connection.timed_out(within=self._connection.read_timeout)
        return "".join(parts)

    def _event(self, data: str, part: str = "delta") -> tuple[str, str | None, bool]:
        """The text and finish reason ("stop"/"length"/None) of one streamed
        event (or of a reply sent whole: its *part* is "message"), and
        whether it holds the model's thinking."""
        try:
            payload = parse_json(data)
        except ValueError as error:
            if isinstance(data, Unterminated):  # the stream ended inside it
                raise self._connection.cut_short() from error
            raise self._connection.invalid(
                "a reply event that is not JSON (or is nested too deeply to read)"
            ) from error
        if not isinstance(payload, dict):
            raise self._connection.invalid("a reply event that is not a JSON object")
        if "error" in payload:
            reason = self._connection.scrub(json.dumps(payload["error"]))
            raise ServerRequestRejected(f"The server at {self.base_url} broke off: {reason}")
        choices = payload.get("choices")
        if not isinstance(choices, list):
            raise self._connection.invalid("a reply event without choices")
        if not choices:
            return "", None, False  # e.g. a usage report
        choice = choices[0]
        delta = choice.get(part) if isinstance(choice, dict) else None
        if not isinstance(delta, dict):
            raise self._connection.invalid(f"a reply event without a {part}")
        text = delta.get("content") or ""  # reasoning_content (thinking) is not the reply
        thinking = any(delta.get(field) for field in _THINKING_FIELDS)
        finish = choice.get("finish_reason")
        if not isinstance(text, str) or not (finish is None or isinstance(finish, str)):
            raise self._connection.invalid("a reply event with content of the wrong type")
        if finish is None:
            return text, None, thinking
        if finish in _CUT_FINISHES:
            # What came is kept by the caller, told as a reply that did not end.
            shown = self._connection.scrub(finish)
            raise ServerRequestRejected(
                f"The server at {self.base_url} cut the reply short ({shown})."
            )
        return text, "length" if finish == "length" else "stop", thinking

    # -- tokens ---------------------------------------------------------------
    def count_tokens(self, text: str) -> int:
        """Tokens in *text*, by the server's own tokenizer where it has one
        (llama-cpp-python, llama-server, vLLM), else ``estimate_tokens``.

        A count is answered at once by every server, and nothing stops a
        caller waiting for it (a chat turn, and quitting behind it): one not
        answered within the probe time is ``ServerTimedOut``, not ten minutes
        of waiting.

        llama-cpp-python's server reads control-token texts (``<|im_end|>``)
        as control tokens, where the local model counts their characters.
        """
        dialect = self._ready().dialect
        if dialect == "llama-cpp-python":
            body: dict[str, Any] = {"input": text, "model": self.name}
            return self._count(self._post_root("/extras/tokenize/count", body), "count")
        if dialect == "llama-server":
            body = {"content": text, "add_special": False, "parse_special": False}
            return self._count(self._post_root("/tokenize", body), "tokens")
        if dialect == "vllm":
            body = {"model": self.name, "prompt": text, "add_special_tokens": False}
            return self._count(self._post_root("/tokenize", body), "count")
        return estimate_tokens(text)

    def _post_root(self, path: str, body: Mapping[str, Any]) -> Any:
        return self._connection.post_json(path, body, at_root=True, model=self.name, quick=True)

    def _count(self, answer: Any, field: str) -> int:
        value = answer.get(field) if isinstance(answer, dict) else None
        if isinstance(value, list):
            return len(value)
        if type(value) is int and value >= 0:  # not a flag, nor a count below nothing
            return value
        raise self._connection.invalid(f"a token count without {field!r}")

    # -- the server -----------------------------------------------------------
    def _ready(self) -> ServerSurvey:
        """The server's survey, taken on first use; the model name checked."""
        if self._closed.is_set():
            raise ModelError(f"{self!r} is closed")
        if self._survey is None:
            found = survey(self._connection, self._wanted_dialect)
            self.name = resolve_model(self._connection, self.name, found.models)
            if not self._context_given:
                self.context_length = self._served_context_length(found) or self.context_length
            self._survey = found
        return self._survey

    def _served_context_length(self, found: ServerSurvey) -> int | None:
        size: object = None
        if found.dialect == "llama-server":
            props = self._connection.probe_json("/props")
            settings = props.get("default_generation_settings") if isinstance(props, dict) else None
            size = settings.get("n_ctx") if isinstance(settings, dict) else None
        elif found.dialect == "vllm":
            entry = next((e for e in found.entries if e.get("id") == self.name), {})
            size = entry.get("max_model_len")
        # A flag is no number (True is 1 to Python), nor is a claim past any model's.
        return size if type(size) is int and 0 < size <= MAX_SERVED_CONTEXT else None


class ReplyAllThinking(ModelError):
    """A thinking model's reply reached its length before it gave an answer."""


def chat_request(
    dialect: ServerDialect,
    model: str,
    messages: Sequence[ChatMessage],
    options: GenerationOptions,
) -> dict[str, Any]:
    """The body of a streamed ``/chat/completions`` request for a *dialect* server."""
    body: dict[str, Any] = {
        "model": model,
        "messages": [{"role": m.role, "content": m.content} for m in messages],
        "stream": True,
        "max_tokens": options.max_tokens,
        "temperature": options.temperature,
        "top_p": options.top_p,
    }
    if options.seed is not None:
        body["seed"] = options.seed
    if options.stop:
        body["stop"] = list(options.stop)
    if penalty := _TOP_K_AND_REPEAT.get(dialect):
        body["top_k"] = options.top_k
        body[penalty] = options.repeat_penalty
    if options.json_schema is not None and not options.json_schema_after:
        body.update(schema_request(dialect, options.json_schema))
    return body


def schema_request(dialect: ServerDialect, schema: Mapping[str, Any]) -> dict[str, Any]:
    """What asks a *dialect* server for JSON under *schema*.

    llama-cpp-python is given the grammar this process samples under
    (``models.sampling``): its own converter lets raw control characters
    into strings, leaves an integer's bounds out and writes an emoji of a
    fixed text as two surrogates, so an answer the app takes from a model
    in process came back unusable from the same model served.
    llama-server, vLLM, LM Studio and Ollama (whose /v1 maps it to its
    ``format``) take OpenAI's ``json_schema``.  OpenAI's strict mode
    refuses schemas with optional fields, as pydantic's often have, so only
    the servers that ignore or honour it get ``strict``.
    """
    if dialect == "llama-cpp-python":
        return {"grammar": grammar_for_schema(dict(schema))}
    title = schema.get("title")
    name = _SCHEMA_NAME.sub("_", title)[:64] if isinstance(title, str) and title else "answer"
    return {
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": name, "schema": dict(schema), "strict": dialect != "openai"},
        }
    }


def estimate_tokens(text: str) -> int:
    """An estimate, for servers that do not tokenize on request (Ollama, LM
    Studio, OpenAI): ASCII characters / 3 plus 2 per other character.

    Measured against SmolLM2's tokenizer (a small vocabulary, so it needs
    more tokens than most served models): English prose 1.21x the true
    count, Python code 1.34x, German 0.98x, Chinese 1.13x, emoji-laden chat
    1.16x.  Erring high is the safe side: the caller summarises sooner
    rather than overflowing the context.
    """
    ascii_chars = sum(1 for char in text if char < "\x80")
    return math.ceil(ascii_chars / 3 + 2 * (len(text) - ascii_chars))


def reply_bounds(max_tokens: int) -> tuple[int, int]:
    """How many events and characters of text a reply of *max_tokens* tokens
    may have before the client cuts it: well past what any server sends."""
    return (
        _EVENTS_PER_TOKEN * max_tokens + _EVENTS_SLACK,
        _CHARS_PER_TOKEN * max_tokens + _CHARS_SLACK,
    )


def whole_characters(chunks: Iterable[Chunk]) -> Iterator[Chunk]:
    """*chunks* with surrogate pairs joined across chunks and lone surrogates
    replaced by U+FFFD: text that encodes as UTF-8."""
    held = ""  # a high surrogate that may pair with the next chunk's first character
    for chunk in chunks:
        text = held + chunk.text
        held = ""
        if _SURROGATE.search(text) is not None:
            if chunk.finish_reason is None and _is_high_surrogate(text[-1]):
                text, held = text[:-1], text[-1]
            text = whole_text(text)
        if text or chunk.finish_reason is not None:
            yield Chunk(text, chunk.finish_reason)
    if held:  # the chunks ended without a finish: what is held pairs with nothing
        yield Chunk(whole_text(held))


def _is_high_surrogate(char: str) -> bool:
    return _HIGH_SURROGATES[0] <= char <= _HIGH_SURROGATES[1]


class EventTooLarge(ValueError):
    """A streamed event (or one line of it) is over the size bound."""


class Unterminated(str):
    """The data of an event the stream ended inside (no blank line after it):
    whole if it reads as such (a server that ends without the last blank
    line), else cut off, which is the server stopping, not a bad event."""

    __slots__ = ()


class NoEvent(Exception):
    """No event came for the idle limit (comments and partial lines do not count)."""


def sse_data(
    chunks: Iterable[str],
    *,
    limit: int = MAX_EVENT_CHARS,
    idle_limit: float | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[str]:
    """The data of each server-sent event in a stream of text *chunks*:
    ``data:`` lines, joined, up to a blank line.

    Lines end at CR, LF or CRLF only (as the SSE standard says; a U+2028 in
    the text is text).  Comments (``: ping``) and other fields are skipped; a
    bare ``error:`` line, which some llama-server versions send, becomes
    ``{"error": ...}``.  An event or line of more than *limit* characters
    raises ``EventTooLarge`` as soon as it gets there; no event for
    *idle_limit* seconds raises ``NoEvent`` (checked as text comes: a server
    that is silent altogether meets the read timeout).  An event the stream
    ends inside comes last, as ``Unterminated``.
    """
    reader = _EventReader(limit)
    last = clock()
    for chunk in chunks:
        events = reader.feed(chunk)
        if not events and idle_limit is not None and clock() - last > idle_limit:
            raise NoEvent
        for event in events:
            yield event
            last = clock()
    yield from map(Unterminated, reader.feed(None))


class _EventReader:
    """Splits text into lines and lines into events, within a size bound."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._partial: list[str] = []
        self._partial_size = 0
        self._after_cr = False
        self._parts: list[str] = []
        self._size = 0

    def feed(self, chunk: str | None) -> list[str]:
        """The events *chunk* completes (None: the stream ended)."""
        if chunk is None:
            lines = ["".join(self._partial), ""] if self._partial else [""]
            self._partial = []
            return self._events(lines)
        if self._after_cr and chunk.startswith("\n"):
            chunk = chunk[1:]  # the rest of a CRLF split between two chunks
        if not chunk:
            return []
        self._after_cr = chunk.endswith("\r")
        *ended, rest = _LINE_END.split(chunk)
        if ended:
            ended[0] = "".join(self._partial) + ended[0]
            self._partial, self._partial_size = [], 0
        if rest:
            self._partial.append(rest)
            self._partial_size += len(rest)
            if self._partial_size > self._limit:
                raise EventTooLarge
        return self._events(ended)

    def _events(self, lines: list[str]) -> list[str]:
        events: list[str] = []
        for line in lines:
            if not line:
                if self._parts:
                    events.append("\n".join(self._parts))
                    self._parts, self._size = [], 0
                continue
            field, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if field == "data":
                part = value
            elif field == "error":
                part = f'{{"error": {value}}}'
            else:
                continue
            self._size += len(part) + 1
            if self._size > self._limit:
                raise EventTooLarge
            self._parts.append(part)
        return events


def _media_type(response: httpx.Response) -> str:
    """What *response* says it holds: "json" (``application/json`` or a
    ``+json`` type), else its media type as sent ("text/html"), or ""."""
    media = response.headers.get("content-type", "").partition(";")[0].strip().lower()
    return "json" if media == "application/json" or media.endswith("+json") else media


def _either(should_stop: ShouldStop | None, closed: ShouldStop) -> ShouldStop:
    if should_stop is None:
        return closed
    return lambda: closed() or should_stop()
