"""The skill tools a model may call: ``add_skill``, ``read_skill``, ``list_skills``.

The prompt carries only the skills' table of contents; ``read_skill`` loads
one skill's text when the model needs it, and records that this
conversation used it.  ``add_skill`` saves a procedure that worked as a new
active skill, checked like one the user writes (a safe name, a first line
to summarise it).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from desktop.core.chat.tools.toolbox import Tool, ToolContext, ToolResult
from desktop.core.db.skills import SkillNotFound
from desktop.core.skills.library import NAME_CHARS, SkillLibrary

# What a model may write, and read back at once: a skill longer than this
# reaches the model cut (and says so), so it cannot crowd out the conversation.
TEXT_CHARS = 4_000
READ_CHARS = 6_000
QUERY_CHARS = 100
LIST_LIMIT = 20


class AddSkill(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=NAME_CHARS)
    text: str = Field(min_length=1, max_length=TEXT_CHARS)


class ReadSkill(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=NAME_CHARS)


class ListSkills(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field("", max_length=QUERY_CHARS)


def skill_tools(skills: SkillLibrary) -> list[Tool[Any]]:
    def add(arguments: AddSkill, context: ToolContext) -> ToolResult:
        skill = skills.create(arguments.name, arguments.text)
        content = {"result": "added", "name": skill.name, "summary": skill.summary}
        return ToolResult(True, content, f"Skill “{skill.name}” saved: {skill.summary}")

    def read(arguments: ReadSkill, context: ToolContext) -> ToolResult:
        try:
            found = skills.use(arguments.name, context.conversation_id)
        except SkillNotFound:
            names = [skill.name for skill in skills.list()[:LIST_LIMIT]]
            known = ", ".join(names) or "none yet"
            return ToolResult.error(f"There is no skill {arguments.name!r}; skills: {known}.")
        content: dict[str, Any] = {"name": found.skill.name, "text": found.text[:READ_CHARS]}
        if len(found.text) > READ_CHARS:
            content["cut"] = f"only the first {READ_CHARS} of {len(found.text)} characters"
        return ToolResult(True, content, f"Read skill “{found.skill.name}”.")

    def listed(arguments: ListSkills, context: ToolContext) -> ToolResult:
        found = skills.list(arguments.query)
        shown = [{"name": s.name, "summary": s.summary} for s in found[:LIST_LIMIT]]
        content: dict[str, Any] = {"skills": shown}
        if len(found) > LIST_LIMIT:
            content["more"] = len(found) - LIST_LIMIT
        about = f" about “{arguments.query}”" if arguments.query.strip() else ""
        return ToolResult(True, content, f"Listed skills{about}: {len(found)} found.")

    return [
        Tool("add_skill", AddSkill, add, changes_memory=True),
        Tool("read_skill", ReadSkill, read),
        Tool("list_skills", ListSkills, listed),
    ]
