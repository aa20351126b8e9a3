"""A real chat model made to open a tool call: SmolLM2 never writes
``<tool_call>`` on its own, so the tests of real tool calls open one for it
and let it write the call under the tools' schema."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace

from desktop.core.db.message_kinds import TOOL_CALL_START
from models.interfaces import ChatMessage, Chunk, GenerationOptions, ShouldStop
from models.llama_chat import LlamaChatModel


class OpensACall:
    """A real chat model whose first answer that may call a tool opens a call.

    Records every request, so a test can read the prompts the model got.
    """

    def __init__(self, model: LlamaChatModel) -> None:
        self._model = model
        self.name = model.name
        self.context_length = model.context_length
        self.requests: list[tuple[list[ChatMessage], GenerationOptions]] = []
        self.opened = False

    def stream(
        self,
        messages: Sequence[ChatMessage],
        options: GenerationOptions,
        should_stop: ShouldStop | None = None,
    ) -> Iterator[Chunk]:
        self.requests.append((list(messages), options))
        if self.opened or not options.json_schema_after:
            yield from self._model.stream(messages, options, should_stop)
            return
        self.opened = True
        yield Chunk(TOOL_CALL_START)
        # From the marker on, the schema holds the model, as it would have.
        yield from self._model.stream(
            messages, replace(options, json_schema_after=None), should_stop
        )

    def count_tokens(self, text: str) -> int:
        return self._model.count_tokens(text)
