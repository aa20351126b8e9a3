"""The composition root: builds every part of Reverie, in a stated order.

1. paths and logging, 2. settings, 3. the database, 4. the inference broker,
the model library and the backends of each role (chat, background work,
embeddings), 5. the background workers, the chat service (with the tool that hands
work to the workers), the harvest, the dreamer, the routine runner and the
agenda reviewer, 6. the windows and the tray.
A part that cannot start (a corrupt model, an unreadable database) is
reported in the window and on the command line; the rest still starts.
The first start's conversion of the memory model shows its progress in both.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, tzinfo
from typing import TextIO, cast

from desktop import __version__, export_cli, models_cli, transfer_cli
from desktop.core.backends.library import ModelLibrary
from desktop.core.backends.roles import (
    BackendMaker,
    Preparation,
    PreparationProgress,
    RoleSwitch,
    context_overrun,
    describe_role,
    preparing_text,
)
from desktop.core.base.errors import EnvironmentProblem
from desktop.core.base.files import (
    PRIVATE_UMASK,
    NotARegularFile,
    make_private_folder,
    make_tree_private,
)
from desktop.core.base.jobs import ROLE_NAMES, failure_message
from desktop.core.base.paths import AppPaths, FolderOverrideProblem, explain, resolve_paths
from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.secrets import SecretStore
from desktop.core.base.settings import (
    SettingsProblem,
    is_absent,
    load_settings,
    save_settings,
)
from desktop.core.base.time_zones import zone_named
from desktop.core.chat.service import ChatService
from desktop.core.chat.tools.memory import memory_tools
from desktop.core.chat.tools.skills import skill_tools
from desktop.core.chat.tools.sub_sessions import sub_session_tools
from desktop.core.chat.tools.tasks import task_tools
from desktop.core.chat.tools.toolbox import Toolbox
from desktop.core.db import ConversationStore, is_damage, open_database
from desktop.core.db.skills import SkillStore
from desktop.core.db.tasks import TaskStore
from desktop.core.db.workers import WorkerStore
from desktop.core.dreaming.activity import UserActivity
from desktop.core.dreaming.contradictions import ContradictionPass
from desktop.core.dreaming.dedup import DedupPass
from desktop.core.dreaming.dreamer import Dreamer
from desktop.core.dreaming.erasure import Eraser
from desktop.core.dreaming.fading import DecayPass, StalePass
from desktop.core.dreaming.preferences import PreferencePass
from desktop.core.dreaming.skill_review import SkillPass
from desktop.core.dreaming.snapshots import damage_report, emptied_report, unopenable_report
from desktop.core.dreaming.task_review import TaskPass
from desktop.core.memory.embedding import storable
from desktop.core.memory.excerpts import ExcerptRetriever
from desktop.core.memory.harvest import Harvester
from desktop.core.memory.message_index import MessageIndexer
from desktop.core.memory.recall import Recall
from desktop.core.memory.service import MemoryService
from desktop.core.privacy import known_words
from desktop.core.privacy.log_privacy import PrivateRotatingFileHandler, RedactingFilter
from desktop.core.privacy.prompt_safety import users_own
from desktop.core.privacy.redaction import Redactor, redact, redaction_notice
from desktop.core.skills.library import SkillLibrary
from desktop.core.tasks.agenda import AgendaReviewer
from desktop.core.tasks.routines import RoutineRunner
from desktop.core.tasks.service import TaskService
from desktop.core.workers.service import ConversationReporter, Workers
from desktop.ui.shell.parts import Core
from models.broker import InferenceBroker, Job, Role
from models.catalog import Catalog, CatalogInvalid, load_catalog
from models.errors import ModelError
from models.interfaces import ChatMessage, GenerationOptions
from models.model_file import shown_text
from models.server_http import DEFAULT_READ_TIMEOUT_S

log = logging.getLogger("reverie")

LOG_FILE_NAME = "reverie.log"
LOG_FILE_BYTES = 1_000_000
"""The log rotates at this size..."""
LOG_BACKUPS = 3
"""...keeping this many older files (reverie.log.1 to .3): at most 4 MB in all."""

CHECK_TEXT = "reverie --check"
"""What the check embeds, as memory search embeds a memory."""
CHECK_SERVER_WAIT_S = 30.0
"""The longest ``reverie --check`` waits on a server's silence (the app
waits 5 minutes, for a big prompt): a server that took the connection and
never answers is said to be so in half a minute, not in five."""

PRINT_EVERY_S = 2.0
"""Within a stage of preparing a model, a progress line at most this often..."""
PRINT_EVERY_FRACTION = 0.1
"""...and only once it moved this much."""


def build_core(
    paths: AppPaths,
    early_problems: Sequence[str] = (),
    server_wait: float = DEFAULT_READ_TIMEOUT_S,
) -> Core:
    """Every Qt-free part, in order; *early_problems* (found before, such as
    a log file that cannot be written) lead ``Core.problems``; a role's
    server counts as not answering after *server_wait* seconds of silence."""
    settings, settings_problem = load_settings(paths.settings_file)
    activity = UserActivity()
    quiet = settings.dream.quiet_seconds
    # One redactor, so a secret caught anywhere goes everywhere it is typed
    # again, and from everything a model is sent.
    redactor = Redactor()
    broker = InferenceBroker(
        background_allowed=lambda: activity.quiet(quiet), text_filter=redactor.known
    )
    secrets = SecretStore()
    catalog, catalog_problem = _catalog()
    library = ModelLibrary(paths.models_dir, catalog)
    preparation = PreparationProgress()
    maker = BackendMaker(
        library, secrets, preparation, preparing_dir=paths.preparing_dir, server_wait=server_wait
    )
    roles = RoleSwitch(broker, maker)
    core = Core(
        paths,
        settings,
        broker,
        secrets,
        library,
        roles,
        activity=activity,
        preparation=preparation,
        problems=list(early_problems),
    )
    for problem in (settings_problem, catalog_problem):
        if problem is not None:
            core.problems.append(str(problem))
    try:
        paths.ensure()
    except OSError as error:
        core.problems.append(f"Reverie cannot create its folders: {error}.")
    if is_absent(paths.settings_file):  # written once, so users find it to edit
        try:
            # one a `reverie models` command wrote meanwhile is kept
            save_settings(settings, paths.settings_file, since=settings)
        except SettingsProblem as error:
            core.problems.append(str(error))
    if (emptied := emptied_report(paths.database_file, paths.snapshots_dir)) is not None:
        core.problems.append(emptied)  # opened, it would start anew, the copies rotated away
    else:
        try:
            core.database = open_database(paths.database_file)
            core.problems.extend(core.database.opening_notes)
        except EnvironmentProblem as error:
            core.problems.append(
                unopenable_report(paths.database_file, error, paths.snapshots_dir)
                if is_damage(error)  # not "start a new one": a sound copy may be beside it
                else f"Conversations and memory are unavailable: {error}"
            )
    if core.database is not None:
        prompts = PromptLibrary(paths.prompts_dir)
        core.conversations = conversations = ConversationStore(core.database)
        # Schedules, worker time gates, the times a message names ("last
        # Friday"), the chat's own time and the dates it gives the model are
        # read in one zone, the one Reverie started with.
        time_zone = zone_named(settings.tasks.time_zone)

        def zone() -> tzinfo:
            return time_zone

        core.memories = MemoryService.over(core.database, broker, prompts, redactor, zone)
        core.recall = Recall(
            core.memories.retriever,
            ExcerptRetriever.over(core.database, broker, redactor, zone),
            core.memories.store.source_messages,
            lambda: core.settings.memory.recall_past_conversations,  # a save applies at once
        )
        core.message_indexer = MessageIndexer.over(core.database, broker)
        core.tasks = TaskService(TaskStore(core.database), time_zone, redactor=redactor)
        if core.tasks.problem:  # the runs could not be moved to a new time zone
            core.problems.append(core.tasks.problem)
        core.skills = SkillLibrary(SkillStore(core.database), paths.skills_dir, redactor=redactor)
        core.eraser = Eraser(
            core.database,
            core.memories.store,
            snapshots_dir=paths.snapshots_dir,
            working_set_file=paths.working_set_file,
            working_set_size=lambda: settings.dream.working_set_size,
            kept_days=lambda: settings.dream.deleted_kept_days,
            skills=core.skills,
        )
        # A value named a secret later leaves MEMORIES.md with the memories.
        core.memories.when_taken_out(core.eraser.memories_rewritten)
        tools = [
            *memory_tools(core.memories),
            *task_tools(core.tasks),
            *skill_tools(core.skills),
        ]
        worker_store = WorkerStore(core.database)
        # Background workers run the chat's own tools; the chat is given the
        # tool that hands them work.  They run once the host starts them
        # (``Workers.recover``), never on a database found damaged.
        core.workers = Workers(
            worker_store,
            conversations,
            broker,
            prompts,
            ConversationReporter(conversations),
            tools=tools,
            settings=settings.workers,
            model_settings=settings.models,
            zone=zone,
            activity=activity,
            memories=core.memories,
            tasks=core.tasks,
            skills=core.skills,
            redactor=redactor,
        )
        core.chat = ChatService(
            conversations,
            core.memories,
            broker,
            prompts,
            settings.models,
            settings.chat,
            toolbox=Toolbox([*tools, *sub_session_tools(core.workers)], prompts),
            tasks=core.tasks,
            skills=core.skills,
            redactor=redactor,
            worker_texts=worker_store,
            recall=core.recall,
            clock=lambda: datetime.now(time_zone),
        )
        core.chat.when_deleted(core.workers.cancel_conversation)
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
            tasks=core.tasks,
            skills=core.skills,
            eraser=core.eraser,
        )
        core.routines = RoutineRunner(
            core.tasks,
            conversations,
            broker,
            prompts,
            settings.models,
            memories=core.memories,
            memories_k=settings.tasks.routine_memories,
            redactor=redactor,
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
            redactor=redactor,
        )
    broker.start()
    return core


def _catalog() -> tuple[Catalog, CatalogInvalid | None]:
    """The shipped catalog of recommended models (empty if it cannot be read)."""
    try:
        return load_catalog(), None
    except CatalogInvalid as error:
        return Catalog.model_construct(version=1, models=()), error  # none to offer


class PreparationPrinter:
    """Prints a model's preparation to stderr: a line as each stage starts,
    and within a stage one per ``PRINT_EVERY_FRACTION`` at most every
    ``PRINT_EVERY_S`` (a slow disk shows it moving, a log is not flooded)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._stage = ""
        self._fraction = 0.0
        self._printed_at = 0.0

    def __call__(self, step: Preparation) -> None:
        if step.failed:  # the load's problem says why, with the other problems
            return
        stage = step.stage.rstrip("0123456789/ ")  # "writing tensors 12/101": one stage
        now = self._clock()
        moved = (
            step.fraction - self._fraction >= PRINT_EVERY_FRACTION
            and now - self._printed_at >= PRINT_EVERY_S
        )
        if stage == self._stage and not moved and step.fraction < 1.0:
            return
        self._stage, self._fraction, self._printed_at = stage, step.fraction, now
        print(f"Reverie: {preparing_text(step.fraction)} ({step.stage})", file=sys.stderr)


