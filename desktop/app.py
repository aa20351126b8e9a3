"""The composition root: builds every part of Reverie, in a stated order.

1. paths and logging, 2. settings, 3. the database, 4. the inference broker
and the models it loads, 5. the chat service, the harvest, the dreamer, the
routine runner and the agenda reviewer, 6. the windows and the tray.
A part that cannot start (a corrupt model, an unreadable database) is
reported in the window and on the command line; the rest still starts.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from desktop import __version__
from desktop.core import jobs
from desktop.core.agenda import AgendaReviewer
from desktop.core.chat import ChatService
from desktop.core.db import ConversationStore, Database, open_database
from desktop.core.db.skills import SkillStore
from desktop.core.db.tasks import TaskStore
from desktop.core.dreaming.activity import UserActivity
from desktop.core.dreaming.contradictions import ContradictionPass
from desktop.core.dreaming.dedup import DedupPass
from desktop.core.dreaming.dreamer import Dreamer
from desktop.core.dreaming.fading import DecayPass, StalePass
from desktop.core.dreaming.preferences import PreferencePass
from desktop.core.dreaming.skill_review import SkillPass
from desktop.core.dreaming.task_review import TaskPass
from desktop.core.errors import EnvironmentProblem
from desktop.core.harvest import Harvester
from desktop.core.jobs import failure_message
from desktop.core.memory_service import MemoryService
from desktop.core.memory_tools import memory_tools
from desktop.core.paths import AppPaths, resolve_paths
from desktop.core.prompts import PromptLibrary
from desktop.core.routines import RoutineRunner
from desktop.core.secrets import SecretStore
from desktop.core.settings import Settings, SettingsProblem, load_settings, save_settings
from desktop.core.skill_tools import skill_tools
from desktop.core.skills import SkillLibrary
from desktop.core.task_tools import task_tools
from desktop.core.tasks import TaskService
from desktop.core.time_zones import zone_named
from desktop.core.tools import Toolbox
from models.broker import InferenceBroker, Job
from models.convert_bert import CONVERTER_VERSION, ensure_default_embedder_gguf
from models.embedded import default_chat_model_path, default_embedding_source
from models.interfaces import ChatMessage, GenerationOptions
from models.llama_chat import LlamaChatModel
from models.llama_embedder import LlamaEmbedder

log = logging.getLogger("reverie")

# Stored vectors record the embedder's name; a new converter means new vectors.
DEFAULT_EMBEDDER_NAME = f"all-MiniLM-L6-v2@{CONVERTER_VERSION}"


@dataclass
class Core:
    """The Qt-free parts, built in order; ``problems`` lists what could not start."""

    paths: AppPaths
    settings: Settings
    broker: InferenceBroker
    secrets: SecretStore
    database: Database | None = None
    conversations: ConversationStore | None = None
    memories: MemoryService | None = None
    tasks: TaskService | None = None
    skills: SkillLibrary | None = None
    chat: ChatService | None = None
    harvester: Harvester | None = None
    dreamer: Dreamer | None = None
    routines: RoutineRunner | None = None
    agenda: AgendaReviewer | None = None
    activity: UserActivity = field(default_factory=UserActivity)
    """When the user is chatting: background work gives way."""
    problems: list[str] = field(default_factory=list)

    def close(self) -> None:
        self.broker.stop()
        if self.database is not None:
            self.database.close()


def build_core(paths: AppPaths) -> Core:
    settings, settings_problem = load_settings(paths.settings_file)
    activity = UserActivity()
    quiet = settings.dream.quiet_seconds
    broker = InferenceBroker(background_allowed=lambda: activity.quiet(quiet))
    core = Core(paths, settings, broker, SecretStore(), activity=activity)
    if settings_problem is not None:
        core.problems.append(str(settings_problem))
    try:
        paths.ensure()
    except OSError as error:
        core.problems.append(f"Reverie cannot create its folders: {error}.")
    if not paths.settings_file.exists():  # written once, so users find it to edit
        try:
            save_settings(settings, paths.settings_file)
        except SettingsProblem as error:
            core.problems.append(str(error))
    try:
        core.database = open_database(paths.database_file)
    except EnvironmentProblem as error:
        core.problems.append(f"Conversations and memory are unavailable: {error}")
    if core.database is not None:
        prompts = PromptLibrary(paths.config_dir / "prompts")
        core.conversations = conversations = ConversationStore(core.database)
        core.memories = MemoryService.over(core.database, broker, prompts)
        core.tasks = TaskService(TaskStore(core.database), zone_named(settings.tasks.time_zone))
        core.skills = SkillLibrary(SkillStore(core.database), paths.skills_dir)
        tools = [
            *memory_tools(core.memories),
            *task_tools(core.tasks),
            *skill_tools(core.skills),
        ]
        core.chat = ChatService(
            conversations,
            core.memories,
            broker,
            prompts,
            settings.models,
            settings.chat,
            toolbox=Toolbox(tools, prompts),
            tasks=core.tasks,
            skills=core.skills,
        )
        core.harvester = Harvester(
            conversations,
            core.memories,
            broker,
            prompts,
            core.chat.count_tokens,
            context_length=settings.models.context_length,
            settings=settings.memory,
        )
        core.dreamer = Dreamer(
            core.database,
            core.memories,
            broker,
            prompts,
            settings.dream,
            [
                DecayPass(),
                DedupPass(),
                ContradictionPass(),
                StalePass(),
                TaskPass(core.tasks, conversations),
                SkillPass(core.skills, conversations),
                PreferencePass(conversations),
            ],
            snapshots_dir=paths.snapshots_dir,
            working_set_file=paths.working_set_file,
            tasks=core.tasks.store,
            skills=core.skills,
        )
        core.routines = RoutineRunner(
            core.tasks,
            conversations,
            broker,
            prompts,
            settings.models,
            memories=core.memories,
            memories_k=settings.tasks.routine_memories,
        )
        core.agenda = AgendaReviewer(
            core.tasks,
            conversations,
            core.memories,
            broker,
            prompts,
            core.chat.count_tokens,
            context_length=settings.models.context_length,
            settings=settings.tasks,
        )
    broker.start()
    return core


def chat_model_path(settings: Settings) -> Path:
    chosen = settings.models.chat_model_path
    return Path(chosen).expanduser() if chosen else default_chat_model_path()


def load_models(core: Core) -> tuple[Job, Job]:
    """Queue loading the chat model and the embedder on the broker thread."""
    settings, models_dir = core.settings, core.paths.models_dir
    chat = core.broker.load_chat_model(
        lambda: LlamaChatModel(
            chat_model_path(settings),
            context_length=settings.models.context_length,
            threads=settings.models.threads or None,
        )
    )
    embedder = core.broker.load_embedder(
        lambda: LlamaEmbedder(
            ensure_default_embedder_gguf(default_embedding_source(), models_dir),
            name=DEFAULT_EMBEDDER_NAME,
            n_threads=settings.models.threads or None,
        )
    )
    return chat, embedder


# -- entry points ----------------------------------------------------------
def main(argv: Sequence[str] | None = None) -> int:
    args = _parse_arguments(argv)
    paths = resolve_paths()
    with _logging(paths, args.verbose):
        if args.check:
            return run_check(paths, args.prompt)
        return run_gui(paths, start_hidden=args.hidden)


def run_check(paths: AppPaths, prompt: str) -> int:
    """Start every part without a window, report it, and stream one short reply."""
    core = build_core(paths)
    try:
        chat_job, embed_job = load_models(core)
        chat_failure = failure_message(jobs.CHAT, chat_job)
        embed_failure = failure_message(jobs.EMBEDDER, embed_job)
        problems = [*core.problems, *filter(None, (chat_failure, embed_failure))]
        for problem in problems:
            print(f"problem: {problem}", file=sys.stderr)
        if core.database is not None:
            print(f"database: {paths.database_file} (driver: {core.database.driver_name})")
        print(
            "secrets: system keyring available"
            if core.secrets.available
            else "secrets: no system keyring; Reverie will refuse to store secrets"
        )
        if embed_failure is None:
            print(f"embedding model: {embed_job.result()}")
        if chat_failure is None:
            print(f"chat model: {chat_job.result()}")
            reply = core.broker.chat(
                [ChatMessage("user", prompt)], GenerationOptions(max_tokens=48, temperature=0.0)
            )
            print("reply: ", end="")
            for chunk in reply.chunks():
                print(chunk.text, end="", flush=True)
            print()
        return 1 if problems else 0
    finally:
        core.close()


def run_gui(paths: AppPaths, *, start_hidden: bool) -> int:
    from desktop.ui.application import ReverieApplication, qt_application
    from desktop.ui.single_instance import SingleInstance, instance_key

    qt = qt_application()
    instance = SingleInstance(instance_key(paths.data_dir), qt)
    if not instance.claim():
        print("Reverie is already running; its window was brought to the front.")
        return 0
    core = build_core(paths)
    for problem in core.problems:
        print(f"Reverie: {problem}", file=sys.stderr)
    chat_job, embed_job = load_models(core)
    try:
        app = ReverieApplication(core, chat_job, embed_job)
        instance.activation_requested.connect(app.show_chat)
        return app.run(start_hidden=start_hidden)
    finally:
        instance.release()
        core.close()


def _parse_arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="reverie", description="A private, local AI companion.")
    parser.add_argument("--version", action="version", version=f"Reverie {__version__}")
    parser.add_argument("--hidden", action="store_true", help="start in the tray only")
    parser.add_argument("--verbose", action="store_true", help="log debug details")
    parser.add_argument(
        "--check", action="store_true", help="start without a window, report, and reply once"
    )
    parser.add_argument("--prompt", default="Say hello in one sentence.", help="for --check")
    return parser.parse_args(argv)


@contextmanager
def _logging(paths: AppPaths, verbose: bool) -> Iterator[None]:
    """Log to the console (warnings, or everything with --verbose) and to a file."""
    console = logging.StreamHandler()
    console.setLevel(logging.DEBUG if verbose else logging.WARNING)
    handlers: list[logging.Handler] = [console]
    try:
        paths.log_dir.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(paths.log_dir / "reverie.log", encoding="utf-8"))
    except OSError as error:
        print(f"Reverie: not writing a log file: {error}", file=sys.stderr)
    root = logging.getLogger()
    formatter = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    previous_level = root.level
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    for handler in handlers:
        handler.setFormatter(formatter)
        root.addHandler(handler)
    try:
        yield
    finally:
        for handler in handlers:
            root.removeHandler(handler)
            handler.close()
        root.setLevel(previous_level)


if __name__ == "__main__":
    sys.exit(main())
