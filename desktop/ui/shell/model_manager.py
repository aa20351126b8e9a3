"""The models seen from the windows: the settings window with its Models page,
switching models without a restart, and saying how each role fares.

Saved settings go to the broker at once (``RoleSwitch``): a role whose
backends changed loads them between jobs, and keeps its old ones if that
fails.  A new embedding model has every memory embedded again in the
background.  The chat window's status bar says where the models run (a
server is worth knowing about), its banner why a role's model could not
answer; and, once, while only the small embedded model is in use, a card
suggests a model that fits this computer.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from desktop.core.backends.library import ModelLibrary
from desktop.core.backends.roles import context_overrun, describe_role
from desktop.core.base.autostart import Autostart
from desktop.core.base.jobs import ROLE_NAMES, failure_message
from desktop.core.base.settings import ModelSettings, Settings
from desktop.core.base.text import size_text
from desktop.ui.settings.downloads import Downloads
from desktop.ui.settings.models_page import ModelsPage
from desktop.ui.settings.window import SettingsWindow
from desktop.ui.widgets.job_watcher import JobWatcher
from desktop.ui.widgets.worker import TaskQueue
from models.broker import Job, Role, RoleHealth
from models.catalog import CatalogEntry
from models.errors import ModelError
from models.gguf_file import default_threads
from models.memory_estimate import available_memory
from models.server_http import ServerInfo, ServerProbe

if TYPE_CHECKING:
    from pathlib import Path

    from desktop.ui.chat.window import ChatWindow
    from desktop.ui.shell.parts import Core

log = logging.getLogger(__name__)

SUGGESTION_SHARE = 0.5
"""A suggested model needs at most this share of the memory free at start:
the rest stays for everything else the user runs."""
SUGGESTION_BYTES_PER_CORE = 1_300_000_000
"""...and its file at most this much per CPU core: on two cores a 4B model at
Q4_K_M writes about five words a second, an 8B one two (too slow to chat)."""


KEPT_UNTIL_RESTART = ("models.context_length", "models.max_reply_tokens", "models.temperature")
"""Model settings the chat, the harvest and the reviews plan their prompts with
from the start: the models keep the context Reverie started with."""


LIVE_SETTINGS = frozenset({"chat.appearance", "memory.recall_past_conversations"})
"""Settings outside the models that apply at once: the theme follows a save,
and past conversations stop being recalled with the next reply."""


def live_setting(name: str) -> bool:
    """Whether a saved change of setting *name* ("models.chat") takes effect
    at once: the models and the appearance do; the rest when Reverie starts again."""
    if name in LIVE_SETTINGS:
        return True
    return name.startswith("models.") and name not in KEPT_UNTIL_RESTART


def suggested_model(
    library: ModelLibrary, context: int, free: int, cores: int
) -> CatalogEntry | None:
    """The most capable catalog chat model that fits in a share of *free*
    bytes and runs at a readable pace on *cores* CPU cores."""
    fitting = [
        option.entry
        for option in library.options((), context)
        if option.entry is not None
        and option.kind == "chat"
        and option.estimate is not None
        and option.estimate.total <= free * SUGGESTION_SHARE
        and option.entry.size <= cores * SUGGESTION_BYTES_PER_CORE
    ]
    return max(fitting, key=lambda entry: entry.size, default=None)


def _embedded_only(models: ModelSettings) -> bool:
    return all(b.kind == "embedded" for b in (*models.chat, *models.background, models.embeddings))


class ModelManager(QObject):
    """Signals:
    health_changed(RoleHealth): from the broker's threads, delivered on the UI thread.
    embedder_changed(): a new embedding model loaded, or its server answers
        again: memories may need new vectors.
    """

    health_changed = Signal(object)
    embedder_changed = Signal()

    def __init__(
        self,
        core: Core,
        window: ChatWindow,
        parent: QObject | None = None,
        *,
        autostart: Autostart | None = None,
        folders: Sequence[tuple[str, Path]] = (),
    ) -> None:
        """*autostart* and *folders*: the settings window's Desktop page's
        (``SettingsWindow``)."""
        super().__init__(parent)
        self._core = core
        self._window = window
        self._context_length = core.settings.models.context_length
        self.downloads = Downloads(
            core.library, lambda: self._core.settings.models.hub_endpoint, self
        )
        self._probes = TaskQueue("server-probe", self)
        self._asking: set[ServerProbe] = set()
        """Probes asked for and not yet ended: quitting stops them."""
        self._said_failing: set[Role] = set()
        """Roles the banner says cannot answer: the chat says when they do again."""
        self.page = ModelsPage(
            core.settings, core.library, self.downloads, core.secrets, self._save, self._probe
        )
        self.settings_window = SettingsWindow(
            core.settings,
            core.paths.settings_file,
            extra_pages=[("Models", self.page)],
            live=live_setting,
            autostart=autostart,
            folders=folders,
        )
        self.settings_window.saved.connect(self.apply)
        self.health_changed.connect(self._on_health)
        core.broker.set_health_listener(self.health_changed.emit)
        window.settings_requested.connect(self.open_settings)
        window.models_requested.connect(lambda: self.open_settings("Models"))
        window.suggestion_accepted.connect(self._show_suggested)
        self._suggested: str | None = None
        window.suggestion_dismissed.connect(self._never_suggest)
        self._shut_down = False

    # -- opening -------------------------------------------------------------
    def open_settings(self, page: str = "") -> None:
        if page:
            self.settings_window.show_page(page)
        self.settings_window.present()

    def suggest_if_small(self) -> None:
        """Once, while every role runs the embedded model, suggest one that fits."""
        models = self._core.settings.models
        if not (models.suggest_model and _embedded_only(models)):
            return
        entry = suggested_model(
            self._core.library, models.context_length, available_memory(), default_threads()
        )
        if entry is None:
            return
        self._suggested = entry.id
        self._window.suggest_model(
            "Reverie runs on its tiny built-in model: it chats, but it is too small to learn "
            f"much about you or to dream well. {entry.name} ({size_text(entry.size)} to "
            "download) fits this computer and does both far better. Choose it, or another "
            "model or a server of your own, on the Models page."
        )

    def _show_suggested(self) -> None:
        self._window.suggestion.hide()
        self.open_settings("Models")
        if self._suggested is not None:
            self.page.show_model(self._suggested)

    def _never_suggest(self) -> None:
        settings = self._core.settings
        models = settings.models.model_copy(update={"suggest_model": False})
        self._save(settings.model_copy(update={"models": models}))

    # -- switching -----------------------------------------------------------
    def _save(self, settings: Settings) -> bool:
        return self.settings_window.save(settings)

    def apply(self, settings: Settings) -> None:
        """Saved *settings*: the models change now (what else changed, at the next start)."""
        self._core.settings = settings
        self.page.set_settings(settings)
        if not _embedded_only(settings.models):  # the suggestion is moot now
            self._window.suggestion.hide()
        # Prompts are planned for the context Reverie started with; a new
        # model loads with it too, until the next start.
        started = settings.models.model_copy(update={"context_length": self._context_length})
        self.watch(self._core.roles.apply(started))

    def watch(self, loads: Mapping[Role, Job]) -> None:
        """Say on the Models page and in the chat how each role's load goes."""
        for role, job in loads.items():
            self.page.set_role_status(role, "Loading…")
            watcher = JobWatcher(self._window)  # dies with the window: no late calls into it
            watcher.done.connect(lambda done, role=role: self._loaded(role, done))
            watcher.watch(job)
        self.show_where_models_run()

    def _loaded(self, role: Role, job: Job) -> None:
        if self._shut_down:  # a load that ended as Reverie quit: nothing to show it in
            return
        failure = failure_message(ROLE_NAMES[role], job)
        if failure is not None:
            log.warning("%s", failure)
            if self._core.broker.model(role) is not None:  # it kept what it had
                self.page.set_role_status(role, f"{failure} The model it had stays in use.", True)
            else:
                self.page.set_role_status(role, failure, True)
                if role is Role.CHAT:
                    self._window.set_chat_available(False, failure)
                else:
                    self._window.show_problem(failure)
        else:
            said = self._in_use(role)
            if role is Role.EMBEDDINGS and (left := self._to_embed()):
                said += (
                    f" {left} memories are being embedded again in the background; until"
                    " then they are found by their words."
                )
            overrun = context_overrun(self._core.broker, role)
            self.page.set_role_status(role, f"{said} {overrun or ''}".strip(), bool(overrun))
            self._window.show_role_problem(role.value, None)
            self.page.refresh(keep_edits=True)  # e.g. the embedder made on the first start
            self.page.loaded()
            if role is Role.CHAT:
                self._window.set_chat_available(True, "")
                self._window.set_status(f"Ready: {job.result()}")
            if role is Role.EMBEDDINGS:
                self.embedder_changed.emit()
        self.show_where_models_run()

    def _to_embed(self) -> int:
        memories = self._core.memories
        return 0 if memories is None else memories.store.count_without_vectors()

    def show_where_models_run(self) -> None:
        broker = self._core.broker
        if not self._core.settings.models.background:
            self.page.set_role_status(Role.BACKGROUND, self._in_use(Role.BACKGROUND))
        remote = [role for role in Role if any(b.remote for b in broker.backends(role))]
        if not remote:
            self._window.show_where_models_run("Models run on this computer", False)
            return
        names = ", ".join(ROLE_NAMES[role].split(" (")[0].lower() for role in remote)
        self._window.show_where_models_run(f"On a server of yours: {names}", True)

    def _on_health(self, health: RoleHealth) -> None:
        if self._shut_down:
            return
        name = ROLE_NAMES[health.role].split(" (")[0]
        if health.problem is None:
            said = None
        elif health.served_by:
            said = f"{name}: {health.problem} {health.served_by} answered instead."
        elif health.role is Role.CHAT:
            said = None  # the reply that failed says why, once
        else:
            said = f"{name}: {health.problem} It will try again later; nothing is lost."
        self._window.show_role_problem(health.role.value, said)
        if health.problem is None:
            self.page.set_role_status(health.role, self._in_use(health.role))
            self._answers_again(health.role, name)
        else:
            self.page.set_role_status(health.role, said or f"{name}: {health.problem}", True)
            if said is not None:
                self._said_failing.add(health.role)

    def _answers_again(self, role: Role, name: str) -> None:
        """Say in the chat that *role*, said to fail, answers again; for memory
        search, its upkeep runs now (it says how many memories it embeds
        again), not at the next clock tick."""
        if role not in self._said_failing:
            return
        self._said_failing.discard(role)
        self._window.notice(f"{name} answers again.")
        if role is Role.EMBEDDINGS:
            self.embedder_changed.emit()

    def _in_use(self, role: Role) -> str:
        """What serves *role*, and whether a server of it was asked yet."""
        said = f"In use: {describe_role(self._core.broker, role)}."
        health = self._core.broker.health(role)
        if any(b.remote for b in self._core.broker.backends(role)) and health.problem is None:
            said += " A server is asked when the role first needs it."
        return said

    # -- servers -------------------------------------------------------------
    def _probe(
        self,
        url: str,
        key: str | None,
        done: Callable[[object], None],
        failed: Callable[[str], None],
    ) -> None:
        """Ask the server at *url* about itself, off the UI thread.  Each probe
        ends within its timeout (a server dripping its answer times out), and
        at once when Reverie quits."""
        try:
            asking = ServerProbe(url, key)
        except ModelError as error:  # an address or key that cannot be used: nothing sent
            failed(str(error))
            return
        self._asking.add(asking)

        def ask() -> ServerInfo | ModelError:
            try:
                return asking.run()
            except ModelError as error:  # an answer for the user, not a bug to log
                return error

        def answered(result: object) -> None:
            self._asking.discard(asking)
            if isinstance(result, ServerInfo):
                done(result)
            else:
                failed(str(result))

        def broke(message: str) -> None:
            self._asking.discard(asking)
            failed(message)

        self._probes.run(ask, answered, broke)

    def shutdown(self) -> None:
        self._shut_down = True
        self._core.broker.set_health_listener(None)
        self.downloads.stop()
        for asking in list(self._asking):  # else quitting waits for each to time out
            asking.stop()
        self._probes.stop()
        self.settings_window.deleteLater()
