"""What a download reads from a server's answers, and how it tells what went wrong.

Headers are read as HTTP writes them (ASCII digits; an ETag that can be
sent back), so an odd one is ignored rather than raised; a failed connection
or redirect becomes a typed error naming the server it happened at (after a
redirect, the CDN, not the Hub), in words rather than httpx's text.
"""

from __future__ import annotations

import re
import ssl
from urllib.parse import urlsplit

import httpx

from models.errors import DownloadFailed, Offline, ServerError

_SHA256 = re.compile(r"[0-9a-f]{64}")
_DIGITS = re.compile(r"[0-9]+")  # HTTP's numbers: never other scripts' digits, nor '²'
_NUMBER = "[0-9]{1,19}"
"""A size or an offset: at most 19 digits.  No file has 10^19 bytes, so a
longer number is no size (and ``int`` refuses more than 4,300 digits with a
bare ``ValueError``)."""
_SIZE = re.compile(_NUMBER)
_CONTENT_RANGE = re.compile(rf"bytes (?:({_NUMBER})-{_NUMBER}|\*)/({_NUMBER}|\*)")
_STRONG_ETAG = re.compile(r'"[\x21\x23-\x7e]*"')  # one httpx can send back in If-Range
_BROKEN: tuple[tuple[type[httpx.TransportError], str], ...] = (
    (httpx.TimeoutException, "it stopped answering"),
    (httpx.RemoteProtocolError, "it broke off or garbled its answer"),
    (httpx.ProxyError, "the proxy in between failed"),
)
_BROKEN_ANYHOW = "the connection broke"


# -- headers ----------------------------------------------------------------------------
def resumes_at(response: httpx.Response, offset: int) -> bool:
    """Whether *response* continues the part at *offset* (a 206 starting there)."""
    if response.status_code != httpx.codes.PARTIAL_CONTENT:
        return False
    match = _CONTENT_RANGE.fullmatch(response.headers.get("Content-Range", ""))
    return match is not None and match.group(1) is not None and int(match.group(1)) == offset


def retry_after(response: httpx.Response) -> float | None:
    """The seconds a ``Retry-After`` asks for; None for a date or anything else."""
    value = response.headers.get("Retry-After", "").strip()
    return float(value) if _DIGITS.fullmatch(value) else None


def server_sha256(response: httpx.Response) -> str | None:
    """The file's sha256 as the Hub tells it: ``X-Linked-Etag`` on its redirect, else the ETag."""
    for answer in (*response.history, response):
        for header in ("X-Linked-Etag", "ETag"):
            value = str(answer.headers.get(header, "")).removeprefix("W/").strip('"').lower()
            if _SHA256.fullmatch(value):
                return value
    return None


def total_size(response: httpx.Response) -> int | None:
    content_range = _CONTENT_RANGE.fullmatch(response.headers.get("Content-Range", ""))
    if content_range is not None and content_range.group(2) != "*":
        return int(content_range.group(2))
    length = response.headers.get("Content-Length", "")
    return int(length) if _SIZE.fullmatch(length) else None


def usable_etag(etag: str | None) -> str | None:
    """*etag* if it can vouch for bytes kept to resume: a weak one cannot (RFC 9110),
    nor one that cannot be sent back in ``If-Range``."""
    return etag if etag is not None and _STRONG_ETAG.fullmatch(etag) else None


# -- failures ---------------------------------------------------------------------------
def next_download(resumable: bool) -> str:
    """What the next download does with the bytes this one kept: only a part an
    ETag vouches for is resumed, anything else is fetched from its first byte."""
    return "the download resumes where it stopped" if resumable else "the download starts over"


def retry_hint(resumable: bool) -> str:
    return f"Try again later; {next_download(resumable)}."


def unfollowable(url: str, name: str, error: httpx.RequestError) -> ServerError:
    """A server's answer no other attempt could follow: a redirect loop, an address not http(s)."""
    host = _host_of(url, error)
    problem = (
        f"kept redirecting the download of {name}, in a loop"
        if isinstance(error, httpx.TooManyRedirects)
        else f"sent the download of {name} to an address that is not http or https"
    )
    return ServerError(
        f"The server at {host} {problem} (asked for {display_url(url)}).",
        "Check the address of the model server (models.hub_endpoint); if it is right, "
        "the server is misconfigured: try again later.",
    )


def _host_of(url: str, error: httpx.RequestError) -> str:
    """The server *error* happened at: after a redirect, not the one first asked."""
    try:
        asked = error.request.url
    except RuntimeError:  # httpx raised it before it had a request
        return _without_user(urlsplit(url).netloc)
    return asked.netloc.decode("ascii")  # host and port: httpx keeps a user apart


def transport_failure(url: str, error: httpx.TransportError, resumable: bool) -> DownloadFailed:
    host = _host_of(url, error)
    if isinstance(error, httpx.ConnectError | httpx.ConnectTimeout):
        return Offline(
            f"Cannot reach {host}: {why_unreachable(error)}.",
            "Check the internet connection and the address of the model server "
            f"(models.hub_endpoint); {next_download(resumable)}.",
        )
    what = next((words for kind, words in _BROKEN if isinstance(error, kind)), _BROKEN_ANYHOW)
    return ServerError(f"The connection to {host} kept failing: {what}.", retry_hint(resumable))


def why_unreachable(error: httpx.TransportError) -> str:
    """In words: the system's reason the connection failed, not httpx's text of it."""
    if isinstance(error, httpx.ConnectTimeout):
        return "it did not answer in time"
    cause = error.__cause__ or error.__context__
    while cause is not None:
        if isinstance(cause, ssl.SSLError):
            return "the secure connection failed (is its certificate trusted here?)"
        if isinstance(cause, OSError) and cause.strerror:
            return cause.strerror[:1].lower() + cause.strerror[1:]
        cause = cause.__cause__ or cause.__context__
    return "the connection failed"


def display_url(url: str) -> str:
    """*url* without its query: a CDN's signed query string is a credential."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{_without_user(parts.netloc)}{parts.path}"


def _without_user(netloc: str) -> str:
    """*netloc*'s host and port, without a ``user:password@``."""
    return netloc.rpartition("@")[2]
