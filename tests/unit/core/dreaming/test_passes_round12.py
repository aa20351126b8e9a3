"""Dream prompts fit the model's context (round 12): a pass shows what fits,
in parts or in order, leaves the rest for the next dream and says so; the
purge of old completed tasks never waits on the model."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest

from desktop.core.base.tokens import MESSAGE_OVERHEAD
from desktop.core.db import ConversationStore, Database
from desktop.core.dreaming.control import DreamControl
from desktop.core.skills.library import SkillLibrary
from desktop.core.tasks.service import TaskService
from models.interfaces import ChatMessage, Chunk, GenerationOptions, ShouldStop
from models.llama_chat import ContextOverflow
from tests.fakes import ScriptedChatModel
from tests.unit.core.dreaming.conftest import DAY, Dreaming

TASK = "Reply to the email from the landlord about the heating and the kitchen window, item {n}"
PARA = (
    "Tonight I want to cook the lentil soup again, the one with cumin, carrots and a little "
    "lemon at the end. Last time the lentils went to mush because I left them on the stove "
    "too long while I answered emails, so please remind me how long red lentils really need, "
    "and whether I should soak them first. Keep the quantities in grams, please, my scale "
    "only shows grams and cups confuse me. "
)


class TightModel(ScriptedChatModel):
    """Refuses a prompt its context cannot hold, as llama.cpp does (a word
    is a token here), and answers every pass with nothing to do."""

    def __init__(self, context_length: int = 4096) -> None:
        super().__init__(default="{}")
        self.context_length = context_length

    def stream(
        self,
        messages: Sequence[ChatMessage],
        options: GenerationOptions,
        should_stop: ShouldStop | None = None,
    ) -> Iterator[Chunk]:
        tokens = sum(self.count_tokens(m.content) + MESSAGE_OVERHEAD for m in messages)
        if tokens >= self.context_length:
            raise ContextOverflow(tokens, self.context_length)
        self.default = _nothing(options.json_schema or {})
        yield from super().stream(messages, options, should_stop)


def _nothing(schema: dict[str, Any]) -> str:
    """An answer under *schema* that changes nothing: its lists empty, its flags false."""
    empty = {"array": "[]", "boolean": "false"}
    fields = [
        f'"{name}": {empty[kind]}'
        for name, spec in schema.get("properties", {}).items()
        if (kind := spec.get("type")) in empty
    ]
    return "{" + ", ".join(fields) + "}"


@pytest.fixture
def model() -> ScriptedChatModel:
    return TightModel()


def _entry(dreaming: Dreaming, run_id: int, name: str) -> tuple[str, str]:
    [entry] = [e for e in dreaming.dreamer.dreams.log_entries(run_id) if e.pass_name == name]
    return entry.outcome, entry.message


def _task_prompts(model: ScriptedChatModel) -> list[str]:
    return [r[0][-1].content for r in model.requests if "The tasks:" in r[0][-1].content]


def _fits(model: ScriptedChatModel) -> None:
    for messages, options in model.requests:
        tokens = sum(model.count_tokens(m.content) + MESSAGE_OVERHEAD for m in messages)
        assert tokens + options.max_tokens <= model.context_length


def test_many_tasks_are_shown_in_parts_that_fit_each_task_once_and_old_ones_purged(
    make_dreaming: Callable[..., Dreaming],
    tasks: TaskService,
    model: ScriptedChatModel,
    database: Database,
) -> None:
    dreaming = make_dreaming(tasks=tasks)
    old = tasks.add("Buy a lamp", conversation_id=None)
    tasks.complete(old.id)
    dreaming.clock.advance(40 * DAY)
    conversations = ConversationStore(database, clock=dreaming.clock)
    chores = conversations.create("chores")
    for n in range(300):
        tasks.add(TASK.format(n=n), conversation_id=chores.id)
    conversations.add_message(chores.id, "user", "I replied to the landlord about item 3.")
    dreaming.clock.advance(60)

    report = dreaming.dreamer.run("manual", DreamControl())

    outcome, message = _entry(dreaming, report.run.id, "tasks")
    assert outcome == "applied", message
    assert tasks.get(old.id).status == "deleted"  # type: ignore[union-attr]
    prompts = _task_prompts(model)
    assert len(prompts) >= 2  # 300 tasks do not fit one prompt of 4096
    shown = [int(n) for p in prompts for n in re.findall(r"kitchen window, item (\d+)", p)]
    assert sorted(shown) == list(range(300))
    assert all("I replied to the landlord about item 3." in p for p in prompts)
    _fits(model)


def test_messages_that_do_not_fit_are_left_for_the_next_dream_not_skipped(
    make_dreaming: Callable[..., Dreaming],
    tasks: TaskService,
    model: ScriptedChatModel,
    database: Database,
) -> None:
    dreaming = make_dreaming(tasks=tasks)
    conversations = ConversationStore(database, clock=dreaming.clock)
    chat = conversations.create("soup")
    for n in range(100):  # with the messages, more than one prompt holds
        tasks.add(TASK.format(n=n), conversation_id=chat.id)
    for n in range(40):
        dreaming.clock.advance(1)
        conversations.add_message(chat.id, "user", f"{PARA[:290]} (note {n})")
    dreaming.clock.advance(60)

    first = dreaming.dreamer.run("manual", DreamControl())

    outcome, message = _entry(dreaming, first.run.id, "tasks")
    assert outcome != "rolled_back", message
    prompt = _task_prompts(model)[0]
    seen = [int(n) for n in re.findall(r"\(note (\d+)\)", prompt)]
    assert seen and seen == list(range(len(seen))) and len(seen) < 40  # the oldest first
    assert f"Only {len(seen)} of 40 messages" in message and "next dream" in message
    model.requests.clear()
    dreaming.clock.advance(DAY)

    second = dreaming.dreamer.run("manual", DreamControl())

    assert _entry(dreaming, second.run.id, "tasks")[0] != "rolled_back"
    prompt = _task_prompts(model)[0]
    assert re.findall(r"\(note (\d+)\)", prompt)[0] == str(len(seen))  # where the first stopped
    _fits(model)


def test_long_messages_fit_the_preference_and_skill_prompts(
    make_dreaming: Callable[..., Dreaming],
    skill_library: SkillLibrary,
    model: ScriptedChatModel,
    database: Database,
) -> None:
    dreaming = make_dreaming(skills=skill_library)
    conversations = ConversationStore(database, clock=dreaming.clock)
    for title in ("soup monday", "soup friday"):
        chat = conversations.create(title)
        for n in range(30):
            dreaming.clock.advance(1)
            conversations.add_message(chat.id, "user", f"{PARA}(note {n})")
    dreaming.clock.advance(60)

    report = dreaming.dreamer.run("manual", DreamControl())

    for name in ("preferences", "skills"):
        outcome, message = _entry(dreaming, report.run.id, name)
        assert outcome != "rolled_back" and "context holds" not in message, message
        assert "left for the next dream" in message
    assert len(model.requests) >= 2  # both asked
    _fits(model)


def test_a_context_too_small_for_one_task_still_purges_old_completed_tasks(
    make_dreaming: Callable[..., Dreaming],
    tasks: TaskService,
    model: ScriptedChatModel,
    database: Database,
) -> None:
    assert isinstance(model, TightModel)
    model.context_length = 100  # less than the instructions alone take
    dreaming = make_dreaming(tasks=tasks)
    old = tasks.add("Buy a lamp", conversation_id=None)
    tasks.complete(old.id)
    dreaming.clock.advance(40 * DAY)
    tasks.add("Water the plants", conversation_id=None)
    dreaming.clock.advance(60)

    report = dreaming.dreamer.run("manual", DreamControl())

    outcome, message = _entry(dreaming, report.run.id, "tasks")
    assert outcome == "applied", message
    assert tasks.get(old.id).status == "deleted"  # type: ignore[union-attr]
    assert "1 of the 1 open tasks were left as they are" in message
    assert _task_prompts(model) == []


def test_a_skill_too_long_for_the_context_is_left_as_it_is_and_said(
    make_dreaming: Callable[..., Dreaming],
    skill_library: SkillLibrary,
    model: ScriptedChatModel,
) -> None:
    dreaming = make_dreaming(skills=skill_library)
    text = "Deploy the blog\n" + "".join(
        f"{n}. Run `make step{n}` in ~/blog.\n" for n in range(900)
    )
    skill = skill_library.create("deploy-blog", text)
    dreaming.clock.advance(60)

    report = dreaming.dreamer.run("manual", DreamControl())

    outcome, message = _entry(dreaming, report.run.id, "skills")
    assert outcome != "rolled_back", message
    assert "“deploy-blog” was not condensed: it is too long for the model's context." in message
    assert skill_library.read(skill.id).text == text
    _fits(model)


def test_preferences_show_the_messages_not_read_yet_first_then_the_rest_next_dream(
    make_dreaming: Callable[..., Dreaming], model: ScriptedChatModel, database: Database
) -> None:
    dreaming = make_dreaming()
    conversations = ConversationStore(database, clock=dreaming.clock)
    chat = conversations.create("soup")
    for n in range(60):
        dreaming.clock.advance(1)
        conversations.add_message(chat.id, "user", f"{PARA}(note {n})")
    dreaming.clock.advance(60)

    def asked() -> list[int]:
        [prompt] = [
            r[0][-1].content for r in model.requests if "preferences" in str(r[1].json_schema)
        ]
        model.requests.clear()
        return [int(n) for n in re.findall(r"\(note (\d+)\)", prompt)]

    first = dreaming.dreamer.run("manual", DreamControl())
    shown = asked()
    dreaming.clock.advance(DAY)
    second = dreaming.dreamer.run("manual", DreamControl())
    then = asked()

    assert shown == list(range(len(shown))) and len(shown) < 60  # the oldest first
    assert "next dream" in _entry(dreaming, first.run.id, "preferences")[1]
    assert then[0] == len(shown)  # where the first dream stopped
    assert _entry(dreaming, second.run.id, "preferences")[0] != "rolled_back"
    _fits(model)
