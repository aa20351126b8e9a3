"""The memory tools a model may call: ``append_memory`` and ``search_memory``.

Both go through the memory service like every other reader and writer: a
fact the model saves must be said in the user's message it answers
(``content_words.support``, the harvest's rule: "hi" says no allergy),
passes the write gate (which stores it as a reader
sees it, without invisible characters) and deduplication and keeps the
user's message as its provenance; what a search returns is shown to the
model as the prompt shows memories (secrets taken out, order-like text only
quoted).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from desktop.core.base.content_words import support
from desktop.core.chat.tools.toolbox import Tool, ToolContext, ToolResult
from desktop.core.memory.gate import MemoryRefused
from desktop.core.memory.harvest import NotTheUsersWords
from desktop.core.memory.lines import memory_line
from desktop.core.memory.service import MemoryCategory, MemoryService

SEARCH_LIMIT = 5
# Lengths a model may write.  llama-cpp-python spells a length limit out as
# nested optional characters, and llama.cpp refuses a grammar nested much
# deeper than a few hundred (2,000 did not compile); a fact is one sentence.
FACT_CHARS = 400
QUERY_CHARS = 200


class AppendMemory(BaseModel):
    model_config = ConfigDict(extra="forbid")

    content: str = Field(min_length=1, max_length=FACT_CHARS)
    category: MemoryCategory = "other"


class SearchMemory(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1, max_length=QUERY_CHARS)
    limit: int = Field(SEARCH_LIMIT, ge=1, le=20)


def memory_tools(memories: MemoryService) -> list[Tool[Any]]:
    def append(arguments: AppendMemory, context: ToolContext) -> ToolResult:
        try:
            # The harvest's rule: a fact about the user rests on their own
            # words, here this turn's message (not Reverie's before it).
            if not (said := support(arguments.content, [context.said])):
                raise NotTheUsersWords(
                    f"What you said in this message does not say it ({said.reason})"
                )
            remembered = memories.remember(
                arguments.content,
                source_kind="harvested",
                actor="tool",
                category=arguments.category,
                message_ids=context.message_ids,
            )
        except MemoryRefused as refusal:
            return ToolResult.error(f"Not remembered: {refusal}")
        memory = remembered.memory
        content = {"result": remembered.outcome, "id": memory.id, "memory": memory.content}
        return ToolResult(True, content, remembered.describe(), remembered)

    def search(arguments: SearchMemory, context: ToolContext) -> ToolResult:
        found = memories.retriever.retrieve(arguments.query, k=arguments.limit)
        lines = [memory_line(r.memory) for r in found]
        listed = [
            {"id": line.id, "memory": line.text, **({"quoted": True} if line.quoted else {})}
            for line in lines
        ]
        summary = f"Searched memories for “{arguments.query}”: {len(listed)} found."
        return ToolResult(True, {"memories": listed}, summary)

    return [
        Tool("append_memory", AppendMemory, append, changes_memory=True),
        Tool("search_memory", SearchMemory, search),
    ]
