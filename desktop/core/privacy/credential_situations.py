"""Secrets stated by the situation they are used in, for ``redaction``.

People give a password without a word naming one: "the laptop opens with
Easter2023$", "everything's maya1980 except the work stuff", "hbo =
October2015!!", "use Autumn2026?" right after "How do I get into the shared
drive?", a list under "recovery codes", "gym locker 114, combo 3-33-16",
"SSID FRITZ!Box 7530, then Winter2020$".  The situation is what says it:

- getting in: what opens, unlocks, logs or gets someone into something
  *with* a value, or the value that does ("X unlocks the iPad"), and "to
  get into the NAS, type X";
- the one used everywhere: "the usual one", "same as", "for everything",
  "everything's X except...";
- a label and a sign: "Netflix: X", "hbo = X", "grandma's phone: 4821";
- a network (SSID, Wi-Fi, hotspot), getting in, logging in, unlocking, or
  a note to keep ("note to self", "don't forget"), with a value in its
  sentence (not one named a user: "log in as maya1980");
- a lock: its combination ("3-33-16", "24 18 9") or code after the lock;
- a list of codes under a heading naming backup or recovery codes;
- an answer to a question about getting in ("How do I log into X?" then
  "try X");
- a value named a moment later in its message ("X. that's what I set as
  the twitch password");
- a value weighed or handed over to keep ("how secure is Mango#2024",
  "could someone guess Winter2025!", "keep this for me: X", round 30), or
  corrected ("*X", "oops wrong one, use X instead", round 30).

Only a value shaped as people make passwords is taken (``password_shaped``:
a name or a season and a year, "Maya1980", "October2023!"; letters, digits
and a sign; digits inside letters, "m0nk3y"; a walk along the keyboard,
"poiuyt"), or, where the situation is a lock, a device or getting in, a
PIN or a combination: not "Python3.12", "LH2023", "room 114", "10:30" or
"#4821", which are no such shape, and none of these situations.  Where
only a value can stand ("opens with X", "type X", an answer), and for the
one used everywhere, words joined by dashes or run together count too
("kettle-moon-lamp", "tractorwizardmarble"), and where only a value can
stand a made-up word ("Tolzanwensho"); an ordinary word never does ("opens
with ease", "I use Firefox for everything"), nor a PIN that reads as a year.

Measured on round 17's held-out set (not tuned on; a few of its printed
leaks were read once the rules stood): values stated by situation leaked
382 of 648 before, 247 after; sentences holding no secret changed 1 of 645
before and after.  On the families of ``tests/secret_situations.py``
(``python -m tests.bench.secret_situations``): 79% of 3,300 leaked before,
none after, no everyday sentence changed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from desktop.core.base import text_scan
from desktop.core.privacy import known_words
from desktop.core.privacy.credential_nearby import (
    THANKS,
    a_credential_word,
    in_a_links_path,
    looks_like_a_value,
    made_up,
    names_a_credential,
    plainly_no_secret,
)

_SIGNS = "!@#$%^&*?+=~"
_TOKEN = re.compile(
    # A keypad's sign may wrap a quoted code: "opens with *'4821'#".
    # A "&" inside a value is its own ("Velvet&744"); one before "name=" starts a query's field.
    r"(?:[*#](?=[\"'`\u201c\u2018]))?[\"'`\u201c\u2018\u301d(]*(?P<value>(?:[^\s,;:/=&\"'`\u201c\u201d\u2018\u2019\u301d\u301e\u301f"
    r"()<>\u2014\u2013]|&(?![\w-]+=|amp;))+)"
)
_TRAILING = ".,;:?!)\"'\u201d\u2019"
_NAME_YEAR = re.compile(rf"(?:[A-Z]?[a-z]{{2,}}|[a-z]{{3,}})[{re.escape(_SIGNS)}.]?\d{{2,4}}")
"""A word and a year or a number ("maya1980", "October2023", "Maya!1980", "ethan.08")."""
_LEET = re.compile(r"[a-z]+(?:\d+[a-z]+)+\d*|[a-z]+(?:[@$][a-z]*)+[a-z@$]")
"""Digits or signs inside lower-case letters ("m0nk3y", "c00k13", "b@n@n@")."""
_PRODUCT_VERSION = re.compile(r"(?P<name>[A-Za-z]+)(?:\d{1,2}|_\d{1,4})")
_PRODUCTS = known_words.PRODUCT_NAMES | frozenset(
    str.split(
        "windows office galaxy pixel android ios macos ubuntu fedora debian python java xbox ps "
        "playstation switch surface kindle note iphone ipad watch"
    )
)
"""Products named with their version or number ("Windows10", "Pixel_8841"): no password."""
_CAPITAL_LEET = re.compile(r"[A-Z][a-z]*(?:\d+[a-z]{2,})+\d*|[A-Z][a-z]{2,}_\d{2,4}")
"""Digits inside a capitalised word, or a name and a year joined by "_"
("R1verbend77", "Sp4rrow310", "Lima_1979")."""
_CAMEL_NUMBER = re.compile(
    r"(?P<letters>(?:[iI]|[A-Z][a-z]+|[a-z]{2,})(?:[A-Z][a-z]{1,}){1,3})\d{1,4}"
)
"""Words run together, each capitalised, and a number ("CopperFinch62",
"iMissRio14"); not one word so written ("PowerPoint2016", "iPhone15")."""
_JOINED_WORDS = re.compile(
    r"[A-Z][a-z]{2,}(?:[._][A-Z]?[a-z]{2,}|-[A-Z][a-z]{2,})[!@#$%^&*+=~]{1,3}"
)
"""Two words joined by a dot, an underscore or a dash and a sign after
("Autumn.Pebble#", "Velvet_Badger!", "Cinder-Moth%"; not "Well-done!")."""
_WORD_NUMBERED = re.compile(r"(?P<word>[A-Za-z][a-z]{3,})_\d{1,4}|[a-z]{3,}(?:-[a-z]{3,})+-\d{1,4}")
"""A word numbered as passwords are and names are not (round 24): an
uncommon word by an underscore ("lumiere_9", not "room_12"), dashed words
and a number ("kiwi-mango-3", not "covid-19")."""
_DIGITS = re.compile(r"\d{4,8}")
_YEAR = re.compile(r"(?:19|20)\d\d")
_PIN_GOES_ON = re.compile(r"[ \t]+(?:for|like|apart|except|everywhere|is|as|or|again)\b")
"""What may follow a PIN in its sentence ("I use 4821 for everything")."""
_COMBINATION = re.compile(r"\d{1,2}(?:([- /.])\d{1,2})(?:\1\d{1,2}){1,3}|\d{1,2}(?: \d{1,2}){2,3}")
"""A lock's combination: three or four numbers of one or two digits ("3-33-16", "24 18 9")."""


