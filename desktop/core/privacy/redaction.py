"""Secrets taken out of text before it is remembered or shown to the model.

The pattern set is Yelp's detect-secrets (maintained, ~25 providers: AWS,
GitHub, Slack, Stripe, JWTs, private keys...) plus what chat text has and
source code does not: credentials as people say them ("hunter2 is my
password", ``credential_phrases``), keys of newer providers and whole PEM
blocks.  Each secret is replaced by a marker naming its kind, so the fact
around it survives ("the Wi-Fi password is [redacted password]"), and a
secret found once is taken out wherever else it is written.  detect-secrets
is imported only here.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import cast

from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
from detect_secrets.plugins.base import RegexBasedDetector
from detect_secrets.plugins.keyword import DENYLIST, KeywordDetector

from desktop.core.base import text_scan
from desktop.core.privacy import (
    card_codes,
    credential_nearby,
    credential_phrases,
    credential_situations,
    credential_sweep,
    encoded_values,
    keys_named_before,
    listed_values,
    lock_codes,
    named_later,
    otp_secrets,
    question_answers,
    seed_phrases,
    spelled_values,
    table_columns,
    typed_logins,
)
from desktop.core.privacy.credential_nearby import MARKER

# A public IP address is not a credential.  A URL's user and password are
# found by ``credential_phrases``, which keeps the user, and so is an npm
# token (detect-secrets' pattern takes quadratic time over a run of "/").
# IBM's IAM key pattern backtracks
# in cubic time over a run of spaces ("password" and 2,000 spaces: 34 s); its
# keys are 44 random characters, which the randomness rule below finds anyway.
_NOT_SECRETS = {"Public IP (ipv4)", "Basic Auth Credentials", "IBM Cloud IAM Key", "NPM tokens"}

_OWN_PATTERNS: dict[str, tuple[re.Pattern[str], ...]] = {
    "private key": (
        re.compile(
            r"-----BEGIN [A-Z ]*PRIVATE KEY( BLOCK)?-----.*?"
            r"(-----END [A-Z ]*PRIVATE KEY( BLOCK)?-----|\Z)",
            re.DOTALL,
        ),
    ),
    "api key": (
        # OpenAI (sk-, sk-proj-), Anthropic (sk-ant-), Hugging Face, Google.
        re.compile(r"\bsk-[A-Za-z0-9_-]{20,}"),
        re.compile(r"\bhf_[A-Za-z0-9]{30,}"),
        re.compile(r"\bAIza[0-9A-Za-z_-]{35}"),
        re.compile(r"\bgh[pousr]_[A-Za-z0-9_]{36,}"),
        # DigitalOcean, Shopify, Mailgun, Databricks, Square, Vercel.
        re.compile(r"\bdo[por]_v1_[a-f0-9]{64}\b"),
        re.compile(r"\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b"),
        re.compile(r"\bkey-[a-f0-9]{32}\b"),
        re.compile(r"\bdapi[a-f0-9]{32}(?:-\d)?\b"),
        re.compile(r"\bsq0(?:atp|csp)-[0-9A-Za-z_-]{22,43}"),
        re.compile(r"\bvercel_[A-Za-z0-9]{24,}"),
        # Supabase, ElevenLabs, Vault, Pulumi, Neon, Atlassian, Terraform
        # Cloud, Firebase messaging, Discord (a bot's token, a webhook).
        re.compile(r"\bsbp_[a-f0-9]{40}\b"),
        re.compile(r"\bsk_[a-f0-9]{48}\b"),
        re.compile(r"\bhvs\.[A-Za-z0-9_-]{24,}"),
        re.compile(r"\bpul-[a-f0-9]{40}\b"),
        re.compile(r"\bnpg_[A-Za-z0-9]{12,}"),
        re.compile(r"\bATATT3[A-Za-z0-9_=-]{50,}"),
        re.compile(r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}"),
        re.compile(r"\bAAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{20,}"),
        re.compile(r"\b[A-Za-z0-9_-]{24,26}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}\b"),
        re.compile(r"(?<=/api/webhooks/)\d+/[A-Za-z0-9_-]{40,}"),
        # Keys of hex after a short prefix (LangSmith's "lsv2_pt_", round 23),
        # which the randomness rule below misses (no capitals); Airtable's
        # and Postman's.
        re.compile(
            r"\b[a-z][a-z0-9]{1,9}(?:_[a-z]{1,4})?_(?=[a-f0-9]*[a-f])(?=[a-f0-9]*\d)"
            r"[a-f0-9]{32,}(?:_[a-f0-9]{6,})?\b"
        ),
        re.compile(r"\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b"),
        re.compile(r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b"),  # Postman's, named or not
        # age's secret keys, an Azure storage connection string's key.
        re.compile(r"\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b"),
        re.compile(r"(?<=AccountKey=)[A-Za-z0-9+/=]{20,}"),
    ),
    "token": (re.compile(r"\b[Bb]earer\s+[A-Za-z0-9._~+/=-]{16,}"),),
    # An account's recovery key in groups: WhatsApp's backup key (64 digits
    # in fours), Tuta's (hex in fours), Apple's (seven fours of capitals
    # and digits), 1Password's Secret Key ("A3-" and six groups), round 28.
    "recovery key": (
        re.compile(r"(?<![\w-])(?=[0-9a-f ]{0,40}\d)[0-9a-f]{4}(?: [0-9a-f]{4}){7,}(?![\w-])"),
        re.compile(
            r"(?<![\w-])(?=[A-Z0-9-]{0,60}\d)(?=[A-Z0-9-]{0,60}[A-Z])"
            r"[A-Z0-9]{2,6}(?:-[A-Z0-9]{4,6}){5,}(?![\w-])"
        ),
    ),
    # A software licence's key: four to six groups of five capitals and
    # digits ("BTFVH-Q3TH7-7ZN7L-BE472"), Windows' and Office's shape and
    # many others' (round 27).
    "license key": (
        re.compile(
            r"(?<![\w-])(?=[A-Z0-9-]*\d)(?=[A-Z0-9-]*[A-Z])"
            r"[A-Z0-9]{5}(?:-[A-Z0-9]{5}){3,5}(?![\w-])"
        ),
    ),
}
_CONTEXT_CHARS = 200
"""How much of the message before is read with the next one, and how far
into the next one a value it names may start."""
_MIN_REPEATED = 4
"""The shortest secret also taken out where it is written again."""
_KEY_LIKE = re.compile(r"(?<![\w+-])[A-Za-z0-9+_-][A-Za-z0-9+/_-]{31,}={0,2}(?![\w/+=-])")
"""A long run of key characters (``=`` only as base64's padding, so not the
name in ``API_TOKEN=...``; not starting with the ``//`` of a URL); kept as a
secret only if it is random enough."""


@dataclass(frozen=True)
class Redacted:
    text: str
    kinds: tuple[str, ...]
    """What was taken out, one entry per secret, e.g. ("password",)."""
    values: tuple[str, ...] = field(default=(), repr=False)
    """The secrets themselves, for a caller to find them again in what
    follows (``said``); held in memory only, never stored or logged."""
    earlier: tuple[str, ...] = field(default=(), repr=False)
    """Secrets found in what *text* was read after (``after``) once *text*
    named them ("Zx8!pre55", then "^ that's my email password"): for the
    caller to take out of what it stored before (``without``)."""


def redact(text: str, *, after: Iterable[str] = (), said: Iterable[str] = ()) -> Redacted:
    """*text* with every secret found replaced by ``[redacted <kind>]``.

    *after* holds what *text* may answer or go on from (the conversation's
    last messages, the user's own first: "What is the wifi password?" then
    "hunter2", or "my password is" then "hunter2"): *text* is read as
    following each.  Each
    secret in *said* (said earlier, as ``values`` returned) goes wherever
    *text* repeats it."""
    found = _outside_markers(text, list(_secret_spans(text)))
    # Only the seam is read again: the end of the message before (the
    # question, "my password is") and the start of this one (a long paste is
    # not read three times).
    head = text[: 2 * _CONTEXT_CHARS]
    named_before: list[str] = []
    after = list(after)
    for whole in filter(None, after):
        before = whole[-_CONTEXT_CHARS:]
        offset = len(before) + 1
        joined = f"{before}\n{head}"
        for start, stop, kind in _outside_markers(joined, list(_secret_spans(joined))):
            if offset < stop and start < offset + _CONTEXT_CHARS:
                found.append((max(start, offset) - offset, stop - offset, kind))
            elif stop < offset:  # wholly in what came before: named only now
                named_before.append(joined[start:stop])
    # The user's own message before (``after`` is in order, theirs first),
    # not the reply after it: a reply quotes dates and ids a naming is not about.
    named_before.extend(named_later.named_values(text, after[0] if after else ""))
    repeated = [(value, "password") for value in (*said, *named_before)]
    spans = _merged(sorted(found + list(_repeats(text, found, repeated))))
    earlier = tuple(dict.fromkeys(v for v in named_before if len(v) >= _MIN_REPEATED))
    if not spans:
        return Redacted(text, (), earlier=earlier)
    values = tuple(dict.fromkeys(text[start:stop] for start, stop, _ in spans))
    return Redacted(_replaced(text, spans), tuple(kind for *_, kind in spans), values, earlier)


def without(text: str, values: Iterable[str]) -> str:
    """*text* with each of *values* (secrets found elsewhere) taken out
    wherever it stands alone, as ``redact`` takes out what it was *said*."""
    spans = _merged(sorted(_repeats(text, [], [(value, "password") for value in values])))
    return _replaced(text, spans) if spans else text


def _replaced(text: str, spans: Sequence[tuple[int, int, str]]) -> str:
    """*text* with each span replaced by the marker of its kind."""
    parts: list[str] = []
    end = 0
    for start, stop, kind in spans:
        parts += [text[end:start], f"[redacted {kind}]"]
        end = stop
    parts.append(text[end:])
    return "".join(parts)


MOST_TAKEN_OUT = 16_384
"""The most characters taking secrets out may shorten a text by, for a
check of its length before it is read for them (a private key of 8,192
bits is some 6,500 characters; a text rarely holds more than one)."""


def past_any_redaction(text: str, most: int) -> bool:
    """Whether *text* is longer than *most* characters however its secrets
    are taken out: refused for its length unread, it costs no seconds a
    megabyte read for secrets."""
    return len(text) > most + MOST_TAKEN_OUT


SAID_KEPT = 50
"""How many of the secrets found this run a ``Redactor`` looks for again."""


class Redactor:
    """``redact`` with a memory of this run: each secret it takes out is
    taken out again wherever it is typed next, in a message, a memory, a
    task, a skill or a title ("hunter2" caught in a sentence that named it,
    then typed alone into a memory).  One per application, shared by
    everything that stores text; the secrets are held in memory only."""

    def __init__(self) -> None:
        self._said: tuple[str, ...] = ()
        self._lock = threading.Lock()
        self.caught = 0
        """How many times this run caught secrets: what a remembered check
        of a text is good for as long as it stays the same (a secret caught
        since may be in a text that had none before)."""

    def __call__(self, text: str, *, after: Iterable[str] = ()) -> Redacted:
        """*text* redacted (see ``redact``), read after *after*."""
        cleaned = redact(text, after=after, said=self._said)
        if found := (*cleaned.values, *cleaned.earlier):
            with self._lock:
                self._said = tuple(dict.fromkeys((*self._said, *found)))[-SAID_KEPT:]
                self.caught += 1
        return cleaned

    def text(self, text: str) -> str:
        """*text* with its secrets taken out (the text alone)."""
        return self(text).text

    def known(self, text: str) -> str:
        """*text* with the secrets caught this run taken out wherever they
        stand, and nothing else read: what goes to a model, which may quote
        text stored before its secret was named ("when it asks, type X",
        then "X is my NAS password")."""
        said = self._said
        return without(text, said) if said else text

    def within(self, value: object) -> object:
        """``redact_within`` *value*, by this redactor."""
        return redact_within(value, self)


def redaction_notice(kinds: Sequence[str]) -> str:
    """What the user is told when secrets were taken out of a message:
    which kinds, the placeholder they see instead, and why."""
    named = list(dict.fromkeys(kinds))  # each kind once, in the order found
    what = " and ".join(f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}" for kind in named)
    markers = " and ".join(f"[redacted {kind}]" for kind in named)
    return (
        f"Reverie replaced {what} with {markers}: secrets are never stored. "
        "Keep them in a password manager."
    )


def taken_out(typed: str, stored: str) -> tuple[str, ...]:
    """The kinds of the secrets taken out of *typed* to make *stored*: the
    markers *stored* holds that *typed* did not (one typed as such stays)."""
    kinds = Counter(_kind_named(match.group()) for match in MARKER.finditer(stored))
    kinds.subtract(_kind_named(match.group()) for match in MARKER.finditer(typed))
    return tuple(kind for kind, count in kinds.items() for _ in range(max(count, 0)))


def _kind_named(marker: str) -> str:
    return marker.removeprefix("[redacted ").removesuffix("]")


def redact_within(value: object, redactor: Callable[[str], Redacted] = redact) -> object:
    """*value* (JSON-like: dicts, lists, text) with every text in it redacted
    (by *redactor*); keys and the structure stay, so the result is as valid
    as it was."""
    if isinstance(value, str):
        return redactor(value).text
    if isinstance(value, dict):
        return {key: redact_within(item, redactor) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [redact_within(item, redactor) for item in value]
    return value


def _outside_markers(text: str, found: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """*found* cut to what is outside the markers already there: text
    redacted once (a memory, then its prompt line) comes out the same again,
    not as "key is [redacted password]" for "key is [redacted api key]"; a
    value glued to a marker copied from a transcript ("pin: [redacted pin]
    4417") still goes."""
    markers = credential_nearby.Markers(text)
    if not markers.spans:
        return found
    kept = []
    for start, stop, kind in found:
        inside = markers.within(start, stop)
        if not inside:
            kept.append((start, stop, kind))
            continue
        edges = [start, *(edge for span in inside for edge in span), stop]
        for begin, end in zip(edges[::2], edges[1::2], strict=True):
            # After a marker, a word of its own ("[redacted pin] 4417"), not
            # what the marker's value was glued to ("[redacted password]&limit=10").
            glued = begin > start and not text[begin : begin + 1].isspace()
            if begin < end and not glued and (match := _LEFT_VALUE.fullmatch(text, begin, end)):
                kept.append((*match.span("value"), kind))
    return kept


_LEFT_VALUE = re.compile(r"[\s\W]*?(?P<value>(?=\S*\d)\S{4,}?)[\s.,;:!?)\]\"'»]*")
"""What is left of a span beside a marker, if it is a value on its own: one
run of 4 or more characters with a digit, without the signs around it."""


def _repeats(
    text: str, found: list[tuple[int, int, str]], earlier: Iterable[tuple[str, str]] = ()
) -> Iterator[tuple[int, int, str]]:
    """A secret found once, wherever else it is written ("my PIN is 4821;
    type 4821 twice"), and one found *earlier*; values too short to be told
    from other words stay."""
    here = {text[start:stop]: kind for start, stop, kind in reversed(found)}
    values = {v: kind for v, kind in (dict(earlier) | here).items() if len(v) >= _MIN_REPEATED}
    # One pass over the text for all values at once (a minified document or
    # a list of ten thousand PINs yields thousands of them): by their start.
    by_start: dict[str, list[str]] = {}
    for value in values:
        by_start.setdefault(value[:_MIN_REPEATED], []).append(value)
    places: dict[str, list[int]] = {}
    for index in range(len(text) - _MIN_REPEATED + 1) if by_start else ():
        for value in by_start.get(text[index : index + _MIN_REPEATED], ()):
            if text.startswith(value, index) and _stands_alone(text, index, index + len(value)):
                places.setdefault(value, []).append(index)
    for value, starts in places.items():
        if len(starts) > (value in here):
            for start in starts:
                yield start, start + len(value), values[value]


def _stands_alone(text: str, start: int, stop: int) -> bool:
    """Is ``text[start:stop]`` not part of a longer word ("4821" in "48210")?
    An underscore beside it joins it to nothing ("@Walnut1_" holds the
    "@Walnut1" found before)."""
    return not (start and _WORDISH.match(text, start - 1)) and not _WORDISH.match(text, stop)


_WORDISH = re.compile(r"[^\W_]|-")


def _secret_spans(text: str) -> Iterator[tuple[int, int, str]]:
    public = [key.span() for key in _PUBLIC_KEY.finditer(text)] if "AAAA" in text else []
    if ";base64," in text:
        public += [data.span("data") for data in _MEDIA_DATA.finditer(text)]
    if "SHA256:" in text:
        public += [print.span() for print in _FINGERPRINT.finditer(text)]
    if "uses:" in text:
        public += [action.span("ref") for action in _ACTION.finditer(text)]
    public += _requests_answered(text)
    hashes = [digest.span() for digest in _CRYPT_HASH.finditer(text)] if "$" in text else []
    for start, stop, kind in _found(_without_fillers(text)):
        if any(low <= start and stop <= high for low, high in public):
            continue  # an SSH public key, its fingerprint, a picture, an Action: meant to be shared
        if any(low <= start < high for low, high in hashes):
            continue  # a password's hash, not the password: stored as it is (round 34)
        stop = _with_bangs(text, start, stop)
        asked = text[max(0, start - 3) : start].rstrip().endswith("?")
        if not (asked and _ASKED_WHEN.search(text, max(0, start - _CONTEXT_CHARS), start)):
            yield start, stop, kind


def _without_fillers(text: str) -> str:
    """*text* with a speaker's fillers and stammered words blanked out, each
    by as many spaces ("the password, it's, um, X", "it's it's X", round
    32): read as said without them, every place where it was."""
    if _FILLER_SAID.search(text.lower()) is None:
        return text
    return _FILLER.sub(lambda filler: " " * len(filler.group()), text)


_FILLER_SAID = re.compile(r"\b(?:uh+|uhm+|um+|erm|ehm|hmm+|hm|er(?=,))\b")
"""A filler, in lower case: a text without one is read as it is."""
_FILLER = re.compile(
    r"(?:,[ \t]*)?\b(?:uh+|uhm+|um+|erm|ehm|hmm+|hm|er(?=,))\b(?:\.{2,}|,)?(?=[ \t])"
    r"|\b(?P<word>it['\u2019]s|is|the|my|a|and|so|that['\u2019]s|was),?(?=[ \t]+(?P=word)\b)",
    re.IGNORECASE,
)
"""A filler ("uh", "um,", ", hmm", "er," but not "er I mean", a correction),
or a little word said again right after ("it's it's", "the, the")."""


_PUBLIC_KEY = re.compile(
    r"\b(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-nistp\d{3}|sk-ssh-ed25519@openssh\.com)"
    r"[ \t]+AAAA[A-Za-z0-9+/]+={0,2}(?:[ \t]+[\w.@+-]+)?"
)
"""An SSH public key line: its type, its base64 body and a comment ("ana@laptop")."""
_MEDIA_DATA = re.compile(
    r"\bdata:(?:image|audio|video|font)/[\w.+-]+(?:;[\w.+-]+=[\w.+-]+)*;base64,"
    r"(?P<data>[A-Za-z0-9+/]+={0,2})"
)
_ACTION = re.compile(r"\buses:[ \t]*[\"']?(?P<ref>[\w.-]+/[\w./-]+@[\w.-]+)")
"""A GitHub Actions step's action: "uses: docker/login-action@v3", a
repository and its tag or commit, public (round 27)."""
_REQUEST = re.compile(
    r"\b(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)[ \t]+/(?P<path>[^\s?\"]*)"
    r"(?:\?(?P<query>[^\s\"]*))?(?:[ \t]+HTTP/\d(?:\.\d)?)?\"?[ \t]+[1-5]\d\d"
    r"(?:[ \t]+(?:\d+|-))?(?![\w.])"
)
"""A request and its answer, as an access log writes them ("GET
/api/v2/password 200", '"POST /users/password HTTP/1.1" 302 512'): the
path names an endpoint, and a status and a size follow, none a value."""
_QUERY_KEY = re.compile(r"(?:^|&)([^=&]*)=")


def _requests_answered(text: str) -> list[tuple[int, int]]:
    """The spans of *text*'s requests and their answers (``_REQUEST``) whose
    query names no credential (a password in a query is one still)."""
    if " /" not in text:
        return []
    return [
        request.span()
        for request in _REQUEST.finditer(text)
        if not any(
            credential_nearby.names_a_credential(key)
            for key in _QUERY_KEY.findall(request["query"] or "")
        )
    ]


_CRYPT_HASH = re.compile(
    r"(?<![\w$])\$(?:1|2[abxy]?|5|6|7|8|9|y|gy|sha1|md5|argon2(?:id|i|d))\$"
    r"[\w./=,+-]*(?:\$[\w./=,+-]+){1,3}"
)
"""A password's hash as crypt(3), a shadow file and a router store it
("$6$salt$hash", Cisco's "$9$salt$hash"): kept whole, as round 32 keeps a
type-5 secret; a part of it is no value either."""
_BANGS = re.compile(r"!+(?P<goes_on>[,;:]| [a-z])?")
"""Marks of exclamation right after a value: its own last signs when the
sentence goes on after them ("dr@g0n!, spotify: ...", "hunter2Zq9! thanks":
a sentence does not shout mid-clause), or when the value is as a password
policy makes one, a capital inside it, small letters and a digit and the
sign it asks for still missing ("hunter2Zq9!", round 34); else the
sentence's ("my password is Tiger42!", "password: sunshine qwerty!")."""
_POLICY_MADE = re.compile(r"(?=\S*[a-z])(?=\S*\d)[A-Za-z0-9]*[a-z0-9][A-Z][A-Za-z0-9]*")


def _with_bangs(text: str, start: int, stop: int) -> int:
    """Where a value at *start*..*stop* ends with the "!"s that are its own."""
    bangs = _BANGS.match(text, stop)
    if bangs is None or not stop or text[stop - 1].isspace():
        return stop
    if bangs["goes_on"] or _POLICY_MADE.fullmatch(text, start, stop):
        return bangs.end() - len(bangs["goes_on"] or "")
    return stop


_FINGERPRINT = re.compile(r"\bSHA256:[A-Za-z0-9+/]{43}(?![\w+/])")
"""An SSH key's fingerprint, as ``ssh`` and ``ssh-keygen -l`` print it."""
"""A picture, a sound or a font inlined in a data URL ("![logo](data:image/png;base64,
iVBOR...)"): its base64 is the file, random as a key looks."""
_ASKED_WHEN = re.compile(
    r"(?:^|[.!?]\s)\W*(?:when|since when|what (?:year|month|day|date|time)|which (?:year|month|day)"
    r"|how (?:long|many|often|old|much))\b[^.!?\n]*\?\s*\Z",
    re.IGNORECASE | re.MULTILINE,
)
"""A question about when or how many, right before: "What year did you set
your password?" asks for a year, and "2019" answers it."""


def _found(text: str) -> Iterator[tuple[int, int, str]]:
    found = [(*_with_halves(text, start, stop), kind) for start, stop, kind in _found_alone(text)]
    yield from found
    # Said beside others (round 21): the rest of a list one of whose values
    # was found, the old and new values of a change, a row of accounts; a
    # near miss denied beside one (round 31), the other value a correction
    # names (round 34).
    for start, stop in listed_values.siblings(text, found):
        yield start, stop, "password"
    for start, stop in listed_values.denied(text, found):
        yield start, stop, "password"
    for start, stop in listed_values.corrected(text, found):
        yield start, stop, "password"
    readers = (listed_values.lists, listed_values.changes, listed_values.rows, listed_values.pairs)
    for reader in readers:
        for start, stop in reader(text):
            yield start, stop, "password"


def _found_alone(text: str) -> Iterator[tuple[int, int, str]]:
    for kind, patterns in _patterns():
        for pattern in patterns:
            for match in text_scan.matches(pattern, text):
                yield match.start(), match.end(), kind
    readers = (credential_phrases, credential_nearby, credential_sweep, credential_situations)
    for reader in readers:
        for start, stop in reader.secret_spans(text):
            if not _NO_VALUE.fullmatch(text, start, stop) and not _next_setting(text, start):
                yield start, _passphrase_end(text, start, stop), "password"
    # A seed's words are BIP39's, not code: one may start "return" or "raise".
    for start, stop in seed_phrases.secret_spans(text):
        yield start, _passphrase_end(text, start, stop), "password"
    for match in text_scan.matches(_KEY_LIKE, text):
        if _random_enough(match.group()) and not _a_path(match.group()):
            yield match.start(), match.end(), "credential"
    for start, stop in keys_named_before.secret_spans(text):
        yield start, stop, "credential"
    for match in text_scan.matches(_PROVIDER_KEY, text):
        if re.search(r"\d", key := match["key"]) and re.search(r"[A-Za-z]", key):
            yield match.start("key"), match.end("key"), "api key"
    for match in text_scan.matches(_FRAGMENT_KEY, text):
        if any(_MIXED_PART.fullmatch(part) for part in re.split(r"[-_]", match["key"])):
            yield match.start("key"), match.end("key"), "credential"
    for match in text_scan.matches(_BASIC_AUTH, text):
        if _a_user_and_password(match["value"]):
            yield match.start("value"), match.end("value"), "credential"
    for match in text_scan.matches(_CARD_LIKE, text):
        if _a_card_number(re.sub(r"\D", "", match.group())):
            yield match.start(), match.end(), "card number"
    for start, stop in card_codes.secret_spans(text):
        yield start, stop, "card code"
    # Read as said, not the first word of a passphrase: a lock's code, an
    # answer to a security question, a value spelled out, an authenticator's
    # setup key (round 20), a value under its table's header (round 26), a
    # protocol's or a program's login (round 30), one encoded (round 31).
    said_readers = (
        encoded_values,
        lock_codes,
        question_answers,
        spelled_values,
        otp_secrets,
        table_columns,
        typed_logins,
    )
    for reader in said_readers:
        for start, stop in reader.secret_spans(text):
            yield start, stop, "password"
    yield from _keyword_spans(text)


def _with_halves(text: str, start: int, stop: int) -> tuple[int, int]:
    """*start*..*stop* widened to the other half of a code of digits written
    in two ("834 841 is your Instagram code", round 27): a group of as many
    digits right before or after it, a space or a dash between."""
    value = text[start:stop]
    if not _HALF.fullmatch(value):
        return start, stop
    size = len(value)
    if (before := _HALF_BEFORE.search(text, max(0, start - size - 2), start)) and len(
        before["half"]
    ) == size:
        return before.start("half"), stop
    if (after := _HALF_AFTER.match(text, stop)) and len(after["half"]) == size:
        return start, after.end("half")
    return start, stop


_HALF = re.compile(r"\d{3,4}")
_HALF_BEFORE = re.compile(r"(?<![\w.,/:-])(?P<half>\d{3,4})[ -]\Z")
_HALF_AFTER = re.compile(r"[ -](?P<half>\d{3,4})(?![\w.,/:-])")


def _next_setting(text: str, start: int) -> bool:
    """Is *start* in a setting of its own on the line after another: after
    one left empty ("password=\nuser=ana", "password:\nhost: db"), or whole
    after a user's ("username=6001\nrealm=pbx", round 33), not the value
    the line before names?  (Unless its name is a secret's too; one indented
    under it, "password:\n  value: X", is the password's.)"""
    line = text.rfind("\n", 0, start) + 1
    if line == 0:
        return False
    before = _SETTING.match(text, text.rfind("\n", 0, line - 1) + 1)
    setting = _SETTING.match(text, line)
    if before is None or setting is None or before["indent"] != setting["indent"]:
        return False
    if _SECRET_NAMED.search(setting["name"]) or credential_nearby.names_a_credential(
        setting["name"]
    ):
        return False
    return not before["value"] or start == setting.start("name")


_SETTING = re.compile(
    r"(?P<indent>[ \t]*)(?P<name>[\w.-]+)[ \t]*[=:][ \t]*(?P<value>[^\s\\]*)[ \t]*$",
    re.MULTILINE,
)
"""A line holding a setting: its indent, its name and its value, one word or none."""
_SECRET_NAMED = re.compile(r"key|secret|token|code|pass|pin|auth|cred", re.IGNORECASE)
"""In a setting's name, what may make it a secret's ("key: X" under "ssid: Casa")."""


_NO_VALUE = re.compile(
    r"(?:os\.environ|process\.env|secrets|env|vars|inputs|config|settings|form|request|params)"
    r"(?:\.[\w.]*)?(?:\[[^\]]*)?|(?:raise|return|await|new|lambda)\s.*|<[^>]*|[*\u2022]+|x{4,}"
    r"|[\w-]+/[\w.-]+\.git|restablezco|restablecer|r\u00e9initialise[rz]?|reinitialise[rz]?"
    r"|zur\u00fccksetzen|resetten|redefinir|reimpostare|rinnovar(?:e|la|lo)"
    r"|true|false|null|none|nil|undefined"
    r"|later|tbd|tba|n/a|unknown|unchanged|see\s+(?:the\s+)?(?:note|notes|below|above|email|wiki)",
    re.IGNORECASE,
)
"""What stands where a value would and is none (round 20's ordinary
sentences): a value read from the environment or a form
("process.env.STRIPE_SECRET", "secrets.SMTP_PASSWORD"), code ("raise
RuntimeError("), a placeholder ("<put it here>", "**********"), a mask
("AdminPassword=*", round 34), a repository ("team/backend.git"), the verb
asking to reset one ("¿cómo la restablezco?"), a JSON or YAML literal
('"pass": true', "password: null", round 27) or a value left for later
("pin = 'later'", "password: 'see the note'", round 34)."""
_PROVIDER_KEY = re.compile(
    r"\b(?:mistral|groq|cohere|anthropic|openai|deepseek|datadog|mailgun|sendgrid|cloudflare"
    r"|replicate|perplexity|pinecone|elevenlabs|deepl|openrouter|together|fireworks|weather)"
    r"\b[^\n:=]{0,20}?[:=][ \t]*(?P<key>[A-Za-z0-9_-]{24,})(?![\w-])",
    re.IGNORECASE,
)
"""A key named by its service and a sign ("mistral: <32 hex>"): a run of
letters and digits too plain for the randomness rule (round 23)."""
_FRAGMENT_KEY = re.compile(
    r"\bhttps?://[^\s#]{1,200}#(?:[^\s/#]{1,100}/){0,3}(?P<key>[A-Za-z0-9_-]{16,100})(?![\w-])"
)
"""A key in a link's fragment, which never reaches the server: a Bitwarden
Send's, a PrivateBin's, a Mega file's (round 28)."""
_MIXED_PART = re.compile(r"(?=\S*\d)(?=\S*[A-Za-z])\S{8,}")
"""A part of a fragment with letters and digits, no heading's word ("#install-guide-2024")."""
_BASIC_AUTH = re.compile(
    r"(?:\bBasic[ \t]+|(?<![\w-])[\"']?auth[\"']?[ \t]*:[ \t]*[\"']?)"
    r"(?P<value>[A-Za-z0-9+/]{8,}={0,2})(?![\w+/=])",
    re.I,
)
"""HTTP's basic authentication: "Authorization: Basic <user:password in
base64>", as a Docker config holds it too ('"auth": "<base64>"', round 27)."""


def _a_user_and_password(value: str) -> bool:
    """Does *value* decode (base64) to a user and a password ("bob:hunter2")?"""
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        return False
    return ":" in decoded and decoded.isprintable()


_CARD_LIKE = re.compile(r"(?<![\w.,/:+-])\d(?:[ -]?\d){12,18}(?![\w/:+-]|[.,]\d)")
"""13 to 19 digits, maybe in groups (``4111 1111 1111 1111``,
``3782-822463-10005``): a payment card's number if ``_a_card_number``."""
_CARD_NETWORK = re.compile(
    r"4|5[1-5]|2(?:22[1-9]|2[3-9]\d|[3-6]\d\d|7[01]\d|720)|3[47]|3(?:0[0-5]|[689])"
    r"|6(?:011|22|4[4-9]|5)|35(?:2[89]|[3-8])|62"
)
"""The first digits of Visa, Mastercard, American Express, Diners Club,
Discover, JCB and UnionPay numbers."""


def _a_card_number(digits: str) -> bool:
    """Whether *digits* read as a payment card's number: a network's first
    digits and a valid Luhn check digit (a random run passes one in ten)."""
    if not (13 <= len(digits) <= 19 and _CARD_NETWORK.match(digits)):
        return False
    total = 0
    for place, digit in enumerate(reversed(digits)):
        value = int(digit) * (2 if place % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


def _passphrase_end(text: str, start: int, stop: int) -> int:
    """Where a password found at *start*..*stop* ends, if it is the first word
    of a passphrase that goes on to its clause's end: a few more words, one
    with a digit, none that starts what is said next ("is Rain on Tuesday
    4ever", "purple elephant 12 dance", not "hunter2 for the 2 accounts"),
    or words a passphrase's words could be ("login is pebble velvet saffron")."""
    rest = _WORDS_TAIL.match(text, stop)
    if rest is not None and text[start:stop].isalpha() and credential_sweep.a_passphrase(rest):
        return rest.end()
    tail = _PASSPHRASE_TAIL.match(text, stop)
    if tail is None:
        return stop
    words = tail.group().split()
    if (
        any(c.isdigit() for c in tail.group())
        and not any(w.lower() in _NOT_IN_A_PASSPHRASE for w in words)
        and not credential_nearby.names_a_credential(tail.group())  # "X bob password Y"
    ):
        return tail.end()
    return stop


_PASSPHRASE_TAIL = re.compile(
    r"(?:[ \t]+[^\s,;:.!?()\[\]{}\"]{1,20}){1,4}"
    r"(?=[ \t]*(?:[,;.!?)](?!\w)|\n|\Z|(?:lol|haha|btw|now|though|too|again)\b))"
)
_WORDS_TAIL = re.compile(
    r"(?:[ \t]+[^\W\d_]{3,14}){2,7}"
    r"(?=[ \t]*(?:[,;.!?)](?!\w)|\n|\Z|(?:lol|haha|btw|now|though|too|again)\b))"
)
"""A passphrase's words end its clause: not before a "." that goes on
("key X address 0.0.0.0" ends at X, round 34)."""
_NOT_IN_A_PASSPHRASE = frozenset(
    [
        *("for", "when", "if", "because", "cause", "since", "until", "till", "so", "which"),
        *("that", "but", "and", "or", "at", "by", "from", "with", "per", "each", "every"),
        *("is", "was", "are", "were", "will", "i", "you", "we", "it", "my", "your", "please"),
        *("lol", "haha", "btw", "now", "though", "too", "again", "thanks", "days", "times"),
        *("not", "instead", "anymore", "rather"),  # a correction after it: "4821 not 2019"
    ]
)


def _a_path(run: str) -> bool:
    """A file path or URL path ("/home/bob/.local/share/Reverie/models"), not
    a key: half its parts or more are words."""
    parts = run.split("/")
    return len(parts) > 1 and 2 * sum(bool(_PATH_PART.fullmatch(p)) for p in parts) >= len(parts)


_PATH_PART = re.compile(r"|[A-Za-z][a-z]+(?:[-_][A-Za-z0-9]+)*")
"""A part of a path: nothing (a leading or doubled "/"), or a word and its suffixes."""


def _random_enough(run: str) -> bool:
    """Mixed letters and digits with high entropy: a key, not a word or a number."""
    classes = sum(bool(re.search(c, run)) for c in ("[a-z]", "[A-Z]", "[0-9]"))
    counts = [run.count(c) for c in set(run)]
    entropy = -sum(n / len(run) * math.log2(n / len(run)) for n in counts)
    return classes == 3 and entropy >= 4.0


def _keyword_spans(text: str) -> Iterator[tuple[int, int, str]]:
    """Assignments such as ``api_key = "..."`` (detect-secrets' keyword rules)."""
    detector = KeywordDetector()
    # Its settings (detect_secrets.settings.default_settings) are left alone:
    # the line's values do not depend on them, and setting them is process-wide
    # (redaction runs on several threads) and took a quarter of the time.
    for offset, line in _pieces(text):
        if _KEYWORD_NAME.search(line) is None:  # every one of its rules needs one
            continue
        for found in detector.analyze_line(filename="memory.txt", line=line, line_number=1):
            # detect-secrets says what the value is, not where: every
            # place it stands on the line goes.
            value = found.secret_value or ""
            for match in re.finditer(re.escape(value), line) if value else ():
                if not _ABOUT_A_PASSWORD.search(line, 0, match.start()):
                    yield offset + match.start(), offset + match.end(), "password"


_KEYWORD_NAME = re.compile("|".join(DENYLIST), re.IGNORECASE)
"""The names detect-secrets' keyword rules look for ("api_?key", "password"…):
a piece of text naming none is not read by them (most of a long paste)."""
_ABOUT_A_PASSWORD = re.compile(
    r"(?:pass(?:word)?|pwd|secret|token|key)[_-](?:policy|hash|length|min\w*|max\w*|reset|hint"
    r"|rules?|strength|expir\w*|changed\w*|required|type|field|label|prompt|age|header|name"
    r"|param\w*)\W{0,3}[:=]\W{0,3}\Z",
    re.IGNORECASE,
)
"""A key about a password rather than holding one: ``"password_policy": "strong"``."""
_PIECE = 400
"""The longest piece of a line the keyword rules read at once: their patterns
take quadratic time over a long line (a minified document)."""


def _pieces(text: str) -> Iterator[tuple[int, str]]:
    """*text*'s lines with their offsets, a long one in overlapping pieces."""
    offset = 0
    for line in text.splitlines(keepends=True):
        for start in range(0, max(len(line) - _PIECE // 4, 1), _PIECE // 2):
            yield offset + start, line[start : start + _PIECE]
        offset += len(line)


@cache
def _patterns() -> tuple[tuple[str, tuple[re.Pattern[str], ...]], ...]:
    """detect-secrets' regex detectors by the kind of secret, then our own."""
    found: list[tuple[str, tuple[re.Pattern[str], ...]]] = []
    plugins: dict[str, type] = get_mapping_from_secret_type_to_class()
    for secret_type, plugin in plugins.items():
        if issubclass(plugin, RegexBasedDetector) and secret_type not in _NOT_SECRETS:
            # denylist is an abstract property on the base class but a plain
            # tuple of patterns on each detector class.
            denylist = cast("Iterable[re.Pattern[str]]", plugin.denylist)
            found.append((_kind(secret_type), tuple(denylist)))
    found += _OWN_PATTERNS.items()
    return tuple(found)


def _kind(secret_type: str) -> str:
    lowered = secret_type.lower()
    for kind in ("private key", "password", "token"):
        if kind in lowered:
            return kind
    return "credential" if "credential" in lowered else "api key"


def _merged(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Overlapping spans as one, named by the first (outermost) finding."""
    merged: list[tuple[int, int, str]] = []
    for start, stop, kind in spans:
        if merged and start < merged[-1][1]:
            previous = merged[-1]
            merged[-1] = (previous[0], max(previous[1], stop), previous[2])
        else:
            merged.append((start, stop, kind))
    return merged
