"""Condensing prompt components that grew past their size limit.

After a call whose prompt had an oversized component (memories, tasks, the
skills list), a background job asks the model to rewrite that content
shorter (``CONDENSE_PROMPT.txt``).  The result is used in place of exactly
that content, recognised by its hash, until the content changes; meanwhile
the component is cut to its limit.  The user's rows are never changed here.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections import OrderedDict
from collections.abc import Sequence

from desktop.core.base.prompts import PromptLibrary
from desktop.core.chat.prompt import Oversized
from models.broker import InferenceBroker, Job, Priority
from models.interfaces import ChatMessage, GenerationOptions

log = logging.getLogger(__name__)

TEMPLATE = "CONDENSE_PROMPT.txt"
_CHARS_PER_TOKEN = 3  # a cautious average, to size the reply


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
        with self._lock:
            self._done[key] = text
            while len(self._done) > self._remembered:
                self._done.popitem(last=False)