def password_shaped(value: str) -> bool:
    """Is *value* (without the signs around it) made as people make
    passwords: a word and a number, letters with digits and a sign, digits
    inside letters, a walk along the keyboard, or as a generator does?  Not a time, date, amount,
    version, address or file ("10:30", "3.12", "Python3.12", "a@b.de"),
    nor a code in capitals ("LH2023", "SUP-2291") or a handle ("@maya1980")."""
    if not 5 <= len(value) <= 40 or value[0] in "@#" or "/" in value:
        return False
    if plainly_no_secret(value) or re.search(r"\d\.\d|@\w+\.\w", value):
        return False
    bare = value.rstrip(_SIGNS)
    product = _PRODUCT_VERSION.fullmatch(value)
    if product is not None and product["name"].lower() in _PRODUCTS:
        return False
    if _NAME_YEAR.fullmatch(bare) or _LEET.fullmatch(bare) or known_words.keyboard_walk(bare):
        return True
    if _CAPITAL_LEET.fullmatch(bare) or _JOINED_WORDS.fullmatch(value):
        return True
    if (numbered := _WORD_NUMBERED.fullmatch(value)) and not (
        numbered["word"] and known_words.frequent(numbered["word"])
    ):
        return True
    camel = _CAMEL_NUMBER.fullmatch(bare)
    if camel is not None and not known_words.known(camel["letters"].lower()):
        return True
    if known_words.random_characters(bare) or known_words.random_letters(bare):
        return True  # generated: "7xlNLqu9878j", "EBaRLBUhibPR"
    if _LETTERS_FOR_SIGNS.fullmatch(bare) and sum(c in _SIGNS for c in bare) >= 2:
        return True  # "b@n@n@", "s@ffron*walrus", "Pastel#de#nata"
    signed = any(c in _SIGNS for c in value.lstrip(_SIGNS))
    lower = any(c.islower() for c in value)
    return signed and lower and any(c.isdigit() for c in value)


_LETTERS_FOR_SIGNS = re.compile(r"[^\W\d_]+(?:[!@#$%^&*?~]+[^\W\d_]+)+")
"""Letters with signs inside and no digit: a password typed in leet, or
words joined by signs, which no language writes."""


def secret_spans(text: str) -> Iterator[tuple[int, int]]:
    """Where each value stated by its situation in *text* is; a word naming
    a credential is none ("my p4ssword is too short")."""
    for start, stop in _spans(text):
        if not a_credential_word(text[start:stop]) and not in_a_links_path(text, start):
            yield start, stop


def _spans(text: str) -> Iterator[tuple[int, int]]:
    for cue in text_scan.matches(_GETS_IN_WITH, text):
        yield from _value_after(text, cue.end(), pins=True, loose=True)
    for cue in text_scan.matches(_TO_GET_IN, text):
        yield from _value_after(text, cue.end(), pins=True, loose=True)
    for cue in text_scan.matches(_OPENS, text):
        if _a_value(cue["value"].rstrip(_TRAILING), pins=True, loose=True):
            yield cue.start("value"), cue.start("value") + len(cue["value"].rstrip(_TRAILING))
    for cue in text_scan.matches(_LABELLED, text):
        pins = _DEVICE.search(cue["label"]) is not None
        # A credential's own name is read by the other readers, more closely.
        if not (_OTHER_LABEL.search(cue["label"]) or names_a_credential(cue["label"])):
            short = len(cue["label"].split()) <= 2  # a service's name, "HBO Max"
            yield from _value_after(text, cue.end(), pins=pins, joined=short)
    for setting in text_scan.matches(_SET_BY_SPACE, text):
        if _SECRET_KEY_END.search(setting["key"]):
            yield setting.span("value")
    for part in text_scan.matches(_LABEL_SPACE_VALUE, text):
        if _a_label(part["label"]) and not _after_a_credential_name(text, part.start()):
            value = part["value"].rstrip(".,;:)\"'`\u201d\u2019")  # "!" may end a value
            whole_line = part.group().strip() == _line_of(text, part.start()).strip()
            pins = whole_line and _PIN_LABEL.search(part["label"]) is not None
            if _a_value(value, pins=pins) and not _a_user_name(text, *part.span("value")):
                yield part.start("value"), part.start("value") + len(value)
    for cue in text_scan.matches(_FOR_A_THING, text):
        pins = _DEVICE.search(cue["thing"]) is not None or cue["thing"].lower() == "building"
        yield from _value_after(text, cue.end(), pins=pins)
    for cue in text_scan.matches(_IT_IS_FOR, text):
        value = cue["value"].rstrip(_TRAILING)
        if password_shaped(value) or looks_like_a_value(value):
            yield cue.start("value"), cue.start("value") + len(value)
    for cue in text_scan.matches(_THE_ONE, text):
        yield from _value_after(text, cue.end(), pins=False, joined=True)
    for cue in text_scan.matches(_WHOSE_IS, text):
        if _a_label(cue["label"]) and not _OTHER_LABEL.search(cue["label"]):
            yield from _value_after(text, cue.end(), pins=_DEVICE.search(cue["label"]) is not None)
    for cue in text_scan.matches(_TAKES, text):
        yield from _value_after(text, cue.end(), pins=True, loose=True)
    for cue in text_scan.matches(_DEVICE_CODE, text):
        yield from _value_after(text, cue.end(), pins=True)
    for cue in text_scan.matches(_DEVICE_ADMIN, text):
        token = _TOKEN.match(text, cue.end())
        value = token["value"].rstrip(_TRAILING) if token is not None else ""
        if token is not None and (password_shaped(value) or looks_like_a_value(value)):
            yield token.start("value"), token.start("value") + len(value)
    for cue in text_scan.matches(_LOCK, text):
        yield from _lock_value(text, cue)
    read = 0  # sentences overlap where cues crowd: each word is read once
    for cue in text_scan.matches(_IN_ITS_SENTENCE, text):
        low, high = _sentence(text, cue.start(), cue.end())
        near = cue.span() if cue["same"] else None
        yield from _values_in_sentence(text, max(low, read), high, near)
        read = max(read, high)
    for quoted in text_scan.matches(_QUOTED_VALUE, text):
        if password_shaped(quoted["value"].rstrip(".,")) and _quoted_as_a_value(text, quoted):
            yield quoted.start("value"), quoted.start("value") + len(quoted["value"].rstrip(".,"))
    for cues in (_TROUBLE, _WEIGHED, _CORRECTED):
        read = 0
        for cue in text_scan.matches(cues, text):
            low, high = _sentence(text, cue.start(), cue.end())
            yield from _values_in_sentence(text, max(low, read), high, None)
            read = max(read, high)
    if "*" in text:
        for cue in text_scan.matches(_STARRED, text):
            yield from _values_in_sentence(text, cue.end(), _sentence(text, *cue.span())[1], None)
    for cue in text_scan.matches(_ASKED_HOW_TO_GET_IN, text):
        yield from _value_after(text, cue.end(), pins=True, loose=True)
        line_end = text.find("\n", cue.end())
        high = min(len(text) if line_end < 0 else line_end, cue.end() + _ANSWER_REACH)
        yield from _values_in_sentence(text, cue.end(), high, (cue.end(), cue.end()))
    for cue in text_scan.matches(_PROMPTED, text):
        yield from _typed(text, cue.end(), pins=True)
    for cue in text_scan.matches(_ASKED_FOR, text):
        yield from _typed(text, cue.end(), pins=cue["way_in"] is not None)
    for cue in text_scan.matches(_ASKED_FOR_A_SECRET, text):
        yield from _typed(text, cue.end(), pins=True)
    for cue in text_scan.matches(_CODES_HEADING, text):
        yield from _listed_codes(text, cue.end())
    for cue in text_scan.matches(_CODES_NAMED, text):
        if (cue["kind"] or "").lower() not in _PUBLIC_CODES:
            yield from _alike_codes(text, cue.end())
    for cue in text_scan.matches(_NAMED_AFTER, text):
        yield from _value_before(text, cue.start())
    for said in text_scan.matches(_SAID_TWICE, text):
        if password_shaped(said["value"]) or _SIGNED.fullmatch(said["value"]):
            yield said.span("value")


