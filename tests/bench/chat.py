"""Chat benchmark: prompt layout and a responsive window, measured in one run.

    python -m tests.bench.chat [--conversations 3] [--json results.json]

1. Turns 1 to 20 of one conversation through the whole chat path
   (database, 24 memories and nine past conversations recalled with the
   default embedder, prompt assembly, broker, SmolLM2), each message asking
   about one of nine topics in turn.  Per turn: the prompt tokens llama.cpp
   read (not taken from its cache) against the tokens of the new message
   plus the memories and excerpts the conversation was not given before;
   target for turns 2 to 20: at most 32 more on average.  Time to first
   token (TTFT) of turn 2 and turn 20 (the same topic and length): target
   turn 20 / turn 2 <= 1.3.  Also: turn 21 right after a background job
   used the model (it runs on its own context), and, for scale, turn 20's
   prompt read from scratch.  Between turns, as the app does a minute
   after a reply, the history is summarised in the background once the
   next turn may not fit; the turns that still waited on a summary
   before their reply are counted.
2. The UI event loop's longest stall while a reply streams into the real
   chat window (offscreen), in a fresh process like a newly started app: a
   5 ms timer heartbeat, the longest gap between beats minus the interval.
   Target: < 50 ms.

Conversations alternate positions within one process; each figure is the
median over conversations.  Not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import ChatSettings, ModelSettings
from desktop.core.chat.service import ChatService, Reply, ReplyKind, Stage
from desktop.core.chat.tools.memory import memory_tools
from desktop.core.chat.tools.toolbox import Toolbox, ToolCall
from desktop.core.db import ConversationStore, Database, open_database
from desktop.core.memory.excerpts import ExcerptRetriever
from desktop.core.memory.lines import excerpt_line, memory_line
from desktop.core.memory.message_index import MessageIndexer
from desktop.core.memory.recall import Recall
from desktop.core.memory.service import MemoryService
from desktop.core.privacy.redaction import Redactor
from models.broker import InferenceBroker, Priority
from models.convert_bert import ensure_default_embedder_gguf
from models.embedded import default_chat_model_path, default_embedding_source
from models.interfaces import ChatMessage, Chunk, GenerationOptions, ShouldStop
from models.llama_chat import LlamaChatModel
from models.llama_embedder import LlamaEmbedder

CONTEXT = 4096
REPLY_TOKENS = 40
TURNS = 21
HEARTBEAT_MS = 5
MEMORIES = [
    "The user's name is Mara.",
    "Mara is training for the Berlin marathon in September.",
    "Mara runs 40 kilometres a week along the river.",
    "Mara's cat is called Miso.",
    "Miso the cat only eats salmon-flavoured food.",
    "Mara works as a nurse on night shifts.",
    "Mara's hospital is the Charite in Berlin.",
    "Mara's brother Tomas lives in Lisbon.",
    "Mara's mother phones every Sunday evening.",
    "Mara is learning Portuguese on weekends.",
    "Mara also speaks fluent Polish.",
    "Mara is allergic to peanuts.",
    "Mara's favourite food is ramen.",
    "Mara plays the cello in a community orchestra.",
    "Mara listens to jazz while cooking.",
    "Mara wants to visit Japan next spring.",
    "Mara went hiking in Norway last summer.",
    "Mara drives an old green Volvo.",
    "Mara's Volvo needs new winter tyres.",
    "Mara's birthday is on the 3rd of March.",
    "Mara reads crime novels before sleeping.",
    "Mara's balcony has tomato plants.",
    "Mara is saving money for a flat of her own.",
    "Mara dislikes long voice messages.",
]
PAST = [
    ("Long run", "I did 32 kilometres on Sunday, my longest run so far.", "That's a big step!"),
    ("Vet visit", "Miso had his teeth checked at the vet, all fine.", "Good news for Miso."),
    ("Night shift", "The night shift was quiet, two admissions only.", "Rest well today."),
    ("Lisbon", "Tomas sent photos of his new flat in Alfama.", "Alfama is lovely."),
    ("Portuguese", "I finally get the difference between ser and estar.", "Muito bem!"),
    ("Dinner", "Made ramen with a soft egg and spring onions tonight.", "Sounds delicious."),
    ("Orchestra", "We rehearsed the Elgar cello concerto's slow movement.", "Beautiful piece."),
    ("Japan plans", "Thinking of Kyoto for the cherry blossoms in April.", "Book early!"),
    ("Volvo", "The Volvo failed its inspection because of the brakes.", "Get them fixed soon."),
]
"""Earlier conversations (a title, what the user said, the reply), one a
topic: their messages are recalled as excerpts beside the memories."""
TOPICS = (
    "running",
    "her cat",
    "her job",
    "her family",
    "languages",
    "food",
    "music",
    "travel",
    "her car",
)
"""What the questions ask about, in turn: the memories retrieved change from
turn to turn, so some turns bring memories the conversation was not given yet.
Turns 2 and 20 ask about the same topic (20 = 2 + 2 * 9)."""


def default_embedder(folder: Path) -> LlamaEmbedder:
    """The app's default embedder: memories are retrieved for every message."""
    return LlamaEmbedder(ensure_default_embedder_gguf(default_embedding_source(), folder))


