"""Secrets taken out of text before it is remembered or shown to the model.

The pattern set is Yelp's detect-secrets (maintained, ~25 providers: AWS,
GitHub, Slack, Stripe, JWTs, private keys...) plus what chat text has and
source code does not: "my password is hunter2", keys of newer providers and
whole PEM blocks.  Each secret is replaced by a marker naming its kind, so
the fact around it survives ("the Wi-Fi password is [redacted password]").
detect-secrets is imported only here.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import cast

from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
from detect_secrets.plugins.base import RegexBasedDetector
from detect_secrets.plugins.keyword import KeywordDetector
from detect_secrets.settings import default_settings

# A public IP address is not a credential.
_NOT_SECRETS = {"Public IP (ipv4)"}

# The value after "password is": a quoted phrase whole; unquoted, its first
# word and the words that follow it (a passphrase: "purple monkey
# dishwasher") up to punctuation or a word that goes on with the sentence
# ("... for the bank").  Better a word too many than a word of it kept.
_TOKEN = r"[^\s\"'`]*[^\s\"'`.,;:!?)]"
_GOES_ON = (
    r"(?:for|at|on|in|to|into|and|or|but|so|which|that|because|since|when|while|with|from|"
    r"of|if|as|is|was|by|i|we|you|he|she|they|it|now|then|too|also|please|thanks|here|there)"
)
_VALUE = (
    r"(?:(?P<quote>[\"'`])(?P<quoted>[^\"'`\n]{3,100})(?P=quote)"
    rf"|(?P<value>(?=[^\s\"'`]{{3}}){_TOKEN}(?:[ \t]+(?!{_GOES_ON}\b){_TOKEN}){{0,5}})"
    r"(?=[.,;:!?)]*(?:\s|$|[\"'`])))"
)

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
    ),
    "token": (re.compile(r"\b[Bb]earer\s+[A-Za-z0-9._~+/=-]{16,}"),),
    "password": (
        # "my password is X", "PIN: 1234", "passphrase = X": the value after the word.
        re.compile(
            r"\b(?:password|passwort|passcode|passphrase|pass word|pin(?: code)?|"
            r"mot de passe|contraseña|(?:alarm|door|access|security|lock|safe|gate|entry|garage)"
            r" code)"
            r"(?:\s+(?:for|of|to)\s+[\w .'-]{1,40}?)?\s*(?:is|was|:|=|->)\s*" + _VALUE,
            re.IGNORECASE,
        ),
    ),
}
_ALMOST_WORDS = frozenset(
    str.split(
        "used stored saved written kept managed required needed expired wrong correct "
        "changed reset updated same different also still very really too easy hard weak "
        "strong long short secure safe simple complicated something nothing private "
        "secret not the a an in on at my your his her their our"
    )
)
"""Words after "my password is" that describe it rather than being it."""
_KEY_LIKE = re.compile(r"(?<![\w/+=-])[A-Za-z0-9+/=_-]{32,}(?![\w/+=-])")
"""A long run of key characters; kept as a secret only if it is random enough."""


@dataclass(frozen=True)
class Redacted:
    text: str
    kinds: tuple[str, ...]
    """What was taken out, one entry per secret, e.g. ("password",)."""


def redact(text: str) -> Redacted:
    """*text* with every secret found replaced by ``[redacted <kind>]``."""
    spans = _merged(sorted(_secret_spans(text)))
    if not spans:
        return Redacted(text, ())
    parts: list[str] = []
    kinds: list[str] = []
    end = 0
    for start, stop, kind in spans:
        parts += [text[end:start], f"[redacted {kind}]"]
        kinds.append(kind)
        end = stop
    parts.append(text[end:])
    return Redacted("".join(parts), tuple(kinds))


def _secret_spans(text: str) -> Iterator[tuple[int, int, str]]:
    for kind, patterns in _patterns():
        for pattern in patterns:
            for match in pattern.finditer(text):
                if "value" not in pattern.groupindex:
                    yield match.start(), match.end(), kind
                    continue
                group = "quoted" if match["quoted"] is not None else "value"
                if match[group].split()[0].casefold() not in _ALMOST_WORDS:
                    yield match.start(group), match.end(group), kind
    for match in _KEY_LIKE.finditer(text):
        if _random_enough(match.group()):
            yield match.start(), match.end(), "credential"
    yield from _keyword_spans(text)


def _random_enough(run: str) -> bool:
    """Mixed letters and digits with high entropy: a key, not a word or a number."""
    classes = sum(bool(re.search(c, run)) for c in ("[a-z]", "[A-Z]", "[0-9]"))
    counts = [run.count(c) for c in set(run)]
    entropy = -sum(n / len(run) * math.log2(n / len(run)) for n in counts)
    return classes == 3 and entropy >= 4.0


def _keyword_spans(text: str) -> Iterator[tuple[int, int, str]]:
    """Assignments such as ``api_key = "..."`` (detect-secrets' keyword rules)."""
    detector = KeywordDetector()
    offset = 0
    with default_settings():
        for line in text.splitlines(keepends=True):
            for found in detector.analyze_line(filename="memory.txt", line=line, line_number=1):
                value = found.secret_value or ""
                position = line.find(value) if value else -1
                if position >= 0:
                    yield offset + position, offset + position + len(value), "password"
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
