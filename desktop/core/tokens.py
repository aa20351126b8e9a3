"""Counting tokens with the loaded chat model's own tokenizer.

Counting runs on the broker thread (the only one that touches a model); the
counts of texts seen before are remembered, so a long conversation is not
tokenised again on every turn.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence

from models.broker import InferenceBroker

CountTokens = Callable[[Sequence[str]], list[int]]
"""Counts the chat model's tokens in each text (``TokenCounter`` is one)."""

MESSAGE_OVERHEAD = 8
"""Tokens a chat template adds around each message (role markers, ends), at most."""


class TokenCounter:
    def __init__(self, broker: InferenceBroker, remembered: int = 4096) -> None:
        self._broker = broker
        self._remembered = remembered
        self._counts: OrderedDict[str, int] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, texts: Sequence[str]) -> list[int]:
        with self._lock:
            missing = [text for text in dict.fromkeys(texts) if text not in self._counts]
        if missing:
            counted = self._broker.count_tokens(missing).result()
            with self._lock:
                self._counts.update(zip(missing, counted, strict=True))
        with self._lock:
            counts = [self._counts[text] for text in texts]
            for text in texts:
                self._counts.move_to_end(text)
            while len(self._counts) > self._remembered:
                self._counts.popitem(last=False)
        return counts


_OMITTED = "\n\n[… {count} characters left out here …]\n\n"


def cut_middle(text: str, tokens: int, budget: int) -> str:
    """*text* (*tokens* long) shortened to about *budget* tokens by leaving
    out its middle: the beginning and the end of a long paste say the most."""
    if tokens <= budget:
        return text
    keep = max(2, int(len(text) * budget / tokens * 0.9))
    head, tail = keep * 2 // 3, keep // 3
    omitted = _OMITTED.format(count=len(text) - head - tail)
    return text[:head] + omitted + text[len(text) - tail :]