_ME = r"(?:(?:you|me|us|him|her|them|one|people|everyone)\s+)?"
_GETS_IN_WITH = re.compile(
    r"\b(?:opens?|opened|opening|unlocks?|unlocked|unlocking|(?:gets?|got|lets?)\s+"
    + _ME
    + r"(?:in(?:to)?|on)"
    r"|(?:logs?|logged|signs?|signed)\s+" + _ME + r"(?:in(?:to)?|on(?:to)?)|joins?|connects?"
    r"|access(?:es|ed)?)"
    r"\b(?:[^.!?\n]|!(?=\w)){0,40}?\b(?:with|using|via|by (?:typing|entering))\s+",
    re.IGNORECASE,
)
"""What opens, unlocks, logs or gets someone in *with* a value."""
_TO_GET_IN = re.compile(
    r"\b(?:to|can't|cannot|can)\s+(?:open|unlock|get\s+(?:in(?:to)?|on(?:to)?)|access"
    r"|log\s*(?:in(?:to)?|on)|sign\s*(?:in(?:to)?|on)|get\s+past)\b[^.!?\n:,]{0,40}?"
    r"(?:(?:,|\s*:)\s*(?:(?:it'?s|use|type|enter|try|put\s+in|just)\s+)?"
    r"|\s+(?:it'?s|it\s+is|use|type|enter|try|put\s+in|just)\s+)"
    r"|\bgetting\s+(?:in(?:to)?|on(?:to)?)\b[^.!?\n:]{0,40}:\s*",
    re.IGNORECASE,
)
"""The way in, then the value: "to unlock the laptop it's X", "getting into the NAS: X"."""
_OPENS = re.compile(
    r"(?:^|(?<=[.!?:\n])[ \t]*|\b(?:and|but|so|then|ok|okay|oh|fyi|btw|note|also|just|that|saying"
    r"|use|type|enter|need|try|punch\s+in|key\s+in|tap\s+in)\s+)"
    r"(?P<value>[^\s,;]{1,40})\s+(?:opens|unlocks"
    r"|(?:gets|lets|logs|(?:will|should|can|would)\s+(?:get|let))\s+(?:you|me|us|them)\s+"
    r"(?:in|into|on)|(?:to|and)\s+(?:get|log|sign)\s+(?:in|on)|and\s+(?:you|we)(?:'re|\s+are)\s+in)\b",
    re.IGNORECASE | re.MULTILINE,
)
"""The value that opens or gets someone in, starting its clause: "X unlocks the iPad"."""
_LABELLED = re.compile(
    r"(?:^|(?<=[\n,;]))[ \t]*(?:[-*\u2022][ \t]*(?:\[[ xX]?\][ \t]*)?)?"
    r"(?P<label>[A-Za-z][\w+&'\u2019!]*(?:[ \t][\w+&'\u2019!]+){0,2}?)"
    r"[ \t]*(?:=>|->|\u2192|[:=]|[ \t][-\u2013\u2014])[ \t]*\n?[ \t]*",
    re.MULTILINE,
)
"""A label and a sign starting a line or a part of a list ("Netflix: X", "hbo = X")."""
_LABEL_SPACE_VALUE = re.compile(
    r"(?:^|(?<=[,;:]))[ \t]*(?:[-*\u2022][ \t]*(?:\[[ xX]?\][ \t]*)?)?"
    r"(?P<label>[A-Za-z][\w'\u2019&+-]*(?:[ \t]+[A-Za-z][\w'\u2019&+-]*){0,2}?)"
    r"[ \t]+[\"'`\u2018\u201c]?(?P<value>[^\s,;=:]+)[ \t]*"
    rf"(?=[,;]|$|(?:{THANKS})[ \t]*$)",
    re.MULTILINE | re.IGNORECASE,
)
"""A label and a value with no sign between, a line or a part of a list to
itself ("Tidal Sw@llow38", "hulu X, max Y", "garage 6071"), maybe thanked
("Home Assistant: deploy Tulpen2024! kiitos", round 25); a quote opening
the value is not its own ('passkey "Aaa0!x"' keeps its quotes)."""


_SET_BY_SPACE = re.compile(
    r"(?:^|(?<=[{;(]))[ \t]*(?P<key>[A-Za-z_][\w.-]*)[ \t]+([\"'])(?P<value>[^\"'\s$]{3,100})\2"
    r"(?=[ \t]*(?:[;})]|$))",
    re.MULTILINE,
)
"""A setting of a build script or a server's config, its name, a space
and its quoted value: Gradle's ``storePassword "X"`` inside its braces,
``auth_pass "X";`` (round 31)."""
_SECRET_KEY_END = re.compile(
    r"(?:(?<!by)pass(?:word|wd|phrase)?|pwd|pw|secret|token|api_?key)\Z", re.I
)
"""The end of a setting's name that holds a secret: ``keyPassword``, ``rootpw``."""


