"""A key on a line of its own, named a line or a sentence before it, for ``redaction``.

"here's the key for the backup bucket." then, after a blank line,
"QUJDREVGR0hJSktMTU5PUA=="; "encryption key for the NAS volume" then a line
of 64 hex digits: people name what they paste first and paste it on the
next line (round 25).  The randomness rule of ``redaction`` misses a key in
hex (no capitals) or one shorter than 32 characters, and the phrase rules
need the value right after the word naming it.  So a run of hex or base64
that starts its line (or follows a sentence's end) is a key when the
sentence or lines just before it name a key, a secret, a token, a
passphrase or an API's access, and name no checksum, commit, hash, id or
picture: a SHA-256 or a commit is pasted the same way.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from desktop.core.base import text_scan

_KEY = re.compile(
    r"(?:^|(?<=[.!?:>-] )|(?<=[.!?:>-]  ))[ \t]*(?P<key>"
    r"(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{32,128}"
    r"|(?=[0-9A-F]*[A-F])(?=[0-9A-F]*\d)[0-9A-F]{32,128}"
    r"|(?=[A-Za-z0-9+/]*[\d+/=])(?=[A-Za-z0-9+/]*[A-Z])(?=[A-Za-z0-9+/]*[a-z])"
    r"[A-Za-z0-9+/]{16,}={0,2}"
    r")(?=[ \t]*[.!?]?[ \t]*(?:\n|\Z))",
    re.MULTILINE,
)
"""A run of hex (32 digits or more, one case) or base64 (16 characters or
more, both cases and a digit, a sign or its padding) ending its line, starting it or following a
sentence's end."""
_REACH = 200
"""How far before a key its naming is read, in characters."""
_NAMES_A_KEY = re.compile(
    r"\b(?:(?:api|encryption|decryption|signing|secret|private|master|access|unseal|hmac"
    r"|backup|repo|shared)\s+)?(?:keys?|secrets?|tokens?|passphrases?|passwords?|credentials?)\b"
    r"|\bapi\b",
    re.IGNORECASE,
)
_NAMES_NO_KEY = re.compile(
    r"\b(?:commit|sha\d*(?:sum)?|hash(?:es)?|checksums?|digests?|md5(?:sum)?|uuid|ids?|guid"
    r"|fingerprint|request|trace|build|version|image|logo|picture|photo|icon|tracking|serial"
    r"|order|invoice|transaction|txid|block|etag)\b",
    re.IGNORECASE,
)


_PRIVATE_KEY = re.compile(r"(?<![\w-])(?P<key>(?:0x)?[0-9a-f]{64}|(?:0x)?[0-9A-F]{64})(?![\w-])")
"""256 bits in hex, "0x" or not: a wallet's private key (Ethereum's), a
transaction's hash or a file's SHA-256 alike, so named in its own sentence."""
_SENTENCE = re.compile(r"(?:[.!?](?:\s|\Z)|\n)")


def secret_spans(text: str) -> Iterator[tuple[int, int]]:
    """Where each key named just before it is in *text*: on a line of its
    own or after a sentence, or 256 bits of hex in the sentence naming it
    ("import this key into MetaMask 0x...", round 29)."""
    for match in text_scan.matches(_KEY, text):
        before = text[max(0, match.start() - _REACH) : match.start()]
        # Only the paragraph the key follows, or the one before a blank line.
        if _named_a_key("\n\n".join(before.split("\n\n")[-2:])):
            yield match.span("key")
    for match in text_scan.matches(_PRIVATE_KEY, text):
        before = text[max(0, match.start() - _REACH) : match.start()]
        if _named_a_key(_SENTENCE.split(before)[-1]):
            yield match.span("key")


def _named_a_key(before: str) -> bool:
    """Does *before* name a key, a secret or a token, and no hash or id?"""
    return bool(_NAMES_A_KEY.search(before)) and not _NAMES_NO_KEY.search(before)
