"""Prompt templates: shipped in ``data/``, each overridable by a user copy.

A file named like a shipped template in ``<config dir>/prompts/`` wins over the
shipped one, so users can reword any prompt without touching the install.
"""

from __future__ import annotations

import re
from pathlib import Path

from desktop.core import paths

# A marker may be indented (users edit their copies by hand); it is never prompt text.
_SECTION_MARKER = re.compile(r"^[ \t]*<!--\s*section:.*?-->\s*$", re.MULTILINE)


class PromptLibrary:
    def __init__(self, user_dir: Path, shipped_dir: Path | None = None) -> None:
        self._user_dir = user_dir
        self._shipped_dir = shipped_dir or paths.data_dir()

    def load(self, name: str) -> str:
        """The text of template *name*, the user's copy first."""
        user_copy = self._user_dir / name
        source = user_copy if user_copy.is_file() else self._shipped_dir / name
        return source.read_text(encoding="utf-8")

    def system_prompt(self) -> str:
        """The base prompt with its section markers removed."""
        text = _SECTION_MARKER.sub("", self.load("BASE_PROMPT.txt"))
        return re.sub(r"\n{3,}", "\n\n", text).strip()