def _a_label(label: str) -> bool:
    """Do the words *label* name a service or a thing ("work laptop"), not
    say something ("I love", "see you at")?"""
    words = label.split()
    return not (
        any(known_words.common(word) or word.lower() in _SAYING for word in words)
        or _OTHER_LABEL.search(label)
        or names_a_credential(label)
    )


_SAYING = frozenset(
    str.split(
        "happy birthday hi hello hey thanks thank congrats congratulations dear love go welcome "
        "merry toyota honda ford then and or but so also now just maybe try use with plus not"
    )
)
"""Words that greet, name a car model or join what is said, not a service:
"Happy Birthday Emma1990", "then qwerty"."""


def _after_a_credential_name(text: str, at: int) -> bool:
    """Does the part at *at* follow a credential's own name and its colon
    ("password: sunshine qwerty!")?  Then it is that credential's value, a
    passphrase, read whole by the other readers; not a label and a value
    (which would take the "!" ending the sentence with it, round 22)."""
    before = text[max(0, at - 40) : at]
    if not before.endswith(":"):
        return False
    return names_a_credential(before[:-1].rsplit("\n", 1)[-1].split(",")[-1][-20:])


def _line_of(text: str, at: int) -> str:
    end = text.find("\n", at)
    return text[text.rfind("\n", 0, at) + 1 : len(text) if end < 0 else end]


