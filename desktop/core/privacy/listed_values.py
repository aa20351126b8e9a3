"""Secrets said beside others, for ``redaction`` (round 21): the rest of a
list once one of its values is a secret, a password changed (the old value
and the new one) and a row of a table of accounts.

A list names what each value is for once, if at all: "phone 7013, laptop
tiger#12, ipad 8495", "passwords: m0nk3y for amazon, letmein42 for ebay",
"the wifi is X, the guest wifi is Y and the router admin is Z".  Once one
part's value is found (by the other readers), every other part of the same
line shaped as a label and a value ("ipad 8495", "the router admin is Z",
"Y for ebay") holds one too, if it looks like one (a digit or a sign in it,
a PIN, a combination) and its label is not what has a number of its own
("room 114", "flight LH2023").

A change has two values: "changed my password from X to Y", "pw change: X
=> Y", "new password: Y (old: X)", "the alarm code changed from 4617 to
6127", "I changed it to Y".  In a line naming a password, a PIN or a code
and a change, the value-shaped word after "from", "to", "old", "it was", an
arrow or before an arrow goes; "changed my mind from pizza to pasta" names
none, "the password policy went from 8 to 12 characters" has no value.

A row of accounts has a name, maybe a user, and the password last, between
bars, tabs, semicolons or commas: "Netflix | bob@x.com | X", "gmail,
jsmith, X", "| PayPal | X |"; the value must be shaped as people make
passwords ("Netflix | drama | 2019" holds none).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from desktop.core.base import text_scan
from desktop.core.privacy.credential_nearby import in_a_links_path, looks_like_a_value
from desktop.core.privacy.credential_situations import password_shaped

_QUOTES = "\"'`\u2018\u2019\u201c\u201d"
_TRAILING = ".,;:!?)" + _QUOTES
_PIN = re.compile(r"\d{3,8}")
_YEAR = re.compile(r"(?:19|20)\d\d")
_COMBINATION = re.compile(r"\d{1,2}([-/.])\d{1,2}(?:\1\d{1,2}){1,3}")
_DOMAIN = re.compile(r"(?:[\w-]+\.)+[A-Za-z]{2,6}")
_NUMBERED = re.compile(
    r"\b(?:room|floor|flight|gate|seat|order|version|v|bus|tram|train|line|page|chapter|section"
    r"|size|year|age|zip|postcode|score|ticket|booking|tracking|model|serial|total|price|number"
    r"|no|tel|phone\s+number|building|apartment|apt|flat|house|street|platform|track|lane"
    r"|locker|ssid|network|user(?:name)?|login|id|handle|name|url|link|site"
    r"|address|ttl|timeout|port|limit|max|min|count|umask|mode)\b",
    re.IGNORECASE,
)
"""Labels of what has a number or a name of its own ("room 114", "flight
LH2023", "gym locker 100", "SSID Vodafone-4F2A", "ttl: 3600")."""
_GATE = re.compile(r"gate", re.IGNORECASE)
_CODE = re.compile(r"\d{4,8}")
"""A gate's code among a list's, longer than an airport's gate number
("gate 4821 / garage 5522", not "gate 12 / seat 14C", round 34)."""
_TAKES_A_PIN = re.compile(
    r"\b(?:phone|iphone|ipad|tablet|android|kindle|laptop|computer|pc|mac\w*|watch|tv|card"
    r"|debit|credit|bank|sim|alarm|safe|padlock|lock|keypad|garage|door|gate|shed|bike|car)\b",
    re.IGNORECASE,
)
"""Labels of what a PIN opens: a PIN of a list is taken only beside one."""
_NETWORK = re.compile(r"\b(?:wi-?fi|hotspot)\b", re.IGNORECASE)
"""Labels of a network, whose name is no secret ("wifi Vodafone-4F2A"): its
value is taken only if shaped as a password."""
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")
_SIGNS_INSIDE = re.compile(r"(?=\S{5})(?=\S*[a-z])[^\W\d_]+(?:[#@$%&*][^\W\d_]+)+[!?#$%&*]*")
"""Words joined by signs no word has inside it: "Pastel#de#nata" (round
34), not "AT&T" (capitals) nor "e-mail"."""


def _a_value(value: str) -> bool:
    """Is *value* shaped as a secret: a password, a PIN that is no year, a
    combination, a word with a digit that is no time, amount or version?"""
    if _COMBINATION.fullmatch(value):
        return True
    if _PIN.fullmatch(value):
        return _YEAR.fullmatch(value) is None
    if _DOMAIN.fullmatch(value) or _EMAIL.fullmatch(value):
        return False
    digit = any(c.isdigit() for c in value)  # "**Tips" and "Brands:**" are markup
    return (
        password_shaped(value)
        or (digit and looks_like_a_value(value))
        or _SIGNS_INSIDE.fullmatch(value) is not None
    )


def _mixed(value: str) -> bool:
    """Does *value* hold a letter and a digit or a sign, as a password does and a PIN does not?"""
    return any(c.isalpha() for c in value) and not value.isalpha()


def _bare(text: str, start: int, stop: int) -> tuple[int, int]:
    """*start*..*stop* without the quotes and signs around a value ("!" may end one)."""
    while start < stop and text[start] in _QUOTES:
        start += 1
    while stop > start and text[stop - 1] in _TRAILING:
        stop -= 1
    return start, stop


# -- the rest of a list ---------------------------------------------------------------
_PART_GAP = re.compile(r"[,;|]|[ \t]/[ \t]|[ \t]+(?:and|&|\u2014|\u2013)[ \t]+")
_SIGN_OFF = (
    r"[ \t]+(?:lol|thx|thanks!*|btw|:\)|[\U0001F300-\U0001FAFF\u2600-\u27BF]+)"
    r"|,?[ \t]*(?:[-\u2013\u2014][ \t]*)?don'?t (?:share|tell)[ \t]+(?:it|them|anyone)"
)
"""What a chat line ends with after its values: "lol", "btw", an emoji,
"don't share it", "- don't tell anyone" (round 34)."""
_CHATTER = re.compile(rf"(?:{_SIGN_OFF}|[.!])+[ \t]*\Z", re.IGNORECASE)
_ENDING = rf"[ \t]*[.!?)]*(?:{_SIGN_OFF})*[ \t]*\Z"
_LABEL_VALUE = re.compile(
    r"[ \t]*(?:[^\n:;,]{0,40}?\b(?:logins?|passwords?|pws|passes|pins|codes|accounts|creds"
    r"|credentials)[ \t]*(?:[-:\u2013\u2014]|are)[ \t]+)?"
    r"(?:(?:and|but|also|plus)[ \t]+)?(?:for[ \t]+)?(?:(?:the|my|our|his|her|their)[ \t]+)?"
    r"(?P<label>[A-Za-z][\w'\u2019+.-]*(?:[ \t]+(?!for\b)[A-Za-z][\w'\u2019+.-]*){0,3}?)"
    r"(?:[ \t]+(?:is|was|are|it'?s)[ \t]+(?:now[ \t]+)?(?:it'?s[ \t]+)?|[ \t]*[:=][ \t]*"
    r"|[ \t]+(?:[-\u2013\u2014]+>?|=>|\u2192)[ \t]+|[ \t]+)"
    r"(?P<value>[^\s]+?)" + _ENDING,
    re.IGNORECASE,
)
"""A part of a list: a label and a value ("ipad 8495", "the guest wifi is X", "phone: 7013"),
the first after what heads the list ("here are my logins - amazon X", round 34)."""
_VALUE_FOR = re.compile(
    r"[ \t]*(?:(?:and|but|also|plus)[ \t]+)?(?P<value>[^\s]+?)[ \t]+for[ \t]+"
    r"(?:(?:the|my|our)[ \t]+)?[\w.+'-]+(?:[ \t]+[\w.+'-]+)?" + _ENDING,
    re.IGNORECASE,
)
"""A part of a list: a value and what it is for ("X for ebay")."""


def siblings(text: str, found: Iterable[tuple[int, int, str]]) -> Iterator[tuple[int, int]]:
    """The values of the other parts of each line holding a secret *found*."""
    lines: dict[int, list[tuple[int, int]]] = {}
    for start, stop, _ in found:
        lines.setdefault(text.rfind("\n", 0, start) + 1, []).append((start, stop))
    for line_start, spans in lines.items():
        line_end = text.find("\n", line_start)
        line_end = len(text) if line_end < 0 else line_end
        if line_end - line_start > 400:  # a paragraph, not a list
            continue
        pins = any(text[start:stop].isdigit() for start, stop in spans)
        for low, high in _parts(text, line_start, line_end):
            if not any(start < high and low < stop for start, stop in spans):
                yield from _part_value(text, low, high, pins=pins, beside_secret=True)


def denied(text: str, found: Iterable[tuple[int, int, str]]) -> Iterator[tuple[int, int]]:
    """The value denied right after a secret *found*, a near miss of it:
    "the code is 4817 (not 4871)", "X, not Y", "X - NOT Y" (round 31); and
    the value said right before a secret *found* denied, of its shape:
    "it's X, not Y" (round 34)."""
    for start, stop, _ in found:
        near = _DENIED.match(text, stop)
        if near and _a_value(near["value"]) and abs(len(near["value"]) - (stop - start)) <= 2:
            yield near.span("value")
        said = _SAID_INSTEAD.search(text, max(0, start - 60), start)
        digits = text[start:stop].isdigit()
        if said and said["value"].isdigit() == digits and _a_value(said["value"]):
            yield said.span("value")


_DENIED = re.compile(
    r"[\"'`]?[ \t]*(?:\(|,|[-\u2013\u2014]+)[ \t]*not[ \t]+[\"'`]?"
    r"(?P<value>[^\s,;()\"'`]+?)[\"'`]?[.!?]*(?=[ \t]*[),;\n]|[ \t]|\Z)",
    re.IGNORECASE,
)
"""A value denied after another: "(not Y", ", not Y", "- NOT 'Y'"."""
_SAID_INSTEAD = re.compile(
    r"(?<![^\s\"'`(])(?P<value>[^\s,;()\"'`]+?)[\"'`]?[ \t]*(?:\(|,|[-\u2013\u2014]+)?[ \t]*"
    r"not[ \t]+[\"'`]?\Z",
    re.IGNORECASE,
)
"""A value right before "not" and the value it denies: "X, not ", "X (not "."""


def corrected(text: str, found: Iterable[tuple[int, int, str]]) -> Iterator[tuple[int, int]]:
    """The other value a correction names in a line holding a secret
    *found*, of its shape (digits for digits): "the door code is 4821, I
    said 4812 before", "it's Y, not X", "the pin is 4821... no, 5521",
    "hmm not X, the guest wifi is Y" (round 34)."""
    for start, stop, _ in found:
        line_start = text.rfind("\n", 0, start) + 1
        line_end = text.find("\n", stop)
        line_end = len(text) if line_end < 0 else line_end
        if line_end - line_start > 400:
            continue
        digits = text[start:stop].isdigit()
        for cue in _CORRECTION.finditer(text, line_start, line_end):
            value = cue["value"]
            if start < cue.end("value") and cue.start("value") < stop:
                continue
            if value.isdigit() == digits and _a_value(value):
                yield cue.span("value")


_CORRECTION = re.compile(
    r"\b(?:i[ \t]+(?:said|wrote|typed|gave[ \t]+you)|not|isn['\u2019]?t|wasn['\u2019]?t"
    r"|instead[ \t]+of|rather[ \t]+than|no|meant)\b,?[ \t]+[\"'`]?"
    r"(?P<value>[^\s,;()\"'`]+?)[\"'`]?[.!?]*(?=[ \t]*[),;\n]|[ \t]|\Z)",
    re.IGNORECASE,
)
"""A value a correction names: "I said X", "not X", "isn't X", "no, X"."""


def lists(text: str) -> Iterator[tuple[int, int]]:
    """The values of a line that is a list of labels and values, two or
    more, one not digits alone ("laptop: 'Ivy?7828' / phone: '0817'")."""
    lines = re.finditer(r"^[^\n]{6,200}$", text, re.MULTILINE)
    # A value of a list's holds a digit or a sign (most of a long paste has none).
    blocks = [list(_parts(text, *line.span())) for line in lines if _SIGNED.search(line.group())]
    blocks += [[item.span("item") for item in items] for items in _runs(_ITEM, text)]
    blocks += [[line.span() for line in lines] for lines in _runs(_LABELLED_LINE, text)]
    for parts in blocks:
        parts = [p for p in parts if not _CHATTER.fullmatch(text, *p)]
        if len(parts) < 2:
            continue
        values = [next(_part_value(text, low, high, words=2), None) for low, high in parts]
        shown = [text[a:b] for a, b in filter(None, values)]
        if all(values) and any(_mixed(value) or password_shaped(value) for value in shown):
            yield from filter(None, values)


_SIGNED = re.compile(r"[\d@$!#*?%&^~+=]")
_ITEM = re.compile(
    r"^[ \t]*(?:[-*+\u2022]|\d{1,2}[.)])[ \t]+(?:\[[ xX]?\][ \t]*)?(?P<item>[^\n]{3,120})$",
    re.MULTILINE,
)
"""An item of a list, its mark (and its box) left out: "- [ ] PayPal 'r0ck3t'"."""


_LABELLED_LINE = re.compile(r"^[ \t]*[A-Za-z][^\n:]{0,30}:[ \t]*[^\s:]+[ \t]*$", re.MULTILINE)
"""A line that is a label and a value: "email: b4nana!!"."""


def _runs(pattern: re.Pattern[str], text: str) -> Iterator[list[re.Match[str]]]:
    """Each run of *pattern*'s lines (list items, labelled lines) one after the other."""
    run: list[re.Match[str]] = []
    for item in text_scan.matches(pattern, text):
        if run and text.count("\n", run[-1].end(), item.start()) != 1:
            yield run
            run = []
        run.append(item)
    if run:
        yield run


def _parts(text: str, low: int, high: int) -> Iterator[tuple[int, int]]:
    """The parts of the list ``text[low:high]``, between its commas, bars, slashes and "and"s."""
    for gap in _PART_GAP.finditer(text, low, high):
        yield low, gap.start()
        low = gap.end()
    yield low, high


def _part_value(
    text: str,
    low: int,
    high: int,
    *,
    pins: bool = False,
    words: int = 4,
    beside_secret: bool = False,
) -> Iterator[tuple[int, int]]:
    """The value of the part ``text[low:high]`` of a list, if it is one: a
    PIN only where *pins* may be or beside what takes one, after a label of
    at most *words* words; a network's value quoted beside a secret is its
    password, not its name ('Wi-Fi "hunter2" | alarm "33268"', round 22)."""
    part = _VALUE_FOR.fullmatch(text, low, high) or _LABEL_VALUE.fullmatch(text, low, high)
    label = part["label"] if part is not None and "label" in part.re.groupindex else ""
    if part is None or len(label.split()) > words:
        return
    start, stop = _bare(text, *part.span("value"))
    value = text[start:stop]
    if _NUMBERED.search(label) and not (_GATE.fullmatch(label) and _CODE.fullmatch(value)):
        return
    if not value or value[0] in "([{" or not _a_value(value):
        return
    if value.isdigit() and not (pins or _TAKES_A_PIN.search(label)):
        return
    quoted = start > low and text[start - 1] in _QUOTES
    # A network's name is capitalised or quoted ("Vodafone-4F2A"); beside a
    # secret, a word and a digit in small letters is its password ("wifi
    # tigerlily6, alarm 553796", round 34).
    beside = beside_secret and _mixed(value) and (quoted or value[:1].islower())
    password = password_shaped(value) or beside
    if _NETWORK.search(label) and not password:
        return
    yield start, stop


# -- a password changed ---------------------------------------------------------------------
_CREDENTIAL = re.compile(
    r"\b(?:pass(?:word|code|phrase|wort)?s?|pw|pwd|pins?|(?:alarm|door|gate|lock|garage|safe"
    r"|entry|access|keypad)\s+code|combo|combination)\b",
    re.IGNORECASE,
)
_CHANGE = re.compile(
    r"\b(?:chang\w*|switch\w*|updat\w*|reset\w*|replac\w*|went|moved|used\s+to|old|new|now)\b"
    r"|->|=>|\u2192",
    re.IGNORECASE,
)
_CHANGE_CUE = re.compile(
    r"(?:\b(?:from|to|was|be|replaced|(?:old|new)(?:[ \t]+one)?|it'?s)\b[ \t]*[:=]?"
    r"|(?:->|=>|\u2192))[ \t]*(?=\S)",
    re.IGNORECASE,
)
_BEFORE_ARROW = re.compile(
    r"(?P<value>[^\s:]+)(?:[ \t]*(?:->|=>|\u2192)|[ \t]+(?:is|was)[ \t]+(?:the[ \t]+)?"
    r"(?:new|old|gone|current|previous)\b)",
    re.IGNORECASE,
)
_VALUE = re.compile(r"[^\s,;()]+")
_PLAIN_CODE = re.compile(r"\bcode\b", re.IGNORECASE)
_OTHER_CODE = re.compile(
    r"\b(?:zip|post(?:al)?|area|country|dress|source|promo|discount|coupon|voucher|error|status"
    r"|exit|return|bar|qr|tracking|product|sort|swift|colou?r|hex|tax|airport|language|region"
    r"|dial(?:ling)?|my|our|your|his|their)\b[\w\s'-]*$",
    re.IGNORECASE,
)
"""What a code is when it is no secret: "the zip code", "error code"; "my code"
is as often a program as a PIN."""
_UNIT = re.compile(r"[ \t]+(?:characters?|chars?|digits?|letters?|times|days|weeks|months)\b")


def changes(text: str) -> Iterator[tuple[int, int]]:
    """The old and new values of each line that names a credential changed,
    or that changes "it" from one password-shaped value to another ("it used
    to be Pancake32 but I switched it to cricket16", round 34)."""
    for line in re.finditer(r"[^\n]+", text):
        if len(line.group()) > 400 or not _CHANGE.search(line.group()):
            continue
        values = list(_changed_values(text, line.start(), line.end()))
        shaped = len(values) >= 2 and all(password_shaped(text[a:b]) for a, b in values)
        if shaped or _names_a_credential(line.group()):
            yield from values


def _names_a_credential(line: str) -> bool:
    """Does *line* name a credential: a password, a PIN, a lock's code, or
    a "code" that is no zip, error or discount code ("the code was 4821
    until they changed it to 6654", round 34)?"""
    if _CREDENTIAL.search(line):
        return True
    return any(
        _OTHER_CODE.search(line, max(0, code.start() - 20), code.start()) is None
        for code in _PLAIN_CODE.finditer(line)
    )


def _changed_values(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """The value-shaped words after "from", "to", "was", an arrow... of the
    line *start*..*end*."""
    starts = [cue.end() for cue in _CHANGE_CUE.finditer(text, start, end)]
    starts += [m.start() for m in _BEFORE_ARROW.finditer(text, start, end)]
    for at in starts:
        if in_a_links_path(text, at):
            continue  # ".../how-to-reset-your-password-2024": a page's name
        value = _VALUE.match(text, at, end)
        if value is None or _UNIT.match(text, value.end()):
            continue
        low, high = _bare(text, *value.span())
        if low < high and _a_value(text[low:high]):
            yield low, high


# -- a row of accounts --------------------------------------------------------------------
_USER = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+|[A-Za-z][\w.-]{1,30}|https?://\S+")
_CELL_LABEL = re.compile(
    r"^[ \t]*(?:website|site|service|user(?:name)?|login)[ \t]*:", re.IGNORECASE
)
"""A cell's own label: "user: jsmith"."""
_MARK = re.compile(r"^[ \t]*(?:[-*+\u2022]|\d{1,2}[.)])[ \t]+")
"""A list item's mark: "\u2022 gmail - bob - X"."""
_NAME = re.compile(r"[A-Za-z][\w.+&'-]*(?: [\w.+&'-]+){0,2}")
_GREETINGS = frozenset(
    str.split("hi hello hey dear thanks thank thx cheers regards best love bye yours sincerely")
)
"""Words that greet, thank or sign off: a cell starting with one is a line of a
note ("Hi Tom, thanks, Maya1990" is signed by its writer's handle)."""


def rows(text: str) -> Iterator[tuple[int, int]]:
    """The password in each row of accounts (a name, maybe a user, the password)."""
    for line in re.finditer(r"[^\n]+", text):
        if len(line.group()) > 300:
            continue
        row = _CHATTER.sub("", line.group())
        row = _MARK.sub(lambda mark: " " * len(mark.group()), row)
        body = row.strip()
        sign = next((s for s in ("|", "\t", ";", ",", "  ", " - ") if s in body), None)
        if sign is None and body.count(":") == 2 and not re.search(r"\s|//", body):
            sign = ":"  # "Hulu:tom_99:X"
        if sign is None:
            continue
        cells = [_CELL_LABEL.sub("", cell) for cell in body.split(sign)]
        bars = sign == "|" and body.startswith("|")
        if bars:
            cells = cells[1:-1] if body.endswith("|") else cells[1:]
        cells = [cell.strip() for cell in cells]
        if not (2 if bars else 3) <= len(cells) <= 4 or not _NAME.fullmatch(cells[0]):
            continue
        if not all(_USER.fullmatch(cell) for cell in cells[1:-1]):
            continue
        if any(cell.split()[0].lower() in _GREETINGS for cell in cells[:-1] if cell):
            continue  # "Hi Tom, thanks, Maya1990": a note signed, not a row
        stop = line.start() + len(row.rstrip().rstrip("|").rstrip())
        start = stop - len(cells[-1])
        start, stop = _bare(text, start, stop)
        value = text[start:stop]
        if re.search(r"\s", value):
            continue
        if start < stop and (password_shaped(value) or (_mixed(value) and _a_value(value))):
            yield start, stop


# -- a user and a password under one label --------------------------------------------
_PAIR = re.compile(
    r"(?:^|(?<=[\s(]))(?:u/p|u/pw|user/pass(?:word)?|user\s*&\s*pass(?:word)?|login\s*&\s*pw)"
    r"[ \t]*[:=-]?[ \t]+(?P<user>[\w.+@-]{2,40})[ \t]+(?P<value>\S{3,64})",
    re.IGNORECASE | re.MULTILINE,
)
"""A label naming a user and a password, then both: "u/p admin X"."""


def pairs(text: str) -> Iterator[tuple[int, int]]:
    """The password after its user under a label naming both (round 22)."""
    for pair in text_scan.matches(_PAIR, text):
        start, stop = _bare(text, *pair.span("value"))
        if start < stop and _a_value(text[start:stop]):
            yield start, stop
