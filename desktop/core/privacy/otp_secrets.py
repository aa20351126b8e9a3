"""An authenticator's setup key (a TOTP secret), for ``redaction``.

The key shown beside a QR code is base32: 16 to 64 capitals and digits 2-7
("JBSWY3DPEHPK3PXPQ4ZTMFRGGZDF", "MFZWIZLTOQ4TEMZV"), or the same in
groups of four, often in lower case ("k7qa m2xp 4rtd wn6e").  Letters and
digits alone are many things (a DNA read, a constant's name), so a key is
taken only where its line speaks of an authenticator, two-factor sign-in,
a setup or secret key or a seed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from desktop.core.base import text_scan
from desktop.core.privacy import known_words

_KEY = re.compile(
    r"(?<![\w-])(?:[A-Z2-7]{16,64}|[a-z2-7]{4}(?:[ \t][a-z2-7]{4}){3,15}"
    r"|[A-Z2-7]{4}(?:[ \t][A-Z2-7]{4}){3,15})(?![\w-])"
)
_ABOUT_A_KEY = re.compile(
    r"\b(?:authenticator|authy|2fa|two[- ]factor|2-step|two[- ]step|totp|otp|mfa"
    r"|(?:setup|secret|text|manual|recovery)\s+key|seed|qr\s*code)\b",
    re.IGNORECASE,
)


def secret_spans(text: str) -> Iterator[tuple[int, int]]:
    """Where each authenticator's setup key in *text* is."""
    for found in text_scan.matches(_KEY, text):
        key = found.group().replace(" ", "").replace("\t", "")
        if len(set(key)) < 6 or (
            key.islower() and not any(c.isdigit() for c in key) and _words(found.group())
        ):
            continue  # "AAAAAAAAAAAAAAAA", a row of words (not "duqn lmeu herq gxps")
        low = text.rfind("\n", 0, found.start()) + 1
        high = text.find("\n", found.end())
        if _ABOUT_A_KEY.search(text, low, len(text) if high < 0 else high):
            yield found.span()


def _words(groups: str) -> bool:
    """Is any of the groups of four a word ("back home soon with milk")?"""
    return any(known_words.known(group) for group in groups.split())
