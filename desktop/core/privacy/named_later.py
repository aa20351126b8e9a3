"""A value typed in one message and named a secret in the next.

"remind me to text Anna kettle-moon-42", then "that's our wifi password
btw, don't tell anyone": the phrase rules read the two messages across
their seam, which needs the value right before it and no denial anywhere
after.  People name a value they typed a moment ago with a back-reference
("that's my bank PIN", "oops, that was my Netflix password", "I just
pasted my work password"), and often add a "don't tell anyone".  So here
the naming clause alone is read for a denial ("that's *not* my password"),
and the message before gives up its value-shaped words (a digit in four or
more characters, or a sign among six or more letters) wherever they stand,
when it holds no more than ``_MOST`` of them.
"""

from __future__ import annotations

import re

_LEAD = (
    r"(?:^|(?<=[.,;:!?\n]))[\s\W]*"
    r"(?:(?:oops|oh|ah|no|wait|sorry|btw|ok|okay|hmm|actually|damn|shoot|ugh|yes|yeah|and|also)"
    r"\b[\s\W]*){0,4}"
)
_THAT = (
    r"(?:\^+\s*)?"
    r"(?:that|this|it|those|these|the (?:last|previous|above) (?:one|message|line|thing))"
)
_IS = r"(?:\s*['\u2019]s|\s+is|\s+was|\s+were|\s+are)\s+"
_OWNER = r"(?:(?:my|our|the|his|her|their|a|an)\s+)?"
_DESCRIBING = r"(?:[\w'\u2019-]+\s+){0,3}?"
_NOUN = (
    r"(?:password|passcode|passphrase|pass ?word|pin(?: code| number)?|code|login|"
    r"(?:secret |recovery |api |private )?key|secret|security answer)s?\b"
)
# The noun ends its clause ("that's the key point" names nothing).
_CLAUSE_END = (
    r"(?=\s*(?:$|[.,;:!?)\n\u2014\u2013-]|\s(?:btw|by the way|and|but|so|I|please|don['\u2019]t|"
    r"do not|never|just|lol|haha|there|here|in|by mistake|earlier|again|too|now)\b))"
)
_BACK_REFERENCE = re.compile(
    _LEAD + _THAT + _IS + _OWNER + _DESCRIBING + _NOUN + _CLAUSE_END, re.IGNORECASE
)
_TYPED_IT = re.compile(
    r"\bI\s+(?:just\s+|accidentally\s+|mistakenly\s+|stupidly\s+)?"
    r"(?:pasted|typed|sent|wrote|posted|put|shared|gave you)\s+(?:in\s+)?"
    + _OWNER
    + _DESCRIBING
    + _NOUN
    + _CLAUSE_END,
    re.IGNORECASE,
)
_NOT_SECRET_CODE = re.compile(
    r"\b(?:zip|postal|post|area|country|dress|source|promo|discount|coupon|tracking|booking|"
    r"confirmation|reference|error|status|qr|bar|colou?r|dial(?:ling)?|sort|swift|airport)\s+codes?\b",
    re.IGNORECASE,
)
_DENIED = re.compile(r"\b(?:not|never|no longer)\b|n['\u2019]t\b", re.IGNORECASE)
_VALUE_SHAPED = re.compile(
    r"(?<!\S)[\"'\u201c\u2018(]*"
    r"(?P<value>(?=\S*\d)[^\s\"'\u201d\u2019)]{4,}?|(?=\S*[^\w\s])(?=\S*[A-Za-z])[^\s\"'\u201d\u2019)]{6,}?)"
    r"[\"'\u201d\u2019).,!?;:]*(?!\S)"
)
_MOST = 3
"""More value-shaped words than this before: no telling which one was meant."""
_READ = 200
"""How much of the end of the message before is read."""


def named_values(message: str, before: str) -> list[str]:
    """The values of *before* (the message before) that *message* names a
    secret with a back-reference whose own clause denies nothing."""
    naming = _BACK_REFERENCE.search(message[:_READ]) or _TYPED_IT.search(message[:_READ])
    if naming is None or _DENIED.search(naming.group()) or _NOT_SECRET_CODE.search(naming.group()):
        return []
    values = [found["value"] for found in _VALUE_SHAPED.finditer(before[-_READ:])]
    return values if len(values) <= _MOST else []
