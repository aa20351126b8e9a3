"""Chat turns, Qt-free: store the user's message, assemble the prompt, hand
the generation to the inference broker, store the reply.

The full chat experience (prompt sections, memories, compaction) builds on
this; here a turn is the system prompt plus the conversation so far.
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop.core.db import Conversation, ConversationStore, Message
from desktop.core.prompts import PromptLibrary
from desktop.core.settings import ModelSettings
from models.broker import InferenceBroker, Job
from models.interfaces import ChatMessage, GenerationOptions

_PROMPT_ROLES = {"user", "assistant"}
NEW_CONVERSATION_TITLE = "New conversation"
_TITLE_CHARS = 48


@dataclass(frozen=True)
class Turn:
    """A chat turn in flight: the stored user message and the broker job."""

    conversation_id: int
    user_message: Message
    job: Job


class ChatService:
    def __init__(
        self,
        conversations: ConversationStore,
        broker: InferenceBroker,
        prompts: PromptLibrary,
        model_settings: ModelSettings,
    ) -> None:
        self._conversations = conversations
        self._broker = broker
        self._prompts = prompts
        self._settings = model_settings

    def latest_or_new_conversation(self) -> Conversation:
        existing = self._conversations.list()
        return existing[0] if existing else self.new_conversation()

    def conversations(self, query: str = "") -> list[Conversation]:
        """All conversations, or those matching *query* (titles and message text)."""
        if query.strip():
            return self._conversations.search(query)
        return self._conversations.list()

    def new_conversation(self) -> Conversation:
        return self._conversations.create(NEW_CONVERSATION_TITLE)

    def rename(self, conversation_id: int, title: str) -> Conversation:
        return self._conversations.rename(conversation_id, title.strip() or NEW_CONVERSATION_TITLE)

    def delete(self, conversation_id: int) -> None:
        self._conversations.delete(conversation_id)

    def conversation(self, conversation_id: int) -> Conversation | None:
        return self._conversations.get(conversation_id)

    def history(self, conversation_id: int) -> list[Message]:
        return self._conversations.messages(conversation_id)

    def send(self, conversation_id: int, text: str) -> Turn:
        """Store *text* as the user's message and start the reply."""
        message = self._conversations.add_message(conversation_id, "user", text)
        self._title_from_first_message(conversation_id, text)
        job = self._broker.chat(self._prompt(conversation_id), self._options())
        return Turn(conversation_id, message, job)

    def _title_from_first_message(self, conversation_id: int, text: str) -> None:
        conversation = self.conversation(conversation_id)
        if conversation is not None and conversation.title == NEW_CONVERSATION_TITLE:
            first_line = text.strip().splitlines()[0]
            title = (
                first_line if len(first_line) <= _TITLE_CHARS else first_line[:_TITLE_CHARS] + "…"
            )
            self._conversations.rename(conversation_id, title)

    def record_reply(self, turn: Turn, text: str, finish_reason: str | None) -> Message | None:
        """Store the assistant's reply (a stopped reply keeps what was said)."""
        if not text.strip():
            return None
        metadata = {"finish_reason": finish_reason} if finish_reason != "stop" else None
        return self._conversations.add_message(
            turn.conversation_id, "assistant", text, metadata=metadata
        )

    def _prompt(self, conversation_id: int) -> list[ChatMessage]:
        prompt = [ChatMessage("system", self._prompts.system_prompt())]
        for message in self._conversations.messages(conversation_id):
            if message.role in _PROMPT_ROLES:
                prompt.append(ChatMessage(message.role, message.content))  # type: ignore[arg-type]  # role checked above
        return prompt

    def _options(self) -> GenerationOptions:
        return GenerationOptions(
            max_tokens=self._settings.max_reply_tokens, temperature=self._settings.temperature
        )