def question(turn: int) -> str:
    """The user's message of *turn*: the same words each turn, but its number and topic."""
    return f"Question {turn:02d}: tell me one short fact about {TOPICS[turn % len(TOPICS)]}."


class RecordingModel:
    """The real model, remembering the last prompt it was given (to replay it cold)."""

    def __init__(self, model: LlamaChatModel) -> None:
        self.model = model
        self.name = model.name
        self.context_length = model.context_length
        self.last_prompt: list[ChatMessage] = []

    def stream(
        self,
        messages: Sequence[ChatMessage],
        options: GenerationOptions,
        should_stop: ShouldStop | None = None,
    ) -> Iterator[Chunk]:
        self.last_prompt = list(messages)
        return self.model.stream(messages, options, should_stop)

    def read(self, messages: Sequence[ChatMessage], should_stop: ShouldStop) -> bool:
        return self.model.read(messages, should_stop)

    def count_tokens(self, text: str) -> int:
        return self.model.count_tokens(text)

    def fork(self) -> LlamaChatModel:
        return self.model.fork()

    def close(self) -> None:
        self.model.close()


class FirstToken:
    """A turn listener that notes when the first piece of the answer arrives."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.first: float | None = None
        self.memory_ids: tuple[int, ...] = ()
        self.excerpt_ids: tuple[int, ...] = ()
        self.summarised = False
        """Whether the turn summarised the history before its reply."""

    def stage(self, stage: Stage) -> None:
        self.summarised = self.summarised or stage is Stage.COMPACTING

    def reply_started(self, kind: ReplyKind) -> None:
        pass

    def text(self, piece: str) -> None:
        if self.first is None:
            self.first = time.perf_counter() - self.started

    def reply_finished(self, reply: Reply) -> None:
        self.memory_ids = reply.memory_ids
        self.excerpt_ids = reply.excerpt_ids

    def notice(self, text: str) -> None:
        pass

    def tool_called(self, call: ToolCall) -> None:
        pass


@dataclass(frozen=True)
class TurnCost:
    """What one turn's prompt cost: tokens llama.cpp read (not taken from its
    cache), against what was new in it: the user's message, and the memories
    and excerpts the conversation was not given before (their blocks: each
    one's markers and lines)."""

    turn: int
    prompt_tokens: int
    read_tokens: int
    message_tokens: int
    new_memory_tokens: int
    new_excerpt_tokens: int
    ttft_s: float
    summarised: bool
    """The turn summarised the history before its reply (it waited)."""
    summarised_after: bool = False
    """The background summarised the history after this turn."""

    @property
    def overhead(self) -> int:
        new = self.message_tokens + self.new_memory_tokens + self.new_excerpt_tokens
        return self.read_tokens - new


def build(
    folder: Path, database: Database, broker: InferenceBroker
) -> tuple[ChatService, MemoryService, Recall]:
    """The chat as the app builds it, with the memories remembered and the
    past conversations said (a week ago) and indexed."""
    prompts = PromptLibrary(folder / "prompts")
    memories = MemoryService.over(database, broker, prompts)
    recall = Recall(
        memories.retriever,
        ExcerptRetriever.over(database, broker, Redactor()),
        memories.store.source_messages,
        lambda: True,
    )
    week_ago = time.time() - 7 * 86400.0
    conversations = ConversationStore(database, clock=lambda: week_ago)
    for title, said, replied in PAST:
        past = conversations.create(title)
        conversations.add_message(past.id, "user", said)
        conversations.add_message(past.id, "assistant", replied)
    MessageIndexer.over(database, broker).index_missing()
    chat = ChatService(
        ConversationStore(database),
        memories,
        broker,
        prompts,
        ModelSettings(context_length=CONTEXT, max_reply_tokens=REPLY_TOKENS, temperature=0.0),
        ChatSettings(),
        toolbox=Toolbox(memory_tools(memories), prompts),  # as the app offers them
        recall=recall,
    )
    for memory in MEMORIES:
        chat.remember(memory)
    return chat, memories, recall


def ttft(chat: ChatService, conversation_id: int, turn: int) -> float:
    return answered(chat, conversation_id, turn).first or 0.0


def answered(chat: ChatService, conversation_id: int, turn: int) -> FirstToken:
    listener = FirstToken()
    chat.run(chat.send(conversation_id, question(turn)), listener)
    assert listener.first is not None, "the model said nothing"
    return listener


@dataclass
class Given:
    """What a conversation was given so far: memory ids, excerpts' message ids."""

    memories: set[int]
    excerpts: set[int]


def turn_cost(
    chat: ChatService,
    memories: MemoryService,
    recall: Recall,
    recording: RecordingModel,
    conversation_id: int,
    turn: int,
    given: Given,
) -> TurnCost:
    """Turn *turn* answered, and what its prompt cost; *given* grows by this
    turn's memories and excerpts."""
    listener = answered(chat, conversation_id, turn)
    model = recording.model
    new = [i for i in listener.memory_ids if i not in given.memories]
    new_excerpts = [i for i in listener.excerpt_ids if i not in given.excerpts]
    given.memories.update(new)
    given.excerpts.update(new_excerpts)
    lines = [memory_line(m).render() for m in memories.store.get_many(new).values()]
    excerpts = recall.excerpts(new_excerpts).values()
    excerpt_lines = [excerpt_line(e, None).render() for e in excerpts]
    total = len(model.prompt_tokens(recording.last_prompt))
    return TurnCost(
        turn,
        total,
        total - model.last_prompt_reuse,
        model.count_tokens(question(turn)),
        model.count_tokens(_block("memories", lines)),
        model.count_tokens(_block("excerpts", excerpt_lines)),
        listener.first or 0.0,
        listener.summarised,
    )


def _block(name: str, lines: list[str]) -> str:
    return f"<{name}>\n" + "\n".join(lines) + f"\n</{name}>" if lines else ""


def cold_ttft(recording: RecordingModel) -> float:
    """The last prompt again on a fresh context: every token read from scratch."""
    fresh = recording.fork()
    try:
        started = time.perf_counter()
        for chunk in fresh.stream(recording.last_prompt, GenerationOptions(max_tokens=1)):
            if chunk.text or chunk.finish_reason:
                return time.perf_counter() - started
        raise RuntimeError("no output")
    finally:
        fresh.close()


def bench_layout(conversations: int) -> dict[str, Any]:
    samples: dict[str, list[float]] = {"turn_2": [], "turn_20": [], "after_bg": [], "cold_20": []}
    prompt_tokens: list[int] = []
    costs: list[list[TurnCost]] = []
    with tempfile.TemporaryDirectory() as folder:
        model = LlamaChatModel(default_chat_model_path(), context_length=CONTEXT)
        recording = RecordingModel(model)
        broker = InferenceBroker()
        broker.start()
        broker.load_chat_model(lambda: recording).result()
        broker.load_embedder(lambda: default_embedder(Path(folder))).result()
        database = open_database(Path(folder) / "bench.sqlite3")
        try:
            chat, memories, recall = build(Path(folder), database, broker)
            for _ in range(conversations):
                conversation = chat.new_conversation()
                given = Given(set(), set())
                costs.append([])
                for turn in range(1, TURNS):
                    cost = turn_cost(
                        chat, memories, recall, recording, conversation.id, turn, given
                    )
                    if chat.owes_compaction():  # the app: a minute after the reply
                        cost = replace(cost, summarised_after=chat.compact_idle() > 0)
                        if chat.reading is not None:  # read ahead before the next message
                            chat.reading.result()
                    costs[-1].append(cost)
                    seconds = cost.ttft_s
                    if turn == 2:
                        samples["turn_2"].append(seconds)
                    elif turn == TURNS - 1:
                        samples["turn_20"].append(seconds)
                        samples["cold_20"].append(cold_ttft(recording))
                        prompt_tokens.append(len(model.prompt_tokens(recording.last_prompt)))
                background = broker.chat(
                    [ChatMessage("user", "Summarise: the user asked twenty questions.")],
                    GenerationOptions(max_tokens=32, temperature=0.0),
                    Priority.BACKGROUND,
                )
                background.result()
                samples["after_bg"].append(ttft(chat, conversation.id, TURNS))
        finally:
            broker.stop()
            database.close()
    medians = {key: statistics.median(values) for key, values in samples.items()}
    later = [cost for turns in costs for cost in turns if cost.turn >= 2]
    return {
        "per_turn": [
            [asdict(cost) | {"overhead": cost.overhead} for cost in turns] for turns in costs
        ],
        "mean_overhead_tokens": statistics.mean(cost.overhead for cost in later),
        "mean_read_tokens": statistics.mean(cost.read_tokens for cost in later),
        "turns_summarised_before_reply": sum(c.summarised for turns in costs for c in turns),
        "summarised_in_background": sum(c.summarised_after for turns in costs for c in turns),
        "samples_s": samples,
        "median_s": medians,
        "turn_20_prompt_tokens": statistics.median(prompt_tokens),
        "ratio_turn20_turn2": medians["turn_20"] / medians["turn_2"],
        "ratio_after_background_turn2": medians["after_bg"] / medians["turn_2"],
        "ratio_cold20_turn20": medians["cold_20"] / medians["turn_20"],
    }


def bench_ui_stall(replies: int) -> dict[str, Any]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QCoreApplication, QElapsedTimer, QEvent, QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from desktop.ui.chat.markdown import warm_up
    from desktop.ui.chat.window import ChatWindow
    from desktop.ui.shell.application import settle_garbage_collector

    qt = QApplication.instance() or QApplication(sys.argv[:1])
    stalls: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        broker = InferenceBroker()
        broker.start()
        model = LlamaChatModel(default_chat_model_path(), context_length=CONTEXT)
        broker.load_chat_model(lambda: model).result()
        broker.load_embedder(lambda: default_embedder(Path(folder))).result()
        database = open_database(Path(folder) / "bench.sqlite3")
        chat = ChatService(
            ConversationStore(database),
            MemoryService.over(database, broker, PromptLibrary(Path(folder) / "prompts")),
            broker,
            PromptLibrary(Path(folder) / "prompts"),
            ModelSettings(context_length=CONTEXT, max_reply_tokens=300, temperature=0.0),
        )
        warm_up()  # as the application does at start-up
        window = ChatWindow(chat, chat.new_conversation().id, hide_on_close=False)
        window.set_chat_available(True, "")
        window.show()
        settle_garbage_collector()  # as the application does before its event loop
        try:
            for n in range(replies):
                clock, longest = QElapsedTimer(), [0.0]
                beat = QTimer(window, interval=HEARTBEAT_MS)

                def on_beat(clock: QElapsedTimer = clock, longest: list[float] = longest) -> None:
                    gap = clock.nsecsElapsed() / 1e6
                    longest[0] = max(longest[0], gap - HEARTBEAT_MS)
                    clock.restart()

                beat.timeout.connect(on_beat)
                window.input.setPlainText(
                    f"Write a Python class for a bank account ({n}), with markdown and code."
                )
                loop = QEventLoop()
                window.turn_ended.connect(loop.quit)
                clock.start()
                beat.start()
                window.send()
                loop.exec()
                beat.stop()
                window.turn_ended.disconnect(loop.quit)
                stalls.append(longest[0])
        finally:
            window.shutdown()
            window.close()
            window.deleteLater()  # gone before the interpreter tears Qt down
            QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
            broker.stop()
            database.close()
            qt.shutdown()  # Qt torn down now, not by the garbage collector at exit
    return {"longest_stall_ms": stalls, "median_longest_stall_ms": statistics.median(stalls)}


def ui_stall_in_a_fresh_process(replies: int) -> dict[str, Any]:
    """The stall measurement in a new process, like a freshly started app: the
    first part's leftovers (a closed model, its garbage) are not the window's."""
    child = subprocess.run(
        [sys.executable, "-m", "tests.bench.chat", "--ui-only", "--replies", str(replies)],
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, Any] = json.loads(child.stdout.strip().splitlines()[-1])
    return result


def print_turn_table(per_turn: list[list[dict[str, Any]]]) -> None:
    """Turn by turn, the median over conversations of each figure."""
    print("turn  prompt  read  message  new memories  new excerpts  overhead  TTFT s")
    for row in zip(*per_turn, strict=True):
        med = {key: statistics.median(cost[key] for cost in row) for key in row[0]}
        print(
            f"{med['turn']:4.0f}  {med['prompt_tokens']:6.0f}  {med['read_tokens']:4.0f}  "
            f"{med['message_tokens']:7.0f}  {med['new_memory_tokens']:12.0f}  "
            f"{med['new_excerpt_tokens']:12.0f}  {med['overhead']:8.0f}  {med['ttft_s']:6.3f}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--conversations", type=int, default=3)
    parser.add_argument("--replies", type=int, default=3)
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--ui-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.ui_only:  # the child process of the stall measurement
        print(json.dumps(bench_ui_stall(args.replies)))
        return 0
    layout = bench_layout(args.conversations)
    print_turn_table(layout["per_turn"])
    print(
        f"turns 2-{TURNS - 1}: {layout['mean_read_tokens']:.1f} prompt tokens read per turn; "
        f"beyond the new message, memories and excerpts {layout['mean_overhead_tokens']:.1f} "
        "on average (target <= 32)"
    )
    print(
        f"turns that waited on a summary {layout['turns_summarised_before_reply']}, "
        f"summaries made in the background between turns {layout['summarised_in_background']}"
    )
    medians = layout["median_s"]
    print(
        f"TTFT turn 2 {medians['turn_2']:.3f} s, turn 20 {medians['turn_20']:.3f} s: "
        f"ratio {layout['ratio_turn20_turn2']:.2f} (target <= 1.3)"
    )
    print(
        f"TTFT right after a background job {medians['after_bg']:.3f} s: "
        f"ratio to turn 2 {layout['ratio_after_background_turn2']:.2f}"
    )
    print(
        f"turn 20 read from scratch ({layout['turn_20_prompt_tokens']:.0f} tokens) "
        f"{medians['cold_20']:.3f} s: {layout['ratio_cold20_turn20']:.1f}x the cached layout"
    )
    ui = ui_stall_in_a_fresh_process(args.replies)
    print(
        f"longest UI stall while streaming {ui['median_longest_stall_ms']:.1f} ms "
        f"(per reply {', '.join(f'{s:.1f}' for s in ui['longest_stall_ms'])}; target < 50)"
    )
    if args.json:
        args.json.write_text(json.dumps({"layout": layout, "ui": ui}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