_FOR_A_THING = re.compile(
    r"(?:^|(?<=[.!?\n])|\b(?:ok|okay|and|also|so)\b)[ \t]*for[ \t]+"
    r"(?:(?:the|my|our|\w+'s|\w+\u2019s)[ \t]+)?(?:[\w'\u2019-]+[ \t]+){0,2}?"
    r"(?P<thing>[\w'\u2019-]+)(?:,[ \t]*|[ \t]+(?:it'?s|it\u2019s|is)[ \t]+)",
    re.IGNORECASE | re.MULTILINE,
)
"""A message that starts with what its value is for: "for the old iPad it's 7730"."""
_THE_ONE = re.compile(
    r"\bthe[ \t]+(?:(?:[\w'\u2019-]+[ \t]+){1,3}one|one[ \t]+for[ \t]+[^.!?\n,]{1,40}?)"
    r"[ \t]+(?:is|was)[ \t]+",
    re.IGNORECASE,
)
"""The one for something, named by what it opens: "the pension site one is Bramble#27"."""
_WHOSE_IS = re.compile(
    r"\b(?:my|his|her|their|our|your)[ \t]+(?P<label>[A-Za-z][\w+&-]*)[ \t]+(?:is|was)[ \t]+",
    re.IGNORECASE,
)
"""Someone's service and what it is, as told or retold: "my netflix is X",
"Dad said his netflix was X" (round 25)."""
_OTHER_LABEL = re.compile(
    r"\b(?:user(?:name)?|login|e-?mail|mail|id|account|handle|name|nick\w*|url|link|site"
    r"|address|flight|order|room|gate|seat|version|ref\w*|zip|tel|phone number|time|date"
    r"|score|ticket|booking|tracking|model|serial|size|total|price|code name|team|tag)\b"
    # A config's names of where, not what opens it: "DB_HOST=localhost" (round 22).
    r"|(?:\b|(?<=_))(?:host(?:name)?|port|server|region|endpoint|domain|path|dir)\b",
    re.IGNORECASE,
)
"""Labels of what is no secret ("username: maya1980", "flight: LH2023")."""
_SCREENS = r"phone|iphone|ipad|tablet|android|kindle|laptop|computer|pc"
"""Devices a PIN unlocks, in every list below."""
_WAYS_IN = r"door|gate|alarm|safe|padlock|lock|keypad|garage"
"""What a code opens."""
_DEVICE = re.compile(
    rf"\b(?:{_SCREENS}|mac\w*|samsung|pixel|screen|watch|bike|shed|{_WAYS_IN})\b",
    re.IGNORECASE,
)
"""Labels of what a PIN opens ("grandma's phone: 4821")."""
_IT_IS_FOR = re.compile(
    r"\bit(?:'|\u2019|[ \t]+i)s[ \t]+(?P<value>[^\s,;]{5,40})[ \t]+for[ \t]+(?:the|my|our)[ \t]+"
    rf"(?:wi-?fi|nas|router|vpn|server|email|account|admin|{_SCREENS}|{_WAYS_IN})\b",
    re.IGNORECASE,
)
"""A value said before what it opens: "it's Kr4nich# for the nas" (round 32)."""
_PIN_LABEL = re.compile(
    rf"\b(?:{_SCREENS}|visa|\w*card|debit|bike|shed|{_WAYS_IN})\b", re.IGNORECASE
)
"""Labels a PIN follows with no sign, on a line of their own ("mastercard 2281")."""
_TAKES = re.compile(
    rf"\b(?:{_SCREENS}|mac\w*|samsung|pixel|screen|{_WAYS_IN}|router|nas|vpn|drive)\b"
    r"[^.!?\n,]{0,20}?\b(?:takes|needs|wants|asks\s+for|accepts|(?<!alarm\s)is(?=\s+\d{4}))\s+",
    re.IGNORECASE,
)
"""A device and what it takes: "the kids' iPad takes 1654"."""
_DEVICE_CODE = re.compile(
    rf"\b(?:{_SCREENS}|macbook|samsung|screen|keypad|alarm|garage)(?:'s|\u2019s)?"
    r"[ \t]*(?::|=|->)[ \t]*",
    re.IGNORECASE,
)
"""A device and a sign, then its PIN: "my Kindle: 1993"."""
_DEVICE_ADMIN = re.compile(
    r"\b(?:router|modem|nas|printer|camera|cam|switch|nvr|dvr|firewall|gateway|controller"
    r"|doorbell|thermostat|webcam|idrac|ilo|ipmi|synology|fritz!?box)(?:'s|\u2019s)?"
    r"[ \t]+(?:web[ \t]*ui[ \t]+|web[ \t]+)?(?:admin|root)"
    r"(?:[ \t]+(?:is|was)[ \t]+|[ \t]*[:/,][ \t]*)",
    re.IGNORECASE,
)
"""A device's admin account and its password: "the router admin is
lumiere_9", "NAS admin / Saudade#19", "the printer's admin is X" (round 26)."""
_LOCK = re.compile(
    r"\b(?P<lock>(?:(?:bike|shed|suitcase|luggage|gym|cable|door)[ \t]+)?"
    r"(?:lock|padlock|locker|safe|lockbox|key\s?safe)|combo|combination)\b"
    r"(?:'s|\u2019s|[ \t]+\d{1,4})?"
    r"(?:[ \t]+(?:is|was|=|:|-|opens\s+with|is\s+set\s+to|set\s+to|combo|combination)"
    r"|[ \t]*[:,=]|(?<=s)(?=[ \t]+\d))"
    r"(?:[ \t]+(?:combo|combination|(?:is\s+)?set\s+to))?[ \t]*",
    re.IGNORECASE,
)
"""A lock and what it opens with: "my bike lock is 24 18 9", "locker 114, combo 3-33-16"."""
_IN_ITS_SENTENCE = re.compile(
    r"\b(?P<same>the\s+usual(?:\s+one)?|my\s+usual|as\s+usual|same\s+(?:as|one|old)|always\s+use"
    r"|(?:my|the)\s+(?:standard|default|regular|normal)(?:\s+one)?|good\s+old|like\s+the\s+rest"
    r"|for\s+all\s+(?:of\s+them|my\s+\w+)|the\s+way\s+in|magic\s+word"
    r"|like\s+(?:always|usual|all\s+the\s+others|everywhere|everything\s+else)"
    r"|for\s+(?:\w+ly\s+|just\s+|pretty\s+much\s+)?(?:everything|all)|everywhere|(?:everything|all\s+my\s+accounts|all\s+of\s+them)"
    r"(?:'s|\u2019s|\s+is|\s+are))|\b(?:ssid|wi-?fi|wify|wiif|wifii|wfii|wlan|hotspot|network|router"
    r"|(?:get(?:s|ting)?|got)\s+(?:in|into|on)|(?:log|sign)(?:s|ged|ging|ed)?\s*(?:in|into|on)"
    r"|login|unlock\w*|access\w*|vpn|note\s+to\s+self|don'?t\s+forget|remember\s+(?:this|that)"
    r"|write\s+(?:this|it)\s+down|for\s+the\s+record"
    r"|(?:my|his|her|their|your|our)\s+(?:e-?mail|username|user\s+name)\s+(?:and|\+|&)\s"
    r"|(?:the\s+answer\s+to\s+)?what\s+you\s+asked(?:\s+(?:for|me|about))?(?:\s+(?:before|earlier))?:)",
    re.IGNORECASE,
)
"""What says its sentence's value is the one used everywhere, a network's,
one to get in with, one to keep, one said with its user ("it's his email
and X") or the one the companion asked for ("the answer to what you asked
before: X", round 35)."""
_TROUBLE = re.compile(
    r"\b(?:shared|household|joint|(?:we|both)\s+use|accept\w*|reject\w*|reuse|too\s+(?:weak|short|simple|easy|obvious)|strong\s+enough"
    r"|data\s+breach|locked\s+out|meets?\s+the\s+rules|won'?t\s+(?:take|let\s+me)|typed|trying"
    r"|(?:would|should)\s+(?:you|I)\s+(?:pick|choose|use)|safe\s+to\s+use|how\s+do\s+I\s+type)\b",
    re.IGNORECASE,
)
"""Trouble getting in, choosing what to get in with, or an account shared:
its sentence's password-shaped values are tried ("why won't my bank accept
Tundra$41?", "our family Netflix is Rosa1986&")."""
_WEIGHED = re.compile(
    # The first letter looked at before the words: twice as fast on everyday text.
    r"\b(?=[abcdefghiklmprsw])(?:how\s+(?:strong|secure|safe|weak|good|bad|guessable|hackable|crackable)"
    r"|(?:strong|secure|safe|good|long|random|complex)\s+enough|strong\s+or\s+weak|weak\s+or\s+strong"
    r"|stronger|weaker|more\s+secure|less\s+secure|strength|entropy"
    r"|crack(?:s|ed|ing|able)?|brute[ -]?forc\w*|(?<!\bi\s)(?<!\bI\s)guess(?:es|ed|able|ing)?"
    r"|hack(?:ed|er|ers|able)|pwned|(?:been|got|get)\s+(?:leaked|breached|exposed)"
    r"|in\s+(?:a|the|any)\s+(?:[\w-]+\s+){0,2}(?:breach|leak|dump)|(?:any|much)\s+good"
    r"|(?:(?:help|let)\s+me|can\s+(?:you|u)|could\s+(?:you|u)|please|pls|plz)\s+"
    r"(?:remember|memori[sz]e|keep|store|save|hold\s+on\s+to|note|jot)"
    r"|don'?t\s+let\s+me\s+forget|remember\s+(?:it|for\s+me)|for\s+me\s+to\s+remember"
    r"|(?:keep|save|store|hold)\s+(?:this|it|that)\s+(?:for\s+me|safe)"
    r"|(?:should|do)\s+I\s+(?:change|keep|replace|reuse|rotate|ditch)"
    r"|meets?\s+(?:the\s+)?(?:[\w-]+\s+){0,2}(?:rules?|requirements?|polic(?:y|ies)|criteria))\b",
    re.IGNORECASE,
)
"""A value weighed or handed over to keep: how strong or guessable it is,
whether it was cracked or leaked, kept for the asker ("how secure is
Mango#2024", "could someone guess Winter2025!", "keep this for me: X"):
its sentence's password-shaped values are shown to be judged or kept."""
_CORRECTED = re.compile(
    r"\b(?=[aceinostuw])(?:wrong\s+one|(?:sorry|oops)\W+typo|i\s+meant|correction|autocorrect\w*"
    r"|(?:er|erm|uh|um|sorry|oops|no|wait)\W+i\s+mean|typo\W+(?:should\s+(?:be|have\s+been)|it'?s|is)|(?:use|try)\s+\S+\s+instead)\b",
    re.IGNORECASE,
)
"""A value corrected: "oops wrong one, use X instead", "sorry typo, I meant
X" (round 30), "er I mean X" (not "I mean, ..." alone, which chat says
often), "^ typo, should be X" (round 31)."""
_STARRED = re.compile(r"^[ \t]*\*(?=[^\s*])|^(?=[^\s*]+\*[ \t]*$)", re.MULTILINE)
"""A line starting or ending with a star: "*X" or "X*" corrects the
message before (round 30, 31)."""
_QUOTED_VALUE = re.compile(
    r"[\"'`\u2018\u201c](?:it'?s[ \t]+)?(?P<value>[^\s\"'`\u2019\u201d]{5,40})"
    r"(?:,[^\"'`\u2019\u201d\n]{0,40})?[\"'`\u2019\u201d]"
)
"""A value in quotes or backticks, maybe with what was said with it:
"'Fenwick1962@' is what I typed", "`Nora2015`", "\"it's HollowOak56, keep it\"."""
_SAYS_A_VALUE = re.compile(
    r"\b(?:type[ds]?|typing|put|told|whisper\w*|new\s+one|account|portal|log\s*in|login|sign"
    r"|use[ds]?|enter\w*|set|changed?|it'?s|field|without)\b",
    re.IGNORECASE,
)