def load_models(core: Core) -> dict[Role, Job]:
    """Queue loading every role's models (background work with none of its
    own uses the chat's); the load jobs, by role."""
    return core.roles.apply(core.settings.models)


# -- entry points ----------------------------------------------------------
def main(argv: Sequence[str] | None = None) -> int:
    args = _parse_arguments(argv)
    try:
        paths = resolve_paths()
    except FolderOverrideProblem as problem:  # before any folder exists to log into
        print(f"Reverie: {problem}", file=sys.stderr)
        return 2
    # Before anything is created: every new file and folder is the user's
    # alone (SQLite's and the log's are also fixed one by one).
    previous_umask = os.umask(PRIVATE_UMASK)
    try:
        with _logging(paths, args.verbose) as log_problems:
            commands = {
                "models": models_cli.run,
                "export": export_cli.run,
                "import": transfer_cli.run,
            }
            if args.command in commands:
                for said in log_problems:  # no window to show them
                    print(f"Reverie: {said}", file=sys.stderr)
                with _output_may_stop():
                    return commands[args.command](args, paths)
            if args.check:
                return run_check(paths, args.prompt, log_problems)
            return run_gui(paths, start_hidden=args.hidden, early_problems=log_problems)
    finally:
        os.umask(previous_umask)  # main() also runs inside other programs (the tests)


