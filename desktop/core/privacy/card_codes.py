"""A payment card's security code (CVC, CVV, CID), for ``redaction``.

The card's number is found by its digits (``redaction._a_card_number``);
the three or four digits on its back are found by what says they are one:
their name ("cvc 123", "CVV: 123", "cvc123", "security code 123"), or their
place right after the card's expiry date ("4111… 08/29 123", "exp 04/30 /
517").  Only the name CVC or CVV is enough alone; "code", "CID" and an
expiry are read as a card's only near a card's number or name ("amex …
cid 4417", not "case cid 4417"); an expiry needs the card too ("the 10/26
shift, 312 people" holds none).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from desktop.core.base import text_scan

_NAMED = re.compile(
    r"\b(?:(?P<plain>cvc2?|cvv2?|cvn|(?:3|4|three|four)\s+digits\s+on\s+(?:the\s+)?back)|(?P<near>cid|csc|(?:card\s+)?security\s+code|back\s+code"
    r"|code\s+on\s+(?:the\s+)?back|(?:verification|card)\s+code|code"
    # German, French, Spanish, Italian, Dutch, Portuguese (round 27).
    r"|(?:karten)?pr(?:\u00fc|ue|u)f(?:nummer|ziffer|code)|cryptogramme(?:\s+visuel)?"
    r"|c\u00f3digo\s+de\s+seguridad|codice\s+(?:di\s+sicurezza|cvv)|beveiligingscode"
    r"|c\u00f3digo\s+de\s+seguran\u00e7a))"
    r"(?:\s+(?:number|no\.?|code))?(?:\s+(?:is|was|are))?[ \t]*[:=#]?[ \t]*\n?[ \t]*"
    r"[\"'`\u2018\u201c]?(?P<code>\d{3,4})(?![\d/.:,-]?\d)",
    re.IGNORECASE,
)
"""A card's code by its name: "cvc 091", "the CVV is 734", "cid 4417",
"Prüfnummer 444"."""
_EXPIRY_THEN_CODE = re.compile(
    r"\b(?:0[1-9]|1[0-2])[ \t]*/[ \t]*(?:\d\d){1,2}\b\)?[ \t]*[,;/|\u2014\u2013-]?[ \t]*"
    r"(?P<code>\d{3,4})(?![\d/.:,-]?\d)"
)
"""An expiry date, then the code ("07/28, 903", "exp 04/30 / 517")."""
_CARD = re.compile(
    r"\b(?:card|visa|master\s?card|amex|american\s+express|discover|debit|credit|maestro)\b"
    r"|\d{4}[ -]?\d{4,6}[ -]?\d{4,5}",
    re.IGNORECASE,
)
"""What says a card is spoken of: its name or its number's digits."""
_REACH = 120
_NOT_A_CARDS = re.compile(
    r"\b(?:zip|post(?:al)?|area|sort|country|dialling|error|status)\s+\Z", re.IGNORECASE
)
"""Codes named "code" that are no card's: "zip code 9021"."""


def secret_spans(text: str) -> Iterator[tuple[int, int]]:
    """Where each card's security code in *text* is."""
    for found in text_scan.matches(_NAMED, text):
        if _NOT_A_CARDS.search(text, max(0, found.start() - 12), found.start()):
            continue
        if found["plain"] or _near_a_card(text, found.start()):
            yield found.span("code")
    for found in text_scan.matches(_EXPIRY_THEN_CODE, text):
        if _near_a_card(text, found.start()):
            yield found.span("code")


def _near_a_card(text: str, at: int) -> bool:
    """Is a card named or numbered in the few words before *at*?"""
    return _CARD.search(text, max(0, at - _REACH), at) is not None
