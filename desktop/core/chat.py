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
        return existing[0] if existing else self._conversations.create("New conversation")

    def history(self, conversation_id: int) -> list[Message]:
        return self._conversations.messages(conversation_id)

    def send(self, conversation_id: int, text: str) -> Turn:
        """Store *text* as the user's message and start the reply."""
        message = self._conversations.add_message(conversation_id, "user", text)
        job = self._broker.chat(self._prompt(conversation_id), self._options())
        return Turn(conversation_id, message, job)

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
