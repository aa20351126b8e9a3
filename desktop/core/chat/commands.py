"""Slash commands typed in the chat box.

``/name argument`` is a command when *name* is a word; ``//text`` sends
``/text`` as a message, and text like ``/usr/bin is broken`` is a message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

COMMANDS: dict[str, str] = {
    "new": "start a new conversation (Reverie greets you first)",
    "compact": "summarise the older messages of this conversation now",
    "dream": "consolidate memories now",
    "remember": "<text>: keep a memory of exactly this",
    "forget": "<text or #id>: forget a memory",
    "memory": "show the memories given to the model right now",
    "help": "list the commands",
}

_COMMAND = re.compile(r"/([A-Za-z]+)(?:\s+(.*))?", re.DOTALL)


@dataclass(frozen=True)
class Command:
    name: str
    argument: str

    @property
    def known(self) -> bool:
        return self.name in COMMANDS


def parse(text: str) -> Command | str:
    """A command, or the message to send."""
    stripped = text.strip()
    if stripped.startswith("//"):
        return stripped[1:]
    match = _COMMAND.fullmatch(stripped)
    if match is None:
        return stripped
    return Command(match.group(1).lower(), (match.group(2) or "").strip())


def help_text() -> str:
    lines = [f"/{name} {meaning}" for name, meaning in COMMANDS.items()]
    return "Commands:\n" + "\n".join(lines) + "\nStart a message with // to send it as text."
