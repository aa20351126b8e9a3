"""The code of what a code opens, for ``redaction``: a lock, a key safe, a
gate or a door's keypad, a garage, a shed, an alarm, voicemail.

People say it with whatever words the thing has ("the key box at mum's
(for the nurse) is 2716", "I changed the D-lock to 4418", "the spiral lock
for the kids' scooters is 739", "garage door keypad (the old one) 3381",
"voicemail: 6640", "das Zahlenschloss am Keller ist 4471", "het hangslot
van de schuur heeft code 2903", "koden till porten \u00e4r 7712"), or with
the word "code" alone ("the storage unit takes the code 6034 after hours",
"'Code 482913 to confirm the transfer'").  The value is three to eight
digits or a combination ("22-6-31", "12/40/7") ending its clause, so not
"the dial lock has 3 rings, 1,000 settings", "the lock is 100 years old"
nor "error code 0x80070005".  A locker or an alarm needs a word for its
code ("lockr combo 22-6-31", "allarm code 8830"): "locker 218 is mine" is
a locker's number and "set the alarm to 0630" a time.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from desktop.core.base import text_scan
from desktop.core.privacy.credential_nearby import THANKS

_LOCKS = (
    r"(?:u-|d-|bike\s+|chain\s+|cable\s+|spiral\s+|helmet\s+|combination\s+|number\s+)?"
    r"(?:lock|padlock)|key\s*safe|key\s*box|lock\s*box|key\s+(?:cabinet|cupboard)|safe"
    r"|(?:front|back|side|main|garden|yard|entrance)\s+(?:door|gate)|gate|door\s+keypad|keypad"
    r"|main\s+entrance"
    r"|(?:alarm|deur|poort|door|gate|garage)code|(?:port|d\u00f6rr|larm)kod(?:en)?"
    r"|garage(?:\s+door)?|garadge|shed|intercom|voice\s*mail|mailbox|storage\s+unit"
    r"|listen\s+to\s+(?:my\s+)?messages(?:\s+remotely)?"
    # German, Dutch and the Nordic languages.
    r"|\w*schloss|spind|tresor|(?:garagen|hof|einfahrts|garten)tor|haust\u00fcr|t\u00fcr"
    r"|schl\u00fcssel\w+|(?:fiets|cijfer|hang|ketting|deur|code)slot|kluis(?:je)?|poort|deur"
    r"|\w*l\u00e5s|porten|d\u00f6rr(?:en)?|d\u00f8r(?:en)?"
)
"""What a code opens, with no word for its code needed."""
_NEED_A_CODE_WORD = (
    r"lock(?:e)?rs?|lockr|alarm|allarm|alram|alarm\s*anlage|burglar\s+alarm|building|gym"
    r"|skåp(?:et)?|larm(?:et)?|alarmen"
)
"""What has a number or a setting of its own: its code must be named."""
_CODE_WORD = (
    r"(?:the\s+)?(?:(?:pin|door|gate|entry|access|key)\s*)?(?:code|combo|combination|kombination"
    r"|combinatie|kode(?:n)?|kod(?:en)?|pin|zahlencode)"
)
_VALUE = (
    r"(?P<value>\d{1,2}(?P<sep>[-/ .])\d{1,2}(?:(?P=sep)\d{1,2}){1,3}|\d{3}[- ]\d{3}|\d{3,8})"
    r"(?![\w/.,:-]?\d)(?![\w%\u20ac$\u00a3]|['\u2019]\w)[\"'`\u2019\u201d]?[#*]?"
    r"(?=[ \t]*(?:$|[\n.,;!?()\u2014\u2013-]|(?:for|then|after|before|and|but|so|on|at|or|if"
    r"|when|btw|keys?|I|to|just|und|en|och)\b|(?:" + THANKS + r")(?!\w)|:\)|x+[ \t]*$))"
)
_SIGN = (
    r"(?:\s+(?:is|was|ist|\u00e4r|er|heeft|hat|has|takes|uses|needs|wants|to|=|use|set\s+to"
    r"|opens\s+with|it'?s|then)|[ \t]*(?:[:,=]|->|\u2192|-(?=code)|\u2014|\u2013))"
)
_OPENED = re.compile(
    rf"\b(?:(?P<lock>{_LOCKS})|(?P<other>{_NEED_A_CODE_WORD}))(?:'s|\u2019s)?\b"
    r"(?P<between>[^.!?\n,;:]{0,50}?)"
    rf"(?:{_SIGN}[ \t]*(?P<word>{_CODE_WORD}\b(?:[ \t]+is)?[ \t]*:?\n?)?"
    rf"|[ \t]+(?P<word2>{_CODE_WORD}\b(?:[ \t]+is)?[ \t]*:?\n?)"
    r"|(?<=box|afe|ock|pad)(?P<space>[ \t]+)(?=[\"'`\u2018\u201c]?\d))[ \t]*[\"'`\u2018\u201c]?"
    + _VALUE,
    re.IGNORECASE | re.MULTILINE,
)
"""What a code opens, its sign or the word for its code, then the code."""
_A_PLACE = re.compile(
    r"\b(?:at|by|near|outside|behind|past)[ \t]+(?:the|my|our|your|a)[ \t]+\Z", re.IGNORECASE
)
"""What makes a door or a gate a place to be, not a thing with a code."""
_ALONE = re.compile(
    r"^[ \t]*(?:(?:the|my|our|a)[ \t]+)?(?:[\w'\u2019-]+[ \t]+){0,2}?"
    rf"(?:{_LOCKS})(?:[ \t]+\([^)\n]{{1,30}}\))?[ \t]+{_VALUE}[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)
"""A line that is only what a code opens and its code: "garden gate 5620"."""
_CODE_ALONE = re.compile(
    r"(?<![\w-])(?P<kind>\w+[ \t]+)?code[ \t]*(?:is[ \t]+|[:=][ \t]*)?"
    rf"{_VALUE}",
    re.IGNORECASE | re.MULTILINE,
)
"""The word code and a code: "takes the code 6034 after hours", "Code 482913 to confirm"."""
_CODE_FOR = re.compile(
    r"\bcode[ \t]+(?:for|4|to|of)[ \t]+(?:(?:the|my|our)[ \t]+)?(?:[\w'\u2019-]+[ \t]+){0,2}?"
    rf"(?:{_LOCKS}|doors?|{_NEED_A_CODE_WORD})\b[ \t]*(?::|is|=)?[ \t]*[\"'`\u2018\u201c]?"
    + _VALUE,
    re.IGNORECASE | re.MULTILINE,
)
"""The word code, what it opens, then the code: "code for the side gate 9192",
"code 4 the door 41382" (chat's "4" for "for"), "code for the alarm 8830"
(the word code names what an alarm's or a door's number is)."""
_NOT_SECRET_CODES = frozenset(
    str.split(
        "zip postal post area country dialling dialing error status exit product bar qr source "
        "dress promo promotional discount coupon voucher referral tracking course class tax "
        "colour color hs sort airport ticket flight order booking style time language morse dial "
        "return response http icd"
    )
)
"""Codes that are no secret: "zip code 90210", "error code 1603"."""


_ENTERED = re.compile(
    r"\b(?:accepts?|accepting|rejects?|rejected|rejecting|takes?|entered|typed|tried|trying"
    r"|punched(?:[ \t]+in)?|punch(?:[ \t]+in)?)[ \t]+(?P<value>\d{4,8})(?![\w/.,:-]?\d)"
    r"(?=[ \t]*(?:$|[\n.,;!?)]|(?:and|but|so|or|anymore|again|once|twice|(?:two|three|four|five"
    r"|several|many|a\s+few)\s+times)\b))",
    re.IGNORECASE | re.MULTILINE,
)
"""A PIN entered or refused: "the ATM rejected 6624 twice", "doesn't accept 8071"."""
_WHAT_TAKES_A_PIN = re.compile(
    r"\b(?:atm|card|keypad|door|gate|lock|safe|phone|pin|alarm|sim|garage)\b", re.IGNORECASE
)


_UNLOCK_PATTERN = re.compile(
    r"\b(?:unlock[ \t]+)?pattern(?:[ \t]+lock)?\b[^.!?\n,;:]{0,40}?"
    rf"(?:{_SIGN})?[ \t]*(?P<value>\d(?:(?:[ \t]*(?:-|>|->|\u2192)[ \t]*|[ \t])?\d){{3,8}})"
    r"(?![\w/.,:-]?\d)(?!\w)",
    re.IGNORECASE,
)
"""A phone's unlock pattern by the dots it passes: "pattern 7328", "unlock
pattern is 5 9 4 8", "pattern: 1-5-9-6" (round 27)."""
_A_SCREEN = re.compile(r"\b(?:phone|tablet|ipad|android|unlock|screen|pin|lock)", re.IGNORECASE)
"""What says a pattern unlocks a screen, on its line."""


def secret_spans(text: str) -> Iterator[tuple[int, int]]:
    """Where each code of what a code opens in *text* is."""
    for found in text_scan.matches(_UNLOCK_PATTERN, text):
        line_start = text.rfind("\n", 0, found.start()) + 1
        if _A_SCREEN.search(text, line_start, found.end()):
            yield found.span("value")
    for found in text_scan.matches(_ENTERED, text):
        line_start = text.rfind("\n", 0, found.start()) + 1
        line_end = text.find("\n", found.end())
        line = text[line_start : len(text) if line_end < 0 else line_end]
        if _WHAT_TAKES_A_PIN.search(line):
            yield found.span("value")
    for found in text_scan.matches(_OPENED, text):
        if _A_PLACE.search(text, max(0, found.start() - 16), found.start()):
            continue  # "meet at the gate, 1430" is a time
        # A locker's combination needs no word for it: "my locker is 33-35-13".
        combination = found["sep"] is not None and re.match("lock", found["other"] or "", re.I)
        if found["lock"] or found["word"] or found["word2"] or combination:
            yield found.span("value")
    for found in text_scan.matches(_ALONE, text):
        yield found.span("value")
    for found in text_scan.matches(_CODE_FOR, text):
        yield found.span("value")
    for found in text_scan.matches(_CODE_ALONE, text):
        kind = (found["kind"] or "").strip().lower()
        # Three digits alone are a status more often than a code ("code: 404").
        if kind not in _NOT_SECRET_CODES and len(found["value"]) > 3:
            yield found.span("value")
