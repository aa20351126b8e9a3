"""Credentials as people say them in a chat, found for ``redaction``.

Source-code scanners look for ``password = "..."``; people write "the wifi
password at the cabin is hunter2", "hunter2 is my password", "PIN 4821" and
"my netflix login is bob / hunter2".  The phrasings here are a family: a
word naming the credential (password, passcode, PIN, passphrase, login, a
"wifi key", a "door code"...), whose or where it is, a verb or a sign, the
value before or after, quoted or not, in any case.  ``secret_spans`` says
where each value is; the words around it stay.

Where a phrase is ambiguous, the choice is written beside the pattern: a
value with no verb or sign before it counts only when it looks like one (a
digit or a sign in it), "key" and "code" count only with a word that makes
them a credential, and a login said alone ("my login is X") goes whole
because it may be the password.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_QUOTES = "\"'`\u201c\u201d\u2018\u2019"
_OPENING = "\"'`\u201c\u2018"
_CLOSING = "\"'`\u201d\u2019"

# The words that name a credential.  "key" and "code" alone are everyday
# words ("the key is to stay calm", "the code is on GitHub"), so they count
# only with a word that makes them a credential ("wifi key", "door code").
_KEYWORD = (
    r"(?:pass(?:words?|wort|wd|codes?|phrases?|keys?)|pass[ -](?:word|phrase)|pw|pwd|"
    r"pins?(?:[ -](?:code|number))?|mot de passe|contraseña|"
    r"(?:alarm|door|access|security|lock|safe|gate|entry|garage|unlock|wifi|wi-fi|"
    r"verification|recovery|backup|puk|sim|phone|laptop) code|"
    r"(?:wifi|wi-fi|wpa2?|network|api|licen[cs]e|product|activation|recovery|encryption|"
    r"decryption|secret|private|access|ssh|gpg|pgp|bitlocker|backup|registration|serial)"
    r" key)"
)
_LOGIN = r"(?:log[ -]?in|sign[ -]?in|credentials?)"
"""A login names a user and a password; only the password is taken out."""
_PASS = rf"(?:{_KEYWORD}|pass(?=\s*[:=]))"
"""Every keyword, and "pass:" (a mountain pass has no colon after it)."""

_PLACE = (
    r"(?:\s+(?:for|of|to|at|on|in|from|with|into)"
    r"(?:\s+(?!(?:and|but|or|so|because|is|was|are)\b)[\w.'\u2019&-]+){1,4}?)?"
)
"""Whose or where, between the word and the verb: "the password at the cabin is"."""
_VERB = (
    r"(?:\s*(?:[:=]|->)|\s+(?:is|was|are|were|will be|became|changed to|set to)\b"
    r"(?:\s+(?:now|still|just|actually|currently|always|set to|changed to)\b)?(?:\s*:)?)"
)
"""Between the word and its value: "is", "was", "is now", "changed to", ":", "="."""

_TOKEN = rf"[^\s{_QUOTES}]*[^\s{_QUOTES}.,;:!?)]"
"""One word of a value; a full stop or comma after it ends the sentence, not the value."""
_END = rf"(?=[.,;:!?)]*(?:\s|$|[{_CLOSING}]))"
_QUOTED = rf"(?P<quote>[{_OPENING}])(?P<quoted>[^{_QUOTES}\n]{{1,100}})[{_CLOSING}]"
_LONG = rf"(?=[^\s{_QUOTES}]{{3}})"
"""A value of three characters or more (shorter ones are words: "is", "it", "a")."""
_LONG_OR_AFTER_SIGN = rf"(?:(?<=[:=>])|(?<=[:=>][ \t])|{_LONG})"
"""... or any length after ":" or "=" ("pw: x")."""
_GOES_ON = (
    r"(?:for|at|on|in|to|into|and|or|but|so|which|that|because|since|when|while|with|from|"
    r"of|if|as|is|was|by|i|we|you|he|she|they|it|now|then|too|also|please|thanks|here|"
    r"there|again|don't|do|dont|remember|keep|just|ok|okay)"
)
"""Words that go on with the sentence after a value, so are not part of it."""
_VALUE = (
    rf"\s*(?:{_QUOTED}"
    rf"|(?P<value>{_LONG_OR_AFTER_SIGN}{_TOKEN}(?:[ \t]+(?!{_GOES_ON}\b){_TOKEN}){{0,5}}){_END})"
)
"""The value after "password is": a quoted phrase whole; unquoted, its first
word and the words after it (a passphrase: "purple monkey dishwasher") up
to punctuation or a word that goes on with the sentence ("... for the bank").
Better a word too many than a word of it kept."""
_AFTER_WORD = (
    rf"(?=\s*(?:$|[.,;:!?){_CLOSING}]|(?:for|at|on|in|to|of|from|and|but|so|now|too|"
    r"again|here|there|which|because|when|until|since)\b))"
)
"""What may follow "X is my password": the sentence ends or goes on, as in
"... my password for the bank"; a noun would make it something else
("Bitwarden is my password manager")."""
_PAIR = r"(?:[/:|,]|\band\b)"
_USER = rf"[^\s/:,|{_QUOTES}]"

_PATTERNS = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        # "my password is X", "the PIN for the card: X", "passphrase = 'X'".
        rf"\b{_PASS}{_PLACE}{_VERB}{_VALUE}",
        # "password X for the drive", "PIN 4821": no verb, so only a value
        # with a digit or a sign counts ("password sunshine" may be a noun).
        rf"\b{_KEYWORD}\s+(?:{_QUOTED}|(?P<bare>{_LONG}{_TOKEN}){_END})",
        # "X is my password", "'X' is the wifi password at the cabin", "I use X as my PIN".
        rf"(?:{_QUOTED}|(?<![^\s(])(?P<before>{_LONG}{_TOKEN}))"
        r"\s+(?:is|was|as)\s+(?:(?:my|the|our|your|his|her|their|its|a|an)\s+)?"
        rf"(?:[\w'\u2019-]+\s+){{0,3}}?(?:{_KEYWORD}|{_LOGIN}){_AFTER_WORD}",
        # "I changed my password to X": X must look like one, or be quoted
        # ("I changed my password to something stronger").
        r"\b(?:chang|set|reset|updat|switch)\w*\s+(?:(?:my|the|our|your|his|her|their)\s+)?"
        rf"(?:[\w'\u2019-]+\s+){{0,2}}?{_KEYWORD}\s+to\s+(?:{_QUOTED}|(?P<bare>{_LONG}{_TOKEN}){_END})",
        # "my netflix login is bob / X", "login: bob password: X", "sign-in is bob, X".
        rf"\b{_LOGIN}{_PLACE}{_VERB}\s*{_USER}+\s*{_PAIR}\s*"
        rf"(?:(?:the\s+|my\s+)?{_PASS}{_VERB}?\s*)?"
        rf"(?:{_QUOTED}|(?P<paired>{_LONG}{_TOKEN}){_END})",
        # "login bob:X", "netflix login bob / X": no verb, so X must look like one.
        rf"\b{_LOGIN}\s+{_USER}+\s*[/:|]\s*(?P<bare>{_TOKEN}){_END}",
        # "my login is X", unless X is the user of a pair ("login: bob password: Y").
        rf"\b{_LOGIN}{_PLACE}{_VERB}\s*(?P<single>(?>{_USER}{{2,}}[^\s/:,|{_QUOTES}.;!?)]))"
        rf"(?![^\s.,;!?)]|\s*(?:{_PAIR}|(?:the\s+|my\s+)?{_PASS}\b))",
    )
)
_VALUE_GROUPS = ("quoted", "value", "bare", "before", "paired", "single")

_DESCRIBING_WORDS = frozenset(
    str.split(
        "used stored saved written kept managed required needed expired wrong correct "
        "changed reset updated same different also still very really too easy hard weak "
        "strong long short secure safe simple complicated something nothing private "
        "secret not the a an in on at my your his her their our its under over inside "
        "broken down slow failing working locked blocked disabled invalid incorrect "
        "optional mandatory fine good bad ok okay only just case-sensitive missing "
        "lost forgotten unknown empty blank hidden visible shown printed "
        "somewhere here there what which this that it mine yours ours theirs hers "
        "who where whatever one another no none is was are"
    )
)
"""Words beside "password is" that describe it or point at it rather than
being it: "the password is too short", "This is my password"."""
_GOES_ON_WORD = re.compile(_GOES_ON)
_SIGN = re.compile(r"[\d\W_]")
"""What a value without a verb must hold: a digit or a sign ("hunter2", "x!y")."""


def secret_spans(text: str) -> Iterator[tuple[int, int]]:
    """Where each credential said in *text* is (start, end)."""
    for pattern in _PATTERNS:
        for match in pattern.finditer(text):
            if (span := _secret_of(match)) is not None:
                yield span


def _secret_of(match: re.Match[str]) -> tuple[int, int] | None:
    """Where the value of a phrase is, unless it is a word about the
    password rather than the password."""
    group = next(g for g in _VALUE_GROUPS if g in match.re.groupindex and match[g] is not None)
    words = match[group].split()
    if not words:
        return None
    first = words[0].casefold().strip("'\u2019")
    if group != "quoted" and (first in _DESCRIBING_WORDS or _GOES_ON_WORD.fullmatch(first)):
        return None  # "the password is too short", "my favourite pin is from Disneyland"
    if group == "bare" and not _SIGN.search(match[group]):
        return None
    return match.start(group), match.end(group)
