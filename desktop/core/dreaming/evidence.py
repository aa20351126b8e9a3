"""Host checks of what a dream's small model claims, read off the text itself.

A 135M model's word is not enough to change what the user wrote or said:

- A skill's rewrite (condensed, or merged with another) must keep the
  original's specifics: commands and code spans, paths and file names,
  URLs, flags, environment variables and numbers (``lost_specifics``), and
  a fair share of its words (``kept_share``).
- A task is done only when the user said so: that rule is shared with the
  agenda review, in ``desktop.core.tasks.evidence``.
- A preference counts the user's messages that say it (``supports``) and is
  a firm correction only when a message reads as one (``corrects``).

Everything is plain regular expressions, so the report can say exactly
what was missing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from desktop.core.base.content_words import related, stems

_FENCE = re.compile(r"```[^\n]*\n(.*?)```", re.DOTALL)
_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_URL = re.compile(r"\b(?:https?|ftp)://[^\s<>\"'`)\]]+", re.IGNORECASE)
_PATH = re.compile(
    r"(?<![\w/])(?:~|\.{1,2})?(?:/[\w.+@-]+)+/?"  # /etc/hosts, ~/notes, ./run.sh
    r"|\b[A-Za-z]:\\[\w.\\-]*\w"  # C:\Users\me
)
_FILE = re.compile(r"\b[\w-]*[A-Za-z_][\w-]*\.(?:[a-z][a-z0-9]{0,4})\b")
_NOT_FILES = frozenset({"e.g", "i.e", "etc.", "vs.", "a.m", "p.m"})
_FLAG = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*")
_ENVIRONMENT = re.compile(r"\$\{?[A-Za-z_]\w*\}?|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b")
_PROMPT_LINE = re.compile(r"^\s*[$>]\s+(\S.*)$", re.MULTILINE)
"""A line typed at a shell prompt: ``$ git pull``."""
_NUMBER = re.compile(r"(?<![\d.])\d+(?:[.,:]\d+)*")
_LIST_NUMBER = re.compile(r"^(\s*)\d+[.)](?=\s)", re.MULTILINE)
"""A step's own number ("2. Boil water"): renumbering steps loses nothing."""
_SPACE = re.compile(r"\s+")
_CORRECTION = re.compile(
    r"\b(?:no|nope|stop|don'?t|do not|never|not|wrong|quit|enough|"
    r"i said|i told you|i asked)\b|n't\b",
    re.IGNORECASE,
)
"""Words a firm correction is made of ("No, stop doing that!")."""


def skill_specifics(text: str) -> list[str]:
    """What a skill's rewrite must keep: its code, paths, file names, URLs,
    flags, environment variables and numbers, in order of appearance."""
    found: list[str] = []
    for block in _FENCE.findall(text):
        found += [line.strip() for line in block.splitlines() if line.strip()]
    without_fences = _FENCE.sub(" ", text)
    found += [span.strip() for span in _CODE_SPAN.findall(without_fences) if span.strip()]
    found += [line.strip() for line in _PROMPT_LINE.findall(without_fences)]
    urls = [url.rstrip(".,;:!?") for url in _URL.findall(text)]
    found += urls
    outside_urls = _URL.sub(" ", text)
    paths = [p.rstrip(".,;:") for p in _PATH.findall(outside_urls)]
    found += [p for p in paths if p.strip("/.~")]
    found += [f for f in _FILE.findall(outside_urls) if f.casefold() not in _NOT_FILES]
    found += _FLAG.findall(outside_urls)
    found += _ENVIRONMENT.findall(text)
    found += _NUMBER.findall(_LIST_NUMBER.sub(r"\1", outside_urls))
    return list(dict.fromkeys(found))


def lost_specifics(originals: Iterable[str], rewritten: str) -> list[str]:
    """The specifics of *originals* that *rewritten* lacks (whitespace aside;
    a number must be there as a number: "3" is not kept by "30")."""
    kept = _spaced(rewritten)
    numbers = set(_NUMBER.findall(_LIST_NUMBER.sub(r"\1", rewritten)))
    lost: list[str] = []
    for original in originals:
        for specific in skill_specifics(original):
            if _NUMBER.fullmatch(specific):
                if specific not in numbers:
                    lost.append(specific)
            elif _spaced(specific) not in kept:
                lost.append(specific)
    # "--minify" goes without saying once `hugo --minify` is said to be lost.
    return [s for s in dict.fromkeys(lost) if not any(s != o and s in o for o in lost)]


def kept_share(originals: Iterable[str], rewritten: str) -> float:
    """How much of the content words of *originals* *rewritten* still has
    (1.0 when they have none): a rewrite into other words altogether is no
    condensing."""
    theirs = frozenset().union(*(stems(text) for text in originals))
    if not theirs:
        return 1.0
    return len(theirs & stems(rewritten)) / len(theirs)


def supports(point: str, message: str) -> bool:
    """Does the user's *message* say something of *point* (a content word in common)?"""
    return related(point, message)


def corrects(message: str) -> bool:
    """Does *message* read as a correction ("No, stop that!", "don't ...")?"""
    return bool(_CORRECTION.search(message))


def _spaced(text: str) -> str:
    return _SPACE.sub(" ", text).strip()
