"""Counting tokens with the loaded chat model's own tokenizer.

Counting runs on the broker thread (the only one that touches a model); the
counts of texts seen before are remembered, so a long conversation is not
tokenised again on every turn.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from models.broker import InferenceBroker
from models.interfaces import ChatMessage

CountTokens = Callable[[Sequence[str]], list[int]]
"""Counts the chat model's tokens in each text (``TokenCounter`` is one)."""

MESSAGE_OVERHEAD = 8
"""Tokens a chat template adds around each message (role markers, ends), at most."""
_LINE_TOKENS = 4
"""What a line adds to its text when listed, at most ("[12] " and its line break)."""


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


@dataclass(frozen=True)
class Fitted:
    """A prompt fitted to the model's context (``PassContext.fit``)."""

    messages: list[ChatMessage]
    shown: int
    """How many of the items given it shows: the first ones."""


def fitted_prefix(
    build: Callable[[int], list[ChatMessage]],
    lines: Sequence[str],
    count: CountTokens,
    room: int,
    share: float = 1.0,
) -> Fitted:
    """The prompt *build* makes with the first of *lines* (``build(n)``: with
    the first *n*) that fit *room* tokens as *count* counts them: with
    *share* below 1, the lines take at most that share of what the rest of
    the prompt leaves.  Every prompt that shows a list the model's context
    may not hold goes through here (the dream's passes, the agenda review)."""
    bare = build(0)
    counts = count([m.content for m in bare] + list(lines))
    free = int((room - sum(counts[: len(bare)])) * min(share, 1.0))
    shown, used = 0, 0
    for tokens in counts[len(bare) :]:
        if used + tokens + _LINE_TOKENS > free:
            break
        shown, used = shown + 1, used + tokens + _LINE_TOKENS
    while shown:  # checked whole: counting line by line is close, not exact
        messages = build(shown)
        if sum(count([m.content for m in messages])) <= room:
            return Fitted(messages, shown)
        shown -= 1
    return Fitted(bare, 0)
