"""Secrets written as a program or a device takes them, for ``redaction``.

A password handed to a decoder ("echo <base64> | base64 -d", ``atob("...")``,
``b64decode("...")``, ``Buffer.from("...", "base64")``) goes if what it
decodes to looks like a password (a greeting in base64 stays); a key
listed as its bytes' numbers under a name for a key (Zigbee2MQTT's
``network_key: [1, 3, 5, ...]``, "network key 1, 3, 5, ...") goes whole,
and so do a password's bytes in hex ("76 65 6c 76 65 74 34 32") and a
HomeKit setup code in its shape ("setup code 031-45-154").
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator

from desktop.core.base import text_scan
from desktop.core.privacy.credential_nearby import looks_like_a_value

_NEXT_NUMBER = r"(?:[ \t]*,[ \t]*|\s*\n[ \t]*-[ \t]*)"
_B64 = r"[\"']?(?P<b64>[A-Za-z0-9+/]{6,400}={0,2})[\"']"
_DECODED = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        rf"\becho[ \t]+(?:-n[ \t]+)?{_B64}?[ \t]*\|[ \t]*base64[ \t]+(?:-d|-D|--decode)\b",
        rf"\bbase64[ \t]+(?:-d|-D|--decode)[ \t]+<<<[ \t]*{_B64}?",
        rf"\b(?:atob|b64decode|decodebytes|FromBase64String|Buffer\.from|base64_decode|decode64)"
        rf"[ \t]*\([ \t]*b?{_B64}",
    )
)
"""A base64 literal handed to a shell's, JavaScript's, Python's, .NET's,
Node's, PHP's or Ruby's decoder."""
_KEY_NUMBERS = re.compile(
    r"\b(?:network|pan|link|zigbee|encryption|aes|master)[ _-]?key[\"']?[ \t]*[:=]?[ \t]*\[?"
    rf"(?:\s*\n[ \t]*-)?[ \t]*(?P<list>\d{{1,3}}(?:{_NEXT_NUMBER}\d{{1,3}}){{7,31}})",
    re.IGNORECASE,
)
"""A key written as its bytes' numbers, eight to thirty-two of them, in a
list or a YAML list."""
_HEX_BYTES = re.compile(r"(?<![\w:-])[0-9a-fA-F]{2}(?: [0-9a-fA-F]{2}){5,63}(?![\w:-])")
"""Six to sixty-four bytes in hex, spaced: "76 65 6c 76 65 74" (not a MAC's colons)."""
_HOMEKIT = re.compile(
    r"\b(?:homekit|homebridge|home\s+app|setup|pairing)\b[^\n\d]{0,30}?"
    r"(?P<code>(?<![\d-])\d{3}-\d{2}-\d{3}(?![\d-]))",
    re.IGNORECASE,
)
"""A HomeKit accessory's setup code, in its shape ("031-45-154")."""


def secret_spans(text: str) -> Iterator[tuple[int, int]]:
    """Where each encoded secret in *text* is."""
    for pattern in _DECODED:
        for found in text_scan.matches(pattern, text):
            if _decodes_to_a_password(found["b64"]):
                yield found.span("b64")
    for found in text_scan.matches(_KEY_NUMBERS, text):
        if all(int(number) < 256 for number in re.findall(r"\d+", found["list"])):
            yield found.span("list")
    for found in text_scan.matches(_HEX_BYTES, text):
        if _a_password(bytes.fromhex(found.group().replace(" ", ""))):
            yield found.span()
    for found in text_scan.matches(_HOMEKIT, text):
        yield found.span("code")


def _decodes_to_a_password(value: str) -> bool:
    """Does *value* decode (base64, padded or not) to one word that looks
    like a password ("Tulpen2024!", not "hello world")?"""
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except binascii.Error:
        return False
    return _a_password(decoded)


def _a_password(decoded: bytes) -> bool:
    """Are *decoded* bytes one printable word that looks like a password?"""
    try:
        word = decoded.decode()
    except UnicodeDecodeError:
        return False
    return word.isprintable() and not any(c.isspace() for c in word) and looks_like_a_value(word)