def _quoted_as_a_value(text: str, quoted: re.Match[str]) -> bool:
    """Is the quoted value's line about typing or using it, and no code
    ("'Fenwick1962@' is what I typed for the museum", not "the 'Summer2024'
    campaign" nor ``open("data2019")``)?"""
    line = _line_of(text, quoted.start())
    if re.search(r"[(){};=]", line):
        return False
    return _SAYS_A_VALUE.search(line) is not None or names_a_credential(line)


_ASKED_HOW_TO_GET_IN = re.compile(
    r"(?:^|(?<=[.!?\n]))[^.!?\n]{0,120}?\b(?:(?:gets?|getting|got)\s+"
    + _ME
    + r"(?:in|into|on|past)"
    r"|(?:log|sign)(?:ging)?\s*(?:in|into|on)|login|access|unlock|open|connect|type|enter"
    r"|the\s+way\s+in|use\s+(?:for|on|to)"
    r"|set\s+(?:(?:the|my|your|our|his|her|their)\s+)?(?:[\w-]+\s+)?"
    rf"(?:{_SCREENS}|{_WAYS_IN}|router|modem|wi-?fi|nas))"
    r"\b[^?\n]{0,80}\?[ \t]*\n?[ \t]*(?:(?:just|maybe|probably|ok|so|oh|hmm|um)\W*\s+)?"
    r"(?:(?:use|try|it'?s|it\s+is|type|enter|should\s+be|with|put\s+in)\s+)?",
    re.IGNORECASE,
)
"""A question about getting in or what a device was set to ("what did you
set the router to?", round 25), and the start of its answer on the next
line or after it ("use X?"); the value may stand later in the answer's
line ("hmm, I think it's still X")."""
_ANSWER_REACH = 120
_ASKED_FOR = re.compile(
    r"^[ \t]*(?:(?:hey|hi|yo|so|ok|oh|and|also|btw)\W*\s+)?"
    r"(?:(?:what'?s|whats|wats|wuts?|what\s+(?:is|was)|got|need|know|send(?:\s+me)?|gimme"
    r"|give\s+me|remind\s+me(?:\s+of)?|(?:can|could)\s+(?:i|you|u)\s+(?:have|get|send))\s+)?"
    r"(?:(?:the|ur|your|yr|this|that)\s+)?(?:[\w'\u2019-]+\s+)?"
    rf"(?:wi-?fi|wlan|hotspot|router|nas|vpn|(?P<way_in>{_WAYS_IN}))"
    r"(?:\s+(?:pw|pwd|pass|password|key|code|pin|login|combo))?"
    r"(?:\s+(?:here|there|again|pls|plz|please|now|today|(?:do\s+)?(?:you|u)\s+(?:know|have)"
    r"|(?:at|in|for)\s+(?:the\s+)?[\w'\u2019-]+))*"
    r"[ \t]*[?!.]*[ \t]*\n[ \t]*(?:(?:it'?s|its|it\s+is|use|try)\s+)?",
    re.IGNORECASE | re.MULTILINE,
)
"""A line asking for a network's or a lock's secret in chat shorthand, no
"password" in it ("whats the wifi here", "wifi code pls", "gate?", round
27), then the start of its answer on the next line (the reply)."""
_ASKED_FOR_A_SECRET = re.compile(
    r"^[^\n?]{0,120}?\b(?:password|passcode|pin|passphrase|combination|combo"
    r"|code\s+(?:for|to|of)\s+(?:the\s+|your\s+|my\s+)?[\w'\u2019-]+"
    rf"|(?:{_WAYS_IN}|locker|keypad|entry|access|wi-?fi)\s+code)\b[^\n?]{{0,80}}\?[ \t]*\n[ \t]*"
    r"(?:(?:yes|yep|yeah|yup|sure|ok|okay|of\s+course|right)\b[ \t,.!-]*)?"
    r"(?:(?:it'?s|its|it\s+is|i\s+(?:went\s+with|used|use|set\s+it\s+to|picked|chose)|use|try)"
    r"\s+)?",
    re.IGNORECASE | re.MULTILINE,
)
"""A question naming a secret (the companion's: "Do you have the code for
the gate?", "Which PIN did you set?") and the start of its answer on the
next line ("yep, X", "sure it's X", "I went with X", round 35)."""
_PROMPTED = re.compile(
    r"\b(?:it|windows|sudo|ssh|the\s+(?:prompt|box|window|dialog|terminal|server|site|app))\s+"
    r"(?:asked|prompted|wanted)\b[^.!?\n]{0,30}?\b(?:and|so|then)\s+(?:i|we)\s+"
    r"(?:typed|entered|put\s+in|gave\s+it)\s+",
    re.IGNORECASE,
)
"""A program asking, and what was typed for it: "runas ..., then it asked
and I typed X" (round 28)."""
_CODES_HEADING = re.compile(
    r"\b(?:backup|recovery|2fa|two[- ]factor|one[- ]time|scratch|emergency|verification"
    r"|mfa|otp|authenticator|security|login|sign[- ]in)"
    r"\s+(?:\w+\s+)?codes\b[^\n]{0,60}?"
    r"(?::+[ \t]*\n?|[ \t]*\n|[ \t]+[-\u2013\u2014][ \t]+|[ \t]+(?:(?:are|were)[ \t:]+)?(?=\S*\d))"
    r"[ \t]*(?:[-*\u2022][ \t]*|\d{1,2}[.)][ \t]+)?",
    re.IGNORECASE,
)
"""A heading over a list of codes."""
_CODE = re.compile(
    r"(?<![\w-])(?:[a-z0-9]{3,6}(?:[- ][a-z0-9]{3,6}){1,3}(?<=\d)|[a-z0-9]{4,6}-[a-z0-9]{4,6}"
    r"|\d{6,10}|(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{8,12}"
    r"|(?=[a-z0-9]*\d)(?=[a-z0-9]*[a-z])[a-z0-9]{8,12}"
    r"|(?=[a-z0-9-]*\d)[a-z0-9]{3,6}(?:[- ][a-z0-9]{3,6}){1,3})(?![\w-])"
)
"""A backup code: digits or letters in groups ("6845-8374", "bqbdm-kepgz"), or a run of
them in one case, with a digit ("yzqn2um3jn")."""
_CODES_NAMED = re.compile(
    r"(?m)^[^\n]{0,40}?\b(?:(?P<kind>[^\W\d_]+)[ \t]+codes|codes|2fa|mfa|two[- ]factor)\b"
    r"[^\n:]{0,40}?(?::[ \t]*\n?|[ \t]*\n)[ \t]*(?:[-*\u2022][ \t]*|\d{1,2}[.)][ \t]+)?"
)
"""A line naming codes in other words, or two-factor ones, over a list of
them: "Save these codes", "paypal 2fa:" (round 27)."""
_PUBLIC_CODES = frozenset(
    str.split(
        "zip postal post area country error status exit return response promo discount coupon "
        "product colour color tracking language dial airport currency qr bar source country's "
        "shortcut html ascii unicode icd hs tax"
    )
)
"""What codes a list may hold that no one keeps secret."""
_ALIKE_CODES = 4
"""How many codes of one shape a list under such a line holds at least."""


