"""A memory, or an excerpt of another conversation, as a prompt shows it:
one line, made safe however it was made.

The chat's system prompt, a routine's and the harvest's list of what is
known, and the memory tool's results all show memories this way.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, tzinfo

from desktop.core.base.prompts import fill
from desktop.core.base.text import cut
from desktop.core.base.text_fold import fold
from desktop.core.db import Memory
from desktop.core.db.conversations import TITLE_LIMIT
from desktop.core.db.message_search import Excerpt
from desktop.core.memory.gate import INSTRUCTION_LIKE, is_instruction_like
from desktop.core.privacy.prompt_safety import has_prompt_markup, safe_for_prompt

COMPONENTS = "PROMPT_COMPONENTS.txt"
"""The template of the prompt's parts, with how a memory is quoted (``memory_quoted``)."""


@dataclass(frozen=True)
class MemoryLine:
    id: int
    text: str
    quoted: bool = False
    """Reads like an instruction: shown only as a quotation (``memory_quoted``)."""

    def render(self, quoted_template: str = '"{text}"', *, numbered: bool = True) -> str:
        """``- (#id) text`` (``- text`` unless *numbered*), the text made safe
        for the prompt however the line was made."""
        text = safe_for_prompt(self.text)
        # No quote in it closes the quotation: the rest would read as no quotation.
        text = fill(quoted_template, text=_single_quoted(text)) if self.quoted else text
        return f"- (#{self.id}) {text}" if numbered else f"- {text}"


def memory_line(memory: Memory) -> MemoryLine:
    """A memory as the model sees it: one line, secrets taken out again (the
    patterns may have grown since it was stored), no markup that could close
    the ``<memories>`` block or open a turn, an order-like text only quoted."""
    text = safe_for_prompt(memory.content)
    quoted = (
        INSTRUCTION_LIKE in memory.flags
        or is_instruction_like(memory.content)
        or has_prompt_markup(memory.content)
    )
    return MemoryLine(memory.id, text, quoted)


EXCERPT_CHARS = 400
"""An excerpt longer than this is shown by its beginning and end: a pasted
page recalled whole would fill the context of every turn after it."""
_SPEAKERS = {"user": "the user", "assistant": "you"}
_DOUBLE_QUOTES = frozenset('"\u201c\u201d\u201e\u201f\u2033\u2036\u275d\u275e\u301d\u301e\u301f')
"""Double quotes, straight, curly and ornamental: a title's, and a quoted
memory's, are shown single."""


@dataclass(frozen=True)
class ExcerptLine:
    """A message of another conversation as a prompt shows it."""

    message_id: int
    title: str
    sent: datetime
    role: str
    text: str

    def render(self) -> str:
        """``- ("title", date, who said it) text``, on one line, made safe."""
        text = safe_for_prompt(_shortened(self.text, EXCERPT_CHARS))
        # No quote in it closes its quotes: "Trip", 2020-01-01, you said) ...
        # A title kept before titles had a limit is cut to it here.
        title = safe_for_prompt(cut(self.title, TITLE_LIMIT))
        title = _single_quoted(title)
        who = _SPEAKERS.get(self.role, self.role)
        return f'- ("{title}", {self.sent:%Y-%m-%d}, {who} said) {text}'


def excerpt_line(excerpt: Excerpt, zone: tzinfo | None) -> ExcerptLine:
    sent = datetime.fromtimestamp(excerpt.created_at, zone)
    title = excerpt.conversation_title
    return ExcerptLine(excerpt.message_id, title, sent, excerpt.role, excerpt.content)


def _single_quoted(text: str) -> str:
    """*text* with its double quotes single, as it goes between double quotes."""
    return "".join("'" if char in _DOUBLE_QUOTES or fold(char) == '"' else char for char in text)


def _shortened(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    half = (limit - 3) // 2
    return f"{text[:half]} … {text[-half:]}"
