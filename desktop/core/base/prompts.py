"""Prompt templates: shipped in ``data/``, each overridable by a user copy.

A file named like a shipped template in ``<config dir>/prompts/`` wins over the
shipped one, so users can reword any prompt without touching the install.

A template may be divided into named sections by markers on their own line::

    <!-- section: knowledge_routing requires: append_memory,task,add_skill -->
    <!-- section: core always -->

A section that requires tools is included only when one of them is available
to the call; any other section always is.  Placeholders such as ``{history}``
are replaced literally (templates may hold JSON braces); a value whose
placeholder a user's template lacks is appended at its end instead of lost.
"""

from __future__ import annotations

import re
from collections.abc import Set
from dataclasses import dataclass
from pathlib import Path

from desktop.core.base import paths

# A marker may be indented (users edit their copies by hand); it is never prompt text.
_SECTION_MARKER = re.compile(r"^[ \t]*<!--\s*section:(.*?)-->[ \t]*$", re.MULTILINE)
_REQUIRES = re.compile(r"requires:\s*([\w,\s]+)")
# Comments are notes for whoever edits a template, never prompt text.
_COMMENT = re.compile(r"<!--(?!\s*section:).*?-->", re.DOTALL)
_BLANK_LINES = re.compile(r"\n{3,}")
SECTION_SEPARATOR = "\n\n---\n\n"
DEFAULT_LANGUAGE = "en"


@dataclass(frozen=True)
class Section:
    name: str
    requires: frozenset[str]
    """Tools of which at least one must be available; empty means always."""
    text: str

    def included_for(self, tools: Set[str]) -> bool:
        return not self.requires or not self.requires.isdisjoint(tools)


class PromptLibrary:
    def __init__(self, user_dir: Path, shipped_dir: Path | None = None) -> None:
        self._user_dir = user_dir
        self._shipped_dir = shipped_dir or paths.data_dir()

    def load(self, name: str) -> str:
        """The text of template *name* (a path relative to ``data/``), the user's copy first."""
        user_copy = self._user_dir / name
        source = user_copy if user_copy.is_file() else self._shipped_dir / name
        return _COMMENT.sub("", source.read_text(encoding="utf-8").replace("\r\n", "\n"))

    def exists(self, name: str) -> bool:
        return (self._user_dir / name).is_file() or (self._shipped_dir / name).is_file()

    def sections(self, name: str) -> list[Section]:
        """The sections of template *name*; text before the first marker is an
        unnamed section that is always included."""
        text = self.load(name)
        found: list[Section] = []
        markers = list(_SECTION_MARKER.finditer(text))
        if not markers or text[: markers[0].start()].strip():
            end = markers[0].start() if markers else len(text)
            found.append(Section("", frozenset(), _tidy(text[:end])))
        for marker, following in zip(markers, [*markers[1:], None], strict=True):
            header = marker.group(1).strip()
            name_part = header.split()[0] if header.split() else ""
            requires = _REQUIRES.search(header)
            tools = requires.group(1).replace(",", " ").split() if requires else []
            body = text[marker.end() : following.start() if following else len(text)]
            found.append(Section(name_part, frozenset(tools), _tidy(body)))
        return found

    def section(self, name: str, section: str) -> str:
        """The text of one named section of template *name* ("" if it has none)."""
        return next((s.text for s in self.sections(name) if s.name == section), "")

    def base_prompt(self, tools: Set[str] = frozenset()) -> str:
        """The base prompt: the sections whose required tools are available."""
        chosen = [s.text for s in self.sections("BASE_PROMPT.txt") if s.included_for(tools)]
        return "\n\n".join(text for text in chosen if text)

    def render(self, name: str, **values: str) -> str:
        """Template *name* with its ``{placeholders}`` filled (see the module docstring)."""
        return fill(self.load(name), **values).strip()

    def seed_prompt(self, language: str) -> str:
        """The conversation-seed event in *language*, English if there is no such file."""
        name = f"prompts/SEED_{language}.txt"
        if not re.fullmatch(r"[A-Za-z_-]{2,16}", language) or not self.exists(name):
            name = f"prompts/SEED_{DEFAULT_LANGUAGE}.txt"
        return self.load(name).strip()


def fill(template: str, **values: str) -> str:
    """Replace each ``{key}`` in *template*; values without a placeholder go at the end.

    One pass, so a value that itself contains ``{key}`` text is left as it is.
    """
    present = {key: value for key, value in values.items() if "{" + key + "}" in template}
    if present:
        pattern = re.compile("|".join(re.escape("{" + key + "}") for key in present))
        template = pattern.sub(lambda match: present[match.group(0)[1:-1]], template)
    missing = [value for key, value in values.items() if key not in present]
    if missing:
        template = template.rstrip() + "\n\n" + "\n\n".join(missing)
    return template


def _tidy(text: str) -> str:
    return _BLANK_LINES.sub("\n\n", text).strip()