class _StoppedReading(io.TextIOBase):
    """Standard output that a reader may stop reading (``reverie import
    FILE | head``): what is printed after that goes nowhere, and the command
    goes on (an import half done because its output was cut short would
    surprise)."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.stopped = False

    def write(self, text: str) -> int:
        if not self.stopped:
            try:
                self.out.write(text)
            except BrokenPipeError:
                self.stopped = True
        return len(text)

    def flush(self) -> None:
        if not self.stopped:
            try:
                self.out.flush()
            except BrokenPipeError:
                self.stopped = True


@contextmanager
def _output_may_stop() -> Iterator[None]:
    """A command's standard output, as ``_StoppedReading`` keeps it."""
    out = sys.stdout
    kept = _StoppedReading(out)
    sys.stdout = cast(TextIO, kept)
    try:
        yield
    finally:
        sys.stdout = out
        if kept.stopped:  # Python's own flush at exit would say it in a traceback
            with contextlib.suppress(OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), out.fileno())


def run_check(paths: AppPaths, prompt: str, early_problems: Sequence[str] = ()) -> int:
    """Start every part without a window, report it, and stream one short reply."""
    core = build_core(paths, early_problems, server_wait=CHECK_SERVER_WAIT_S)
    core.preparation.add_listener(PreparationPrinter())
    try:
        loads = load_models(core)
        failures = {role: failure_message(ROLE_NAMES[role], job) for role, job in loads.items()}
        problems = [*core.problems, *filter(None, failures.values())]
        overruns = (context_overrun(core.broker, role) for role in (Role.CHAT, Role.BACKGROUND))
        problems.extend(dict.fromkeys(filter(None, overruns)))  # once for a shared model
        if core.database is not None:
            problems.extend(filter(None, [damage_report(core.database, paths.snapshots_dir)]))
        for problem in problems:
            print(f"problem: {problem}", file=sys.stderr)
        if core.database is not None:
            print(f"database: {paths.database_file} (driver: {core.database.driver_name})")
        print(
            "secrets: system keyring available"
            if core.secrets.available
            else "secrets: no system keyring; Reverie will refuse to store secrets"
        )
        for role in Role:
            if failures.get(role) is None:
                print(f"{role} model: {describe_role(core.broker, role)}")
        if failures.get(Role.EMBEDDINGS) is None and (unembedded := _embed_once(core)):
            print(f"problem: {unembedded}", file=sys.stderr)
            problems.append(unembedded)
        if failures.get(Role.CHAT) is None and (unanswered := _reply_once(core, prompt)):
            print(f"problem: {unanswered}", file=sys.stderr)
            problems.append(unanswered)
        return 1 if problems else 0
    finally:
        core.close()


