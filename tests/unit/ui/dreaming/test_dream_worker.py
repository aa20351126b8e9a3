"""Dreams on their own thread: started, paused, resumed, and giving way to a
user turn in the chat window; a real database and broker, a scripted model."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.base.prompts import PromptLibrary
from desktop.core.chat.service import ChatService
from desktop.core.db import Database
from desktop.core.dreaming.activity import UserActivity
from desktop.core.dreaming.dreamer import DreamReport
from desktop.core.memory.service import MemoryService
from desktop.ui.chat.window import ChatWindow
from desktop.ui.dreaming.worker import DreamRunner
from models.broker import InferenceBroker
from tests.dreams import add_memory, make_dreamer
from tests.fakes import HashingEmbedder, ScriptedChatModel, StepGate
from tests.unit.ui.conftest import WAIT_MS, send_by_enter

REX = "The user has a dog named Rex"
REX_TWIN = "The user has a dog called Rex"
MERGE = json.dumps(
    {
        "toSave": [
            {"content": "The user has a dog named Rex.", "category": "people", "sourceIds": [1, 2]}
        ],
        "toDelete": [1, 2],
    }
)


@pytest.fixture
def activity() -> UserActivity:
    return UserActivity()


@pytest.fixture
def broker(model: ScriptedChatModel, activity: UserActivity) -> Iterator[InferenceBroker]:
    """A broker holding background work while the user is in a turn, as the app's does."""
    broker = InferenceBroker(background_allowed=lambda: activity.quiet(0))
    broker.start()
    broker.load_chat_model(lambda: model).result(timeout=5)
    broker.load_embedder(lambda: HashingEmbedder()).result(timeout=5)
    yield broker
    broker.stop()


@pytest.fixture
def runner(
    qtbot: QtBot,
    database: Database,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    activity: UserActivity,
    tmp_path: Path,
) -> Iterator[DreamRunner]:
    dreamer = make_dreamer(database, memories, broker, prompts, tmp_path)
    dreams = DreamRunner(dreamer, activity, quiet_seconds=0)
    yield dreams
    dreams.stop()
    assert not dreams.qthread.isRunning()


def follow(window: ChatWindow, activity: UserActivity) -> None:
    """What the window is busy with goes to *activity*, as the app's does."""
    window.busy_changed.connect(
        lambda busy: (
            activity.turn_started()
            if busy
            else activity.turn_ended(by_user=not window.only_greeting)
        )
    )


def test_a_dream_runs_off_the_ui_thread_and_reports(
    qtbot: QtBot, runner: DreamRunner, memories: MemoryService, model: ScriptedChatModel
) -> None:
    add_memory(memories, REX)
    add_memory(memories, REX_TWIN)
    model.queue(MERGE)
    states: list[str] = []
    runner.state_changed.connect(states.append)

    with qtbot.waitSignal(runner.finished, timeout=WAIT_MS) as finished:
        assert runner.dream("manual")
        assert not runner.dream("manual")  # one at a time

    report: DreamReport = finished.args[0]
    assert report.run.status == "completed" and report.applied == 1
    assert states == ["dreaming", "idle"]
    assert runner.state == "idle" and not runner.running


def test_pausing_stops_the_dream_and_resuming_goes_on_from_its_checkpoint(
    qtbot: QtBot, runner: DreamRunner, memories: MemoryService, model: ScriptedChatModel
) -> None:
    add_memory(memories, REX)
    add_memory(memories, REX_TWIN)
    gate = StepGate(allowed=1)
    model.gate = gate
    model.queue(MERGE, MERGE)
    states: list[str] = []
    runner.state_changed.connect(states.append)
    runner.dream("manual")
    gate.wait_for_arrival(2)  # the dream's model call is under way

    with qtbot.waitSignal(runner.finished, timeout=WAIT_MS) as stopped:
        runner.pause()
        gate.open()
    assert stopped.args[0].run.status == "paused"
    assert states == ["dreaming", "paused"]
    assert not runner.dream("schedule")  # paused: no new dream starts

    with qtbot.waitSignal(runner.finished, timeout=WAIT_MS) as resumed:
        runner.resume()

    report: DreamReport = resumed.args[0]
    assert report.run.id == stopped.args[0].run.id
    assert report.run.status == "completed" and report.applied == 1
    assert states == ["dreaming", "paused", "dreaming", "idle"]