def _alike_codes(text: str, start: int) -> list[tuple[int, int]]:
    """The codes listed from *start*, if several all of one shape ("abcd-efgh",
    "1234 5678"), as a sheet of backup codes prints them."""
    codes = list(_listed_codes(text, start))
    shapes = {_CODE_SHAPE.sub(_shape_of, text[low:high]) for low, high in codes}
    return codes if len(codes) >= _ALIKE_CODES and len(shapes) == 1 else []


_CODE_SHAPE = re.compile(r"[a-z]|[A-Z]|\d")


def _shape_of(char: re.Match[str]) -> str:
    return "0" if char.group().isdigit() else "a" if char.group().islower() else "A"


_LIST_GAP = re.compile(r"[ \t]*(?:[,;|/]|\n[ \t]*(?:[-*\u2022]|\d{1,2}[.)])?)?[ \t]*")
_NAMED_AFTER = re.compile(
    r"(?:(?:that|this|it)(?:'s|\u2019s|\s+is|\s+was)|\bis|\bwas)\s+(?:what|the\s+one)\s+(?:I|we)"
    r"\s+(?:\w+\s+)?(?:set|use|used|chose|picked|went\s+with|put|made|typed|entered|have)"
    r"\s+(?:as|for|in|on)?\s*(?:(?:my|our|the|a)\s+)?(?:[\w'\u2019+.&-]+\s+){0,3}?"
    r"(?:password|passcode|passphrase|pin|login|code)s?\b",
    re.IGNORECASE,
)
"""A value named a moment later: "X. that's what I set as the twitch password"."""
_SAID_TWICE = re.compile(
    r"(?<![^\s(\"'`])(?P<value>[^\s,;:()\"'`]{4,40}?)[.,;:!?)\"'`]*\s+"
    r"(?:that(?:'s|\u2019s|\s+is)|I\s+repeat|again|yes)[:,]?\s+(?P=value)(?![^\s.,;:!?)\"'`])",
    re.IGNORECASE,
)
"""A value said again to confirm it: "it's X, that's X with a capital"."""
_SIGNED = re.compile(r"(?=\S*[^\W\d_])(?=\S*[#!@$%&*+?])\S{6,}")
"""Letters and a sign, no digit needed: "tundr@*walrus"."""


def _a_value(value: str, *, pins: bool, joined: bool = False, loose: bool = False) -> bool:
    """Is *value* password-shaped, or a PIN where *pins* may be, or words
    joined by dashes or run together where *joined* ("Spotify:
    kettle-moon-lamp"), or where a value is all that can stand (*loose*:
    "opens with X") those and a made-up word ("Tolzanwensho"; not after a
    label: "Netflix: Bridgerton")?"""
    if password_shaped(value) or (pins and _DIGITS.fullmatch(value.rstrip("!"))):
        return True
    bare = value.rstrip("!")
    if (joined or loose) and (_dashed(bare) or _concatenated(bare)):
        return True
    return loose and made_up(bare)


def _concatenated(word: str) -> bool:
    """Is *word* words run together, no word itself ("tractorwizardmarble",
    not "wordpress")?"""
    if not 9 <= len(word) <= 30 or not word.isalpha() or not word[1:].islower():
        return False
    if known_words.known(word) or names_a_credential(word):  # "passphrase"
        return False
    return _splits(word.lower(), 3)


def _splits(letters: str, parts: int) -> bool:
    """Can *letters* be cut into at most *parts* known words of four letters or more?"""
    if known_words.known(letters) and len(letters) >= 4:
        return True
    return parts > 1 and any(
        known_words.known(letters[:cut]) and _splits(letters[cut:], parts - 1)
        for cut in range(4, len(letters) - 3)
    )


_DASHED = re.compile(
    r"[^\W\d_]{3,12}-[^\W\d_]{3,12}(?:(?:-[^\W\d_]{3,12}){1,3}(?:-\d{2,4})?|-\d{2,4})"
)
"""Words joined by dashes, three or more, or two and a number ("kettle-moon-lamp",
"river-stone-42"; not "up-to-date", "work-in-progress")."""


def _dashed(value: str) -> bool:
    """Words joined by dashes (``_DASHED``), not all of them common
    ("kettle-moon-lamp", not "all-you-can-eat")."""
    if _DASHED.fullmatch(value) is None:
        return False
    return not all(known_words.common(part) for part in value.split("-") if part.isalpha())


def _value_after(
    text: str, start: int, *, pins: bool, joined: bool = False, loose: bool = False
) -> Iterator[tuple[int, int]]:
    """The value right at *start*, if it is one (``_a_value``)."""
    token = _TOKEN.match(text, start)
    if token is None:
        return
    value = token["value"].rstrip(_TRAILING)
    start = token.start("value")
    fits = _a_value(value, pins=pins, joined=joined, loose=loose)
    if fits and _ends_clause(text, start + len(value), pins):
        yield start, start + len(value)


def _typed(text: str, start: int, *, pins: bool) -> Iterator[tuple[int, int]]:
    """The value typed at *start* where only a value can stand (after "I
    typed", as the answer to "whats the wifi"): one ``_a_value`` takes
    loosely, or a word with a digit or sign ending its clause ("lumiere_9")."""
    found = list(_value_after(text, start, pins=pins, loose=True))
    token = _TOKEN.match(text, start)
    if not found and token is not None:
        value = token["value"].rstrip(_TRAILING)
        end = token.start("value") + len(value)
        ends = _CLAUSE_END.match(text, end) or _LINE_END.match(text, end)
        if looks_like_a_value(value) and ends is not None:
            found = [(token.start("value"), end)]
    yield from found


_LINE_END = re.compile(
    rf"[^\w\n]*(?:[ \t]+(?:{THANKS}|anyway|haha|hehe|x+)(?!\w)[^\w\n]*)*(?:\n|\Z)",
    re.IGNORECASE,
)
"""Signs, emoji and a sign-off to the line's end: "lumiere_9 👍", "X anyway", "X x"."""


