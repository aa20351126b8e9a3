"""Condensing prompt components that grew past their size limit.

After a call whose prompt had an oversized component (memories, tasks, the
skills list), a background job asks the model to rewrite that content
shorter (``CONDENSE_PROMPT.txt``).  The result is used in place of exactly
that content, recognised by its hash, until the content changes; meanwhile
the component is cut to its limit.  The user's rows are never changed here.

A condensed text is used only if it is faithful (``unfaithful``): it keeps
every ``#id`` of the original (``(#id)`` for memories) and adds none, each
line saying its ids' lines with their numbers and words of change, no word
of another line's and each on its side of a denial, and no content word is
new; else the cut component stays.  A small model's
rewrite of the task list invented a task, dropped them all, or moved a
dose's time, and the chat model answered from it.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence

from desktop.core.base.content_words import (
    moved_across_denials,
    new_words,
    says_otherwise,
    swapped,
)
from desktop.core.base.prompts import PromptLibrary
from desktop.core.chat.prompt import Oversized
from models.broker import InferenceBroker, Job, Priority
from models.interfaces import ChatMessage, GenerationOptions

log = logging.getLogger(__name__)

TEMPLATE = "CONDENSE_PROMPT.txt"
_CHARS_PER_TOKEN = 3  # a cautious average, to size the reply
_IDS = {"memories": re.compile(r"\(#(\d+)\)")}
"""How a component's lines name their rows: a memory's "(#id)" is what the
chat's memory ids are read from; other components' "#id"."""
_ID = re.compile(r"#(\d+)\b")


class Condenser:
    def __init__(self, broker: InferenceBroker, prompts: PromptLibrary, remembered: int = 16):
        self._broker = broker
        self._prompts = prompts
        self._remembered = remembered
        self._lock = threading.Lock()
        self._done: OrderedDict[tuple[str, str], str] = OrderedDict()
        self._tried: set[tuple[str, str]] = set()
        self._running: dict[tuple[str, str], Job] = {}

    def condensed(self, component: str, digest: str) -> str | None:
        with self._lock:
            return self._done.get((component, digest))

    def running(self) -> list[Job]:
        with self._lock:
            return list(self._running.values())

    def submit(self, oversized: Sequence[Oversized]) -> None:
        """Queue a background job for each component not condensed or tried yet."""
        for item in oversized:
            key = (item.component, item.content_hash)
            with self._lock:
                if key in self._done or key in self._tried:
                    continue
                self._tried.add(key)  # a failure is not retried on every turn
            prompt = self._prompts.render(TEMPLATE, content=item.content)
            options = GenerationOptions(
                max_tokens=max(64, item.limit // _CHARS_PER_TOKEN), temperature=0.2
            )
            job = self._broker.chat([ChatMessage("user", prompt)], options, Priority.BACKGROUND)
            with self._lock:
                self._running[key] = job
            job.add_done_callback(functools.partial(self._keep, key, item))

    def _keep(self, key: tuple[str, str], item: Oversized, job: Job) -> None:
        with self._lock:
            self._running.pop(key, None)
        try:
            text = str(job.result()).strip()
        except Exception as error:  # the component stays cut to its limit
            log.warning("condensing the %s section failed: %s", item.component, error)
            return
        if not text or len(text) >= len(item.content):
            log.warning("condensing the %s section did not shorten it", item.component)
            return
        refused = unfaithful(item.content, text, _IDS.get(item.component, _ID))
        if refused:
            log.warning("the condensed %s section was not used: %s", item.component, refused)
            return
        with self._lock:
            self._done[key] = text
            while len(self._done) > self._remembered:
                self._done.popitem(last=False)


def unfaithful(original: str, condensed: str, ids: re.Pattern[str] = _ID) -> str | None:
    """Why *condensed* may not stand for *original* in the prompt (None: it
    may): it adds a content word, drops or adds an id (as *ids* reads
    them), or a line of it says otherwise (``says_otherwise``) what the
    lines of the ids it holds said, takes a word from other lines or moves
    one across a denial (``_moved``); a line with no id says nothing of its
    own.  Without ids (the skills list) the whole text is one line."""
    added = new_words(condensed, [original])
    if added:
        return f"it adds {', '.join(added[:8])}"
    theirs = _lines_by_id(original, ids)
    if not theirs:
        return _otherwise(original, condensed, ids)
    kept = {match for line in condensed.splitlines() for match in ids.findall(line)}
    if kept != set(theirs):
        return f"it names the ids {sorted(kept ^ set(theirs), key=int)[:8]} otherwise"
    for line in filter(str.strip, condensed.splitlines()):
        named = dict.fromkeys(ids.findall(line))
        if not named:
            return "a line of it names no id"
        own = "\n".join(theirs[key] for key in named)
        said = _otherwise(own, line, ids) or _moved(own, line, ids)
        if said:
            return said
    return None


def _lines_by_id(text: str, ids: re.Pattern[str]) -> dict[str, str]:
    """The lines of *text* by the id each names first."""
    lines: dict[str, str] = {}
    for line in text.splitlines():
        found = ids.search(line)
        if found:
            lines[found[1]] = line
    return lines


def _moved(original: str, condensed: str, ids: re.Pattern[str]) -> str | None:
    """Words *condensed* takes from other lines than its ids' own, puts
    on the other side of a denial ("Call Tom, not Anna" for "Call Anna, not
    Tom"; "Take aspirin" for "#1 Take warfarin", "#2 Take aspirin"), or
    swaps around ("#1 #2 Take aspirin at 08:00 and warfarin at 20:00")."""
    added = new_words(ids.sub(" ", condensed), [original])
    if added:
        return f"“{condensed.strip()[:80]}” adds {', '.join(added[:8])} to its own lines"
    own = ids.sub(" ", original).splitlines()
    if moved_across_denials(ids.sub(" ", condensed), own):
        return f"“{condensed.strip()[:80]}” puts words across a denial"
    turned = swapped(ids.sub(" ", condensed), own, numbers_stay=True)
    return f"“{condensed.strip()[:80]}” swaps {', '.join(turned)}" if turned else None


def _otherwise(original: str, condensed: str, ids: re.Pattern[str]) -> str | None:
    """``says_otherwise``, the ids' own numbers aside."""
    said = says_otherwise(ids.sub(" ", original), ids.sub(" ", condensed))
    return f"“{condensed.strip()[:80]}” says it {said}" if said else None