def _embed_once(core: Core) -> str | None:
    """Embed one text, as memory search does (a server loads lazily: down,
    or answering with what cannot be stored, is found out only now), and say
    the vectors' size and how many memories wait for vectors of this model;
    what went wrong if it could not."""
    try:
        storable(core.broker.embed([CHECK_TEXT]).result(), 1, core.broker.embedder_name)
    except ModelError as error:
        return f"{ROLE_NAMES[Role.EMBEDDINGS]} could not embed a text: {error}"
    print(f"embeddings: {getattr(core.broker.model(Role.EMBEDDINGS), 'dimension', '?')} dimensions")
    if core.memories is not None and (left := core.memories.store.count_without_vectors()):
        print(
            f"memories: {left} wait for vectors of this model (another model's, or of another"
            " size, or none), made in the background while Reverie runs; until then they are"
            " found by their words"
        )
    return None


def _reply_once(core: Core, prompt: str) -> str | None:
    """Stream one short reply to *prompt*; what went wrong if the chat model
    could not give it (a server loads lazily: down, or not serving the model,
    is found out only now).

    The reply is shown as every text a server sends is (``shown_text``): its
    control characters visible, never run by the terminal, and its line
    breaks too, so that it stays on its one line and cannot forge another
    line of the check ("chat: ok").  A secret in *prompt* is taken out
    first, as it is of a message typed in a chat: on a server backend the
    prompt leaves Reverie, and a model echoes what it is given."""
    said = redact(prompt)
    if said.kinds:
        print(f"prompt: {redaction_notice(said.kinds)}")
    print("reply: ", end="")
    try:
        reply = core.broker.chat(
            [ChatMessage("user", users_own(said.text))],
            GenerationOptions(max_tokens=48, temperature=0.0),
        )
        for chunk in reply.chunks():
            # Escaped piece by piece (a control character is one character, so
            # no sequence split between chunks survives), and never shortened.
            print(shown_text(chunk.text, limit=sys.maxsize), end="", flush=True)
    except ModelError as error:
        return f"{ROLE_NAMES[Role.CHAT]} could not reply: {error}"
    finally:
        print()
    return None