def _ends_clause(text: str, end: int, pins: bool) -> bool:
    """Does a value ending at *end* end its clause (a PIN must: "opens with
    2024 footage" is a year)?"""
    if not (pins and text[end - 1].isdigit()):
        return True
    return _CLAUSE_END.match(text, end) is not None


_CLAUSE_END = re.compile(
    r"(?:[\"'`\u201d\u2019][#*])?[.,;:!?)\"']*"
    r"(?:[ \t]*$|[ \t]*\n|[ \t]+(?:btw|now|I\s+think|and|but|when|if|then)\b"
    r"|[ \t]*[:;]-?[()DPp]|[.,;!?])",
    re.MULTILINE,
)


def _lock_value(text: str, cue: re.Match[str]) -> Iterator[tuple[int, int]]:
    """A lock's combination, or its code when it is no locker's number."""
    combination = _COMBINATION.match(text, cue.end())
    if combination is not None and not re.match(r"[\d/:]|[.-]\d", text[combination.end() :]):
        yield combination.span()
        return
    # A locker's own number is no secret ("my locker is 114"), its setting is.
    locker = re.search(r"locker", cue["lock"] or "", re.IGNORECASE) is not None
    setting = re.search(r"set|combo|combination|opens", cue.group(), re.IGNORECASE) is not None
    yield from _value_after(text, cue.end(), pins=setting or not locker)


def _sentence(text: str, start: int, end: int) -> tuple[int, int]:
    """Where the sentence (or line) holding *start*..*end* begins and ends,
    within ``_SENTENCE_REACH`` of it, at a word's edge."""
    reach = max(0, start - _SENTENCE_REACH)
    low = max([reach, *(m.end() for m in _ENDS.finditer(text, reach, start))])
    reach = min(len(text), end + _SENTENCE_REACH)
    high = next((m.start() for m in _ENDS.finditer(text, end, reach)), reach)
    while low > 0 and not text[low - 1].isspace() and low > start - _SENTENCE_REACH - 40:
        low -= 1
    return low, high


def _values_in_sentence(
    text: str, low: int, high: int, near: tuple[int, int] | None
) -> Iterator[tuple[int, int]]:
    """The password-shaped values in ``text[low:high]``; where the one used
    for everything or an answer stands *near* (its cue), words joined by
    dashes or run together too ("kettle-moon-lamp", "tractorwizardmarble"),
    and close to it a PIN that is no year ("my usual 4821", not "same as
    2019", "the usual umask, which makes files 0644")."""
    for token in _TOKEN.finditer(text, low, high):
        value = token["value"].rstrip(_TRAILING)
        at = token.start("value")
        shaped = password_shaped(value) or (
            near is not None
            and (_dashed(value) or _concatenated(value) or _pin_near(text, at, value, near))
        )
        if shaped and not _a_user_name(text, at, at + len(value)):
            yield at, at + len(value)


def _pin_near(text: str, at: int, value: str, near: tuple[int, int]) -> bool:
    """Is *value* at *at* a PIN within a few words of *near*, not a year
    nor a count ("the usual 1500 kcal")?"""
    if _DIGITS.fullmatch(value) is None or _YEAR.fullmatch(value):
        return False
    if not (near[0] - _PIN_REACH <= at <= near[1] + _PIN_REACH):
        return False
    end = at + len(value)
    return _ends_clause(text, end, True) or _PIN_GOES_ON.match(text, end) is not None


_PIN_REACH = 30


def _a_user_name(text: str, start: int, end: int) -> bool:
    """Is the value at *start*..*end* named a user, a handle or an address
    ("log in as maya1980", "user maya1980 / X", "maya1980@...", the first
    of a login's pair: "my login is yxcvb, X")?"""
    return (
        _USER_BEFORE.search(text, max(0, start - 30), start) is not None
        or _USER_AFTER.match(text, end) is not None
        or (
            text[start:end].isalpha()
            and _LOGIN_BEFORE.search(text, max(0, start - 60), start) is not None
            and _PAIR_AFTER.match(text, end) is not None
        )
    )


_USER_BEFORE = re.compile(
    r"\b(?:as|user(?:\s*name)?|handle|id|account|e-?mail|called|named|nick(?:name)?|@)"
    r"(?:\s+(?:is|was))?\W{0,3}\Z",
    re.IGNORECASE,
)
_USER_AFTER = re.compile(r"@|[ \t]*[/|][ \t]*\S")
_LOGIN_BEFORE = re.compile(
    r"\blog-?in\b[^.!?\n]{0,40}?(?:\b(?:is|was)\b|:)\W{0,3}\Z", re.IGNORECASE
)
_PAIR_AFTER = re.compile(
    r",[ \t]*[^\s,]*?(?:\d|[^\w\s,.!?'])|[ \t]+(?:password|passcode|pass|pwd?)\b", re.IGNORECASE
)
"""A login said as a pair, a password with a digit or a sign after a comma
("login is yxcvb, aaa0") or named after it ("login: yxcvb password: X"):
the first, in letters alone, is its user."""


_ENDS = re.compile(r"[.!?](?=\s+[A-Z])|\n")
_SENTENCE_REACH = 200


def _listed_codes(text: str, start: int) -> Iterator[tuple[int, int]]:
    """The codes listed from *start* on, one after another, or after a
    blank line or the account's line ("BACKUP VERIFICATION CODES\nbob@x.com
    \n\n6652 6377    5620 5165", round 26): then two codes at least."""
    codes = list(_codes_from(text, start))
    for gap in _BEFORE_CODES:
        if not codes and (skipped := gap.match(text, start)) is not None:
            codes = list(_codes_from(text, skipped.end()))
            codes = codes if len(codes) >= 2 else []
    yield from codes


_BEFORE_CODES = (
    re.compile(r"(?:[ \t]*\n)+[ \t]*"),
    re.compile(r"(?:[ \t]*\n)*[^\n]{1,60}\n(?:[ \t]*\n)*[ \t]*"),
)
"""What may stand between a heading and its codes: blank lines, or one line and blank lines."""


def _codes_from(text: str, start: int) -> Iterator[tuple[int, int]]:
    position = start
    while (code := _CODE.match(text, position)) is not None:
        yield code.span()
        gap = _LIST_GAP.match(text, code.end())
        position = gap.end() if gap is not None else code.end()


def _value_before(text: str, end: int) -> Iterator[tuple[int, int]]:
    """The last value in the few words before *end*, in its sentence or the one before."""
    low = max(0, end - 80)
    found = None
    for token in _TOKEN.finditer(text, low, end):
        value = token["value"].rstrip(_TRAILING + "-\u2013\u2014")
        if password_shaped(value) or _DIGITS.fullmatch(value):
            found = (token.start("value"), token.start("value") + len(value))
    if found is not None:
        yield found
