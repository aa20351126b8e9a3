"""A memory (or an excerpt of another conversation) is given to the model
once per conversation, with the message it first became relevant to, and
stays there: a turn adds only what is new.

A real database and broker; a scripted model (one token per word) except in
the last test, which reads the real SmolLM2's prompt cache.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

from desktop.core.base.jobs import JobControl
from desktop.core.base.paths import resolve_paths
from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import ChatSettings, ModelSettings
from desktop.core.chat.contexts import GIVEN, given_with
from desktop.core.chat.service import ChatService
from desktop.core.db import ConversationStore, Database, Message
from desktop.core.memory.message_index import MessageIndexer
from desktop.core.memory.service import MemoryService
from models.broker import InferenceBroker
from models.interfaces import ChatMessage, Chunk, GenerationOptions, ShouldStop
from models.llama_chat import LlamaChatModel
from models.llama_embedder import LlamaEmbedder
from tests.conftest import SMOLLM2_CONTEXT
from tests.fakes import Recorder, ScriptedChatModel
from tests.recalling import recalling_chat

TIMEOUT = 10.0
FACTS = [
    "My dog is called Rex.",
    "My sister Ines lives in Porto.",
    "I play the cello on Sundays.",
]


def _service(
    database: Database,
    broker: InferenceBroker,
    model_settings: ModelSettings | None = None,
    keep_recent: int = 4,
) -> ChatService:
    prompts = PromptLibrary(resolve_paths().config_dir / "prompts")
    return ChatService(
        ConversationStore(database),
        MemoryService.over(database, broker, prompts),
        broker,
        prompts,
        model_settings or ModelSettings(),
        ChatSettings(memories_top_k=1, keep_recent_messages=keep_recent),
    )


@pytest.fixture
def chat(database: Database, broker: InferenceBroker) -> ChatService:
    chat = _service(database, broker)
    for fact in FACTS:
        chat.remember(fact)
    return chat


def _answer(chat: ChatService, conversation_id: int, text: str) -> Recorder:
    recorder = Recorder()
    chat.run(chat.send(conversation_id, text), recorder)
    return recorder


def _shown(prompt: Sequence[ChatMessage]) -> list[list[int]]:
    """The ids of the memories each message of *prompt* shows."""
    return [[int(i) for i in re.findall(r"\(#(\d+)\)", m.content)] for m in prompt]


def test_a_memory_stays_with_the_message_it_came_with_and_a_turn_adds_only_new_ones(
    chat: ChatService, model: ScriptedChatModel
) -> None:
    conversation = chat.new_conversation()

    _answer(chat, conversation.id, "What is my dog called?")
    _answer(chat, conversation.id, "Where does my sister live?")
    answered = _answer(chat, conversation.id, "Tell me about my dog and my sister.")

    first, second, third = (messages for messages, _ in model.requests)
    # Each prompt begins with the whole of the one before (the cache keeps it).
    assert second[: len(first)] == first and third[: len(second)] == second
    assert _shown(third) == [[], [1], [], [2], [], []]
    # Nothing new was relevant to the third message, yet both reached the model.
    assert set(answered.replies()[-1].memory_ids) <= {1, 2}
    assert answered.replies()[-1].memory_ids
    assert third[-1].content.startswith("Sent: ")


def test_which_memories_went_with_a_message_is_kept_with_it_by_id(
    chat: ChatService, store: ConversationStore
) -> None:
    conversation = chat.new_conversation()

    _answer(chat, conversation.id, "What is my dog called?")

    [asked] = [m for m in store.messages(conversation.id) if m.role == "user"]
    assert asked.metadata == {GIVEN: [1]}
    assert "Rex" not in str(asked.metadata)  # an id, never the memory's words


def test_a_memory_forgotten_since_leaves_the_message_it_went_with(
    chat: ChatService, model: ScriptedChatModel
) -> None:
    conversation = chat.new_conversation()
    _answer(chat, conversation.id, "What is my dog called?")

    chat.forget("#1")
    _answer(chat, conversation.id, "Where does my sister live?")

    assert "Rex" not in "".join(m.content for m in model.requests[-1][0])
    assert _shown(model.requests[-1][0])[-1] == [2]


def test_a_memory_comes_back_when_the_message_it_went_with_is_summarised_away(
    chat: ChatService, store: ConversationStore, model: ScriptedChatModel
) -> None:
    conversation = chat.new_conversation()
    _answer(chat, conversation.id, "What is my dog called?")
    for n in range(6):
        _answer(chat, conversation.id, f"Small talk number {n}.")
    chat.compact(conversation.id, JobControl())

    _answer(chat, conversation.id, "And my dog, what was his name?")

    prompt = model.requests[-1][0]
    assert "What is my dog called?" not in "".join(m.content for m in prompt)
    assert _shown(prompt)[-1] == [1]


def test_a_memory_comes_back_when_the_message_it_went_with_no_longer_fits(
    database: Database, broker: InferenceBroker, model: ScriptedChatModel
) -> None:
    """Trimmed to fit, not summarised: the message the memory went with is
    left out of the prompt, so the memory goes with the newest."""
    settings = ModelSettings(context_length=1200, max_reply_tokens=50)
    chat = _service(database, broker, settings, keep_recent=100)  # nothing to summarise
    for fact in FACTS:
        chat.remember(fact)
    conversation = chat.new_conversation()
    _answer(chat, conversation.id, "What is my dog called?")
    for n in range(4):  # more than the context holds, with the system prompt
        _answer(chat, conversation.id, f"Tell me more, part {n}. " + "word " * 250)

    _answer(chat, conversation.id, "And my dog, what was his name?")

    prompt = model.requests[-1][0]
    assert "What is my dog called?" not in "".join(m.content for m in prompt)
    assert _shown(prompt)[-1] == [1]


def test_given_with_adds_only_what_no_message_read_went_with() -> None:
    def message(message_id: int, ids: list[int] | None) -> Message:
        metadata = None if ids is None else {GIVEN: ids}
        return Message(message_id, 1, "user", "x", 0.0, None, None, metadata)

    read = [message(1, [4, 5]), message(2, [6]), message(3, None)]

    assert given_with(read, 3, [6, 7, 4, 8, 7]) == {1: (4, 5), 2: (6,), 3: (7, 8)}
    # The first message left out: its memories may go with the answered one.
    assert given_with(read, 3, [6, 7, 4], left_out=1) == {1: (4, 5), 2: (6,), 3: (7, 4)}
    # Asked again (a tool call, a regeneration): what it went with stays first.
    again = [*read[:2], message(3, [7, 8])]
    assert given_with(again, 3, [9, 8]) == {1: (4, 5), 2: (6,), 3: (7, 8, 9)}


@contextmanager
def real_chat(model: _Reading, database: Database) -> Iterator[ChatService]:
    """A chat over *model* (the real one), on a broker of its own."""
    broker = InferenceBroker()
    broker.start()
    try:
        broker.load_chat_model(lambda: model).result(TIMEOUT)
        settings = ModelSettings(context_length=SMOLLM2_CONTEXT, max_reply_tokens=24)
        yield _service(database, broker, settings)
    finally:
        broker.stop()


class _Reading:
    """The real model, noting how many tokens of each prompt it read (not
    taken from its cache) and how many the prompt had, and of the tokens
    its cache held, how many it dropped (``dropped``)."""

    def __init__(self, model: LlamaChatModel) -> None:
        self.model = model
        self.name = model.name
        self.context_length = model.context_length
        self.reading: list[tuple[int, int]] = []
        self.dropped: list[tuple[int, int]] = []
        """Per prompt read: the cached tokens not reused, and of them those
        of the reply sampled after the prompt before (0 after a fresh one)."""
        self.prompts: list[Sequence[ChatMessage]] = []

    def stream(
        self,
        messages: Sequence[ChatMessage],
        options: GenerationOptions,
        should_stop: ShouldStop | None = None,
    ) -> Iterator[Chunk]:
        self.prompts.append(messages)
        total = len(self.model.prompt_tokens(messages))
        # What the cache holds: the prompt before and the reply sampled after
        # it (llama-cpp-python's count; LlamaChatModel does not say it).
        cached = self.model._llm.n_tokens
        before = len(self.model.prompt_tokens(self.prompts[-2])) if len(self.prompts) > 1 else 0
        for chunk in self.model.stream(messages, options, should_stop):
            if not self.reading or self.reading[-1][1] != total:
                reused = self.model.last_prompt_reuse
                self.reading.append((total - reused, total))
                self.dropped.append((cached - reused, cached - before))
            yield chunk

    def read(self, messages: Sequence[ChatMessage], should_stop: ShouldStop) -> bool:
        return self.model.read(messages, should_stop)

    def count_tokens(self, text: str) -> int:
        return self.model.count_tokens(text)

    def close(self) -> None:
        pass


@pytest.mark.model
def test_the_real_model_reads_only_each_turns_new_message_and_new_memories(
    fresh_smollm2: Callable[[], LlamaChatModel], database: Database
) -> None:
    """Against SmolLM2's own tokenizer, template and prompt cache: after the
    first turn, a turn reads its message, the memories new to it and a few
    tokens more (its time, the chat template's markers, the end of the reply
    before it), however long the conversation before it.

    Sampled freely, the model sometimes writes a word in other tokens than
    its text is read back in (' "' then '#' for ' "#'; an emoji's bytes
    apart): the next turn read the reply again from there (8 tokens once:
    a turn of 33).  The reply's tokens as sampled are kept with it now
    (``LlamaChatModel``), so nothing the cache held is read again."""
    model = _Reading(fresh_smollm2())
    with real_chat(model, database) as chat:
        for fact in FACTS:
            chat.remember(fact)
        conversation = chat.new_conversation()
        asked = ["What is my dog called?", "Where does my sister live?", "Thanks. And my dog?"]
        for text in asked:
            _answer(chat, conversation.id, text)

        count = model.model.count_tokens
        said = [m for m in chat.history(conversation.id) if m.role == "user"]
        assert [m.metadata for m in said] == [{GIVEN: [1]}, {GIVEN: [2]}, None]
        # What a turn adds as new memories is their block, markers and lines.
        new = [count(f"<memories>\n- (#{i}) {FACTS[i - 1]}\n</memories>") for i in (1, 2)] + [0]
        (read, total), *later = model.reading
        assert read == total  # a fresh context reads all of the first
        over = [
            turn_read - count(text) - memories
            for (turn_read, _), text, memories in zip(later, asked[1:], new[1:], strict=True)
        ]
        assert all(0 < extra <= 32 for extra in over), (over, model.dropped)
        # Nothing the cache held is read again: the reply before neither.
        assert all(again == 0 for again, _ in model.dropped), model.dropped
        assert later[-1][1] > later[0][1] > total  # the prompt grew; what was read did not


# -- excerpts of the user's other conversations --------------------------------


def _recalling(
    database: Database, broker: InferenceBroker, recalling: list[bool] | None = None
) -> ChatService:
    on = recalling if recalling is not None else [True]
    settings = ChatSettings(memories_top_k=1, excerpts_top_k=2)
    prompts = PromptLibrary(resolve_paths().config_dir / "prompts")
    return recalling_chat(database, broker, prompts, settings, lambda: on[0])


def _said_before(
    chat: ChatService, broker: InferenceBroker, database: Database, off_record: bool = False
) -> Message:
    """A conversation where the user named their climbing coach (never
    harvested), indexed as the background job indexes it; the message."""
    earlier = chat.new_conversation(off_record)
    chat.rename(earlier.id, "Climbing plans")
    _answer(chat, earlier.id, "My climbing coach at the bouldering hall is called Brigitte.")
    MessageIndexer.over(database, broker).index_missing()
    [said] = [m for m in chat.history(earlier.id) if m.role == "user"]
    return said


def test_what_was_said_in_another_conversation_reaches_a_reply_once(
    database: Database, broker: InferenceBroker, model: ScriptedChatModel
) -> None:
    chat = _recalling(database, broker)
    said = _said_before(chat, broker, database)
    conversation = chat.new_conversation()

    first = _answer(chat, conversation.id, "What is my climbing coach called?").replies()[-1]
    _answer(chat, conversation.id, "Is my climbing coach strict, do you think?")

    prompt = model.requests[-2][0]
    assert '<excerpts>\n- ("Climbing plans", ' in prompt[-1].content
    assert "the user said) My climbing coach at the bouldering hall is called Brigitte." in (
        prompt[-1].content
    )
    assert first.excerpt_ids[0] == said.id
    assert first.message is not None
    [shown] = [e for e in chat.used_excerpts(first.message) if e.message_id == said.id]
    assert shown.conversation_id == said.conversation_id
    # The next turn finds it where it was given, and does not send it again.
    later = "".join(m.content for m in model.requests[-1][0])
    assert later.count("is called Brigitte.") == 1


def test_no_excerpt_of_an_off_the_record_conversation_or_with_recall_turned_off(
    database: Database, broker: InferenceBroker, model: ScriptedChatModel
) -> None:
    recalling = [True]
    chat = _recalling(database, broker, recalling)
    _said_before(chat, broker, database, off_record=True)
    conversation = chat.new_conversation()

    _answer(chat, conversation.id, "What is my climbing coach called?")
    assert "Brigitte" not in model.requests[-1][0][-1].content

    _said_before(chat, broker, database)
    recalling[0] = False
    answered = _answer(chat, conversation.id, "Who is my climbing coach?").replies()[-1]

    assert "Brigitte" not in "".join(m.content for m in model.requests[-1][0])
    assert answered.excerpt_ids == ()


@pytest.mark.model
def test_the_real_models_recall_what_another_conversation_said_into_a_reply(
    fresh_smollm2: Callable[[], LlamaChatModel], minilm_path: Path, database: Database
) -> None:
    """SmolLM2 answers and MiniLM embeds, as in the app: a fact said only
    in an earlier conversation (never harvested) is found by its meaning,
    given to the reply as an excerpt, and named by the reply."""
    recording = _Reading(fresh_smollm2())
    broker = InferenceBroker()
    broker.start()
    try:
        broker.load_chat_model(lambda: recording).result(TIMEOUT)
        broker.load_embedder(lambda: LlamaEmbedder(minilm_path)).result(TIMEOUT)
        chat = _recalling(database, broker)
        said = _said_before(chat, broker, database)
        for other in ("I bought new running shoes today.", "The weather in Lyon is grey."):
            chat.send(chat.new_conversation().id, other)
        MessageIndexer.over(database, broker).index_missing()
        conversation = chat.new_conversation()

        reply = _answer(chat, conversation.id, "Who trains me at the bouldering gym?")

        [answered] = reply.replies()
        # Found by meaning, before the shoes and the weather: what the user
        # said, or Reverie's reply to it (SmolLM2's reply varies from run
        # to run here, and one naming Brigitte may rank first).
        assert said.id in answered.excerpt_ids
        assert answered.message is not None
        shown = chat.used_excerpts(answered.message)
        assert shown[0].conversation_id == said.conversation_id
        prompt = recording.prompts[-1][-1].content
        assert "is called Brigitte." in prompt and "Climbing plans" in prompt
    finally:
        broker.stop()