def run_gui(paths: AppPaths, *, start_hidden: bool, early_problems: Sequence[str] = ()) -> int:
    from desktop.ui.shell.application import ReverieApplication, qt_application
    from desktop.ui.shell.single_instance import (
        SingleInstance,
        SingleInstanceUnavailable,
        instance_key,
    )

    qt = qt_application()
    instance = SingleInstance(instance_key(paths.data_dir), qt)
    unguarded = ""
    try:
        if not instance.claim():
            print("Reverie is already running; its window was brought to the front.")
            return 0
    except SingleInstanceUnavailable as error:
        # Refusing to start would leave the user without Reverie over a
        # socket file; a second copy is the lesser harm, and it is said.
        unguarded = f"{error} Reverie started anyway; another launch may start a second copy."
    core = build_core(paths, early_problems)
    if unguarded:
        core.problems.insert(0, unguarded)
    for problem in core.problems:
        print(f"Reverie: {problem}", file=sys.stderr)
    core.preparation.add_listener(PreparationPrinter())
    threading.Thread(target=known_words.load, name="known-words", daemon=True).start()
    loads = load_models(core)
    try:
        app = ReverieApplication(core, loads)
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
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    models_cli.add_parser(commands)
    export_cli.add_parser(commands)
    transfer_cli.add_parser(commands)
    return parser.parse_args(argv)


@contextmanager
def _logging(paths: AppPaths, verbose: bool) -> Iterator[list[str]]:
    """Log to the console (warnings, or everything with --verbose) and to a
    rotating file readable by the user alone; every line redacted first.
    Yields why there is no log file, as problems to show at start (none
    when there is one): never a wait, nor lines written through a link."""
    console = logging.StreamHandler()
    console.setLevel(logging.DEBUG if verbose else logging.WARNING)
    handlers: list[logging.Handler] = [console]
    problems: list[str] = []
    try:
        make_private_folder(paths.log_dir)
        make_tree_private(paths.log_dir)  # logs an older version left readable by others
        handlers.append(
            PrivateRotatingFileHandler(
                paths.log_dir / LOG_FILE_NAME, max_bytes=LOG_FILE_BYTES, backups=LOG_BACKUPS
            )
        )
    except NotARegularFile as odd:
        problems.append(
            f"No log file is written: {odd}, where the log goes. Move or remove it; "
            "the next start writes the log there again."
        )
    except OSError as error:
        problems.append(f"No log file is written: {explain(error)}.")
    root = logging.getLogger()
    # httpx logs every request at INFO: noise beside Reverie's own lines.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    formatter = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    redacting = RedactingFilter()
    previous_level = root.level
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    for handler in handlers:
        handler.setFormatter(formatter)
        handler.addFilter(redacting)
        root.addHandler(handler)
    try:
        yield problems
    finally:
        for handler in handlers:
            root.removeHandler(handler)
            handler.close()
        root.setLevel(previous_level)


if __name__ == "__main__":
    sys.exit(main())