def test_resuming_while_the_paused_dream_winds_down_goes_on_once_it_has_stopped(
    qtbot: QtBot, runner: DreamRunner, memories: MemoryService, model: ScriptedChatModel
) -> None:
    """Round 13: Resume pressed at once after Pause showed idle while the
    dream still ran, and left it unfinished with nothing to go on with it."""
    add_memory(memories, REX)
    add_memory(memories, REX_TWIN)
    gate = StepGate(allowed=1)
    model.gate = gate
    model.queue(MERGE, MERGE)
    states: list[str] = []
    runner.state_changed.connect(states.append)
    runner.dream("manual")
    gate.wait_for_arrival(2)  # the dream's model call is under way

    runner.pause()
    runner.resume()  # the user changes their mind before the dream has stopped
    assert runner.state == "dreaming" and runner.running
    with qtbot.waitSignal(runner.finished, timeout=WAIT_MS) as stopped:
        gate.open()
    assert stopped.args[0].run.status == "paused"
    with qtbot.waitSignal(runner.finished, timeout=WAIT_MS) as resumed:
        pass

    assert resumed.args[0].run.id == stopped.args[0].run.id
    assert resumed.args[0].run.status == "completed"
    assert runner.dreamer.dreams.unfinished() is None
    assert states == ["dreaming", "idle"]  # dreaming all along, idle once it is done


def test_a_user_turn_during_a_dream_is_answered_while_the_dream_waits(
    qtbot: QtBot,
    chat: ChatService,
    runner: DreamRunner,
    activity: UserActivity,
    memories: MemoryService,
    model: ScriptedChatModel,
) -> None:
    window = ChatWindow(chat, chat.new_conversation().id, hide_on_close=False)
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.turn_ended, timeout=WAIT_MS):  # its greeting
        window.set_chat_available(True, "")
    follow(window, activity)
    add_memory(memories, REX)
    add_memory(memories, REX_TWIN)
    # The dream's first try is cut for the user, the reply, then the dream again.
    model.queue(MERGE, "Here I am.", MERGE)
    gate = StepGate(allowed=1)
    model.gate = gate
    finished: list[str] = []
    runner.finished.connect(lambda report: finished.append(report.run.status))
    runner.dream("manual")
    gate.wait_for_arrival(2)  # the dream is mid-answer

    with qtbot.waitSignal(window.turn_ended, timeout=WAIT_MS):
        send_by_enter(qtbot, window, "are you there?")
        gate.open()

    assert window.transcript.messages[-1].text == "Here I am."
    assert finished == []  # the dream gave way and is not done yet
    qtbot.waitUntil(lambda: finished == ["completed"], timeout=WAIT_MS)
    assert [m.status for m in memories.store.listed(status="superseded")] == ["superseded"] * 2
    window.shutdown()


def test_after_reverie_s_greeting_alone_the_user_is_not_mid_conversation(
    qtbot: QtBot, chat: ChatService, activity: UserActivity, model: ScriptedChatModel
) -> None:
    # "Dream now" right after the start waited the quiet period (30 s by
    # default): the greeting ended a turn as if the user had spoken.
    window = ChatWindow(chat, chat.new_conversation().id, hide_on_close=False)
    qtbot.addWidget(window)
    follow(window, activity)
    with qtbot.waitSignal(window.turn_ended, timeout=WAIT_MS):  # its greeting
        window.set_chat_available(True, "")

    assert window.only_greeting and activity.quiet(3600)

    model.queue("Here I am.")
    with qtbot.waitSignal(window.turn_ended, timeout=WAIT_MS):
        send_by_enter(qtbot, window, "are you there?")

    assert not window.only_greeting and not activity.quiet(3600)
    window.shutdown()


def test_a_message_written_during_the_greeting_makes_it_the_user_s_turn(
    qtbot: QtBot, chat: ChatService, activity: UserActivity, model: ScriptedChatModel
) -> None:
    window = ChatWindow(chat, chat.new_conversation().id, hide_on_close=False)
    qtbot.addWidget(window)
    follow(window, activity)
    gate = StepGate()
    model.gate = gate
    model.queue("Hello!", "Here I am.")
    window.set_chat_available(True, "")
    gate.wait_for_arrival(1)  # the greeting is held

    with qtbot.waitSignal(window.turn_ended, timeout=WAIT_MS):
        send_by_enter(qtbot, window, "are you there?")
        gate.open()

    assert not window.only_greeting and not activity.quiet(3600)
    window.shutdown()
