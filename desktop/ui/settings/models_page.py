"""The Models page of the settings window: which model does what, and getting models.

At the top, the three roles (the chat, background work, memory search), each
a model on this computer or a server of the user's own, with fallbacks for
the first two; "Use these models" saves them, and the app switches without a
restart.  Below, every model there is: the catalog's recommended ones (with
their download), the embedded defaults and the GGUF files the user added (the
button, or dropped on the page), each with the memory it needs beside what
this computer has free.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from pydantic import ValidationError
from PySide6.QtCore import Qt
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from desktop.core.backends.library import ModelLibrary, ModelOption, file_ref
from desktop.core.backends.roles import api_key_name, forget_unused_keys
from desktop.core.base.secrets import SecretStore, SecretsUnavailable
from desktop.core.base.settings import Backend, ModelSettings, Settings
from desktop.ui.settings.downloads import Downloads, DownloadUpdate
from desktop.ui.settings.model_cards import ModelCard
from desktop.ui.settings.role_editor import InvalidBackend, Probe, RoleEditor, reason, unstretching
from desktop.ui.widgets.labels import named
from models.broker import Role
from models.errors import ModelError, ModelFileInvalid
from models.gguf_file import check_loadable
from models.memory_estimate import available_memory

Save = Callable[[Settings], bool]
"""Writes the settings (the settings window's one writer); False if it could not."""

_EXPLAIN = {
    Role.CHAT: "Answers you in conversations.",
    Role.BACKGROUND: "Remembers, dreams, runs routines and summarises, while you do something "
    "else. On a server, it never slows the chat.",
    Role.EMBEDDINGS: "Finds memories by meaning. Changing it embeds every memory again in "
    "the background; search by words keeps working meanwhile.",
}
_TITLES = {Role.CHAT: "Chat", Role.BACKGROUND: "Background work", Role.EMBEDDINGS: "Memory search"}


class ModelsPage(QWidget):
    """The roles and the models; see the module's docstring."""

    def __init__(
        self,
        settings: Settings,
        library: ModelLibrary,
        downloads: Downloads,
        secrets: SecretStore,
        save: Save,
        probe: Probe,
    ) -> None:
        super().__init__()
        named(self, "models-page", "Models")
        self._settings = settings
        self._library = library
        self._downloads = downloads
        self._secrets = secrets
        self._save = save
        self._updates: dict[str, DownloadUpdate] = {}
        self.cards: dict[str, ModelCard] = {}
        self.roles = {
            role: RoleEditor(
                _TITLES[role],
                _EXPLAIN[role],
                "embedding" if role is Role.EMBEDDINGS else "chat",
                secrets,
                probe,
                fallbacks=role is not Role.EMBEDDINGS,
                same_as_chat=role is Role.BACKGROUND,
            )
            for role in Role
        }
        self.apply_button = named(QPushButton("Use these models"), "models-apply")
        self.apply_button.clicked.connect(self.apply)
        self.revert_button = named(QPushButton("Revert"), "models-revert")
        self.revert_button.clicked.connect(self.refresh)
        self.message = named(QLabel(), "models-message")
        self.message.setWordWrap(True)
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        unstretching(self.message)
        self.memory_line = named(QLabel(), "models-memory")
        self.memory_line.setWordWrap(True)
        self.add_button = named(QPushButton("Add a GGUF file…"), "models-add", "Add a GGUF file")
        self.add_button.setToolTip("Or drop .gguf files on this page.")
        self.add_button.clicked.connect(self._choose_file)
        self.cards_box = QVBoxLayout()
        self.cards_box.setSpacing(8)
        self._build()
        self.setAcceptDrops(True)
        for editor in self.roles.values():
            editor.changed.connect(self._edited)
        downloads.changed.connect(self._on_download)
        self.refresh()

    def _build(self) -> None:
        content = QWidget()
        layout = QVBoxLayout(content)
        layout.addWidget(named(QLabel("Which model does what"), "models-heading"))
        for editor in self.roles.values():
            layout.addWidget(editor)
        actions = QHBoxLayout()
        actions.addWidget(self.message, 1)
        actions.addWidget(self.revert_button)
        actions.addWidget(self.apply_button)
        layout.addLayout(actions)
        layout.addSpacing(12)
        heading = QHBoxLayout()
        heading.addWidget(named(QLabel("Models"), "models-heading"), 1)
        heading.addWidget(self.add_button)
        layout.addLayout(heading)
        layout.addWidget(self.memory_line)
        layout.addLayout(self.cards_box)
        layout.addStretch(1)
        self.scroll_area = QScrollArea()
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setWidget(content)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.scroll_area)

    # -- showing -------------------------------------------------------------
    def set_settings(self, settings: Settings) -> None:
        """The settings changed (saved here or elsewhere): show them; choices
        not used yet stay when another page was saved."""
        models_changed = settings.models != self._settings.models
        self._settings = settings
        self.refresh(keep_edits=not models_changed)

    def is_dirty(self) -> bool:
        """Are there choices (or keys) not used yet?"""
        return self.apply_button.isEnabled()

    def refresh(self, keep_edits: bool = False) -> None:
        """Read the models and the roles again; the roles as saved, or (with
        *keep_edits*) as edited: an edit not finished (an address with no
        model name yet) stays as typed, only the model cards are read again."""
        models = self._settings.models
        if keep_edits:
            try:
                models = self._chosen()
            except (InvalidBackend, ValidationError):  # an edit not finished: keep it as typed
                self._show_cards(self._library.options(models.added, models.context_length))
                return
        options = self._library.options(self._settings.models.added, models.context_length)
        self.roles[Role.CHAT].set_backends(models.chat, options)
        self.roles[Role.BACKGROUND].set_backends(models.background, options)
        self.roles[Role.EMBEDDINGS].set_backends((models.embeddings,), options)
        self._show_cards(options)
        self._edited()

    def show_model(self, ref: str) -> None:
        """Bring the card of the model *ref* into view."""
        card = next((c for c in self.cards.values() if c.option.ref == ref), None)
        if card is not None:
            self.scroll_area.ensureWidgetVisible(card)
            card.setFocus()

    def _show_cards(self, options: list[ModelOption]) -> None:
        available = available_memory()
        self.memory_line.setText(
            f"This computer has {available / 1e9:.1f} GB of memory free now; each model says "
            f"what it needs with {self._settings.models.context_length:,} tokens of context."
        )
        for card in self.cards.values():
            card.deleteLater()
        self.cards = {}
        for option in options:
            card = ModelCard(option, available)
            card.show_update(self._updates.get(option.ref))
            card.download_requested.connect(self._download)
            card.pause_requested.connect(self._downloads.pause)
            card.cancel_requested.connect(self._cancel)
            card.remove_requested.connect(self._remove_added)
            self.cards[f"{option.kind}:{option.ref}"] = card
            self.cards_box.addWidget(card)

    def set_role_status(self, role: Role, text: str, problem: bool = False) -> None:
        """What the app says about *role* now (loading, ready, a failure)."""
        self.roles[role].set_status(text, problem)

    def _say(self, text: str, problem: bool = False) -> None:
        self.message.setText(text)
        self.message.setProperty("problem", problem)
        self.message.style().polish(self.message)

    # -- the roles -----------------------------------------------------------
    def _chosen(self) -> ModelSettings:
        """The roles as edited; ``InvalidBackend`` or ``ValidationError`` say why not."""
        models = self._settings.models
        return ModelSettings.model_validate(
            {
                **models.model_dump(),
                "chat": self.roles[Role.CHAT].backends(),
                "background": self.roles[Role.BACKGROUND].backends(),
                "embeddings": self.roles[Role.EMBEDDINGS].backends()[0],
            }
        )

    def _edited(self) -> None:
        try:
            changed = self._chosen() != self._settings.models
        except (InvalidBackend, ValidationError):
            changed = True
        typed = any(editor.typed_keys() for editor in self.roles.values())
        self.apply_button.setEnabled(changed or typed)
        self.revert_button.setEnabled(changed or typed)

    def apply(self) -> bool:
        """Save the roles as edited (API keys to the keyring), for the app to
        switch to; did it work?"""
        try:
            chosen = self._chosen()
        except InvalidBackend as error:
            self._say(f"Not used: {error}.", problem=True)
            return False
        except ValidationError as error:
            self._say(f"Not used: {reason(error)}.", problem=True)
            return False
        try:
            for editor in self.roles.values():
                for url, key in editor.typed_keys().items():
                    self._secrets.set(api_key_name(url), key)
        except SecretsUnavailable as error:
            self._say(str(error), problem=True)
            return False
        before = self._settings.models
        if not self._save(self._settings.model_copy(update={"models": chosen})):
            return False
        try:
            forget_unused_keys(self._secrets, before, chosen)
        except SecretsUnavailable as error:  # saved all the same: the models switch
            self._say(f"The models switch, but an API key no role uses stays: {error}", True)
            return True
        self._say("Switching: the models load in the background, and the chat keeps working.")
        return True

    def loaded(self) -> None:
        """The switch is done (each role says how it went)."""
        if self.message.property("problem") is not True:
            self._say("")

    # -- getting models ------------------------------------------------------
    def _download(self, model_id: str) -> None:
        self._downloads.start(self._library.catalog.get(model_id))

    def _cancel(self, model_id: str) -> None:
        if self._downloads.active(model_id):
            self._downloads.cancel(model_id)
            return
        # A paused download: its kept part goes, and with it what was said of it.
        try:
            self._library.discard_partial(self._library.catalog.get(model_id))
        except ModelError as error:
            self._say(str(error), problem=True)
            return
        self._updates.pop(model_id, None)
        self.refresh(keep_edits=True)

    def _on_download(self, update: DownloadUpdate) -> None:
        self._updates[update.model_id] = update
        if update.state in ("done", "cancelled", "paused", "failed"):
            if update.state in ("done", "cancelled"):
                del self._updates[update.model_id]
            self.refresh(keep_edits=True)  # installed now, or a part kept: the lists change
            if update.state == "done":
                self._say("Downloaded and checked: choose it for a role above.")
            return
        card = next((c for c in self.cards.values() if c.option.ref == update.model_id), None)
        if card is not None:
            card.show_update(update)

    def add_files(self, paths: list[Path]) -> None:
        """Add GGUF files to the list (each is read and checked first)."""
        models = self._settings.models
        added = list(models.added)
        problems = []
        for path in paths:
            option = self._library.added_option(path, models.context_length)
            if option.problem is None:
                option = _usable_by_a_role(option)
            if option.problem is None:
                option = _known_to_llama_cpp(option)
            if option.problem is not None:
                problems.append(option.problem)
            elif all(file_ref(listed) != option.ref for listed in added):  # a link's file too
                added.append(str(option.path))
        if problems:
            self._say(" ".join(problems), problem=True)
        if tuple(added) != models.added:
            update = {"models": models.model_copy(update={"added": tuple(added)})}
            if self._save(self._settings.model_copy(update=update)) and not problems:
                self._say("Added: choose it for a role above.")

    def _remove_added(self, ref: str) -> None:
        models = self._settings.models
        kept = tuple(path for path in models.added if file_ref(path) != ref)
        self._save(
            self._settings.model_copy(update={"models": models.model_copy(update={"added": kept})})
        )

    def _choose_file(self) -> None:
        chosen, _ = QFileDialog.getOpenFileNames(
            self, "Add GGUF models", str(Path.home()), "GGUF models (*.gguf);;All files (*)"
        )
        self.add_files([Path(name) for name in chosen])

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if any(url.isLocalFile() for url in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = [Path(url.toLocalFile()) for url in event.mimeData().urls() if url.isLocalFile()]
        event.acceptProposedAction()
        self.add_files(paths)


def _usable_by_a_role(option: ModelOption) -> ModelOption:
    """*option* (an added file), with the reason no role may name its path
    as its problem (a zero-width space in it): *Use these models* would
    refuse the file, so it is not added."""
    try:
        Backend(kind="local", model=str(option.path))  # as it is added
    except ValidationError as error:
        return replace(option, problem=f"{option.name} cannot be added: {reason(error)}.")
    return option


def _known_to_llama_cpp(option: ModelOption) -> ModelOption:
    """*option* (an added file), with llama.cpp's refusal of its architecture
    as its problem (a model newer than this llama.cpp), as ``reverie models
    add`` refuses it: its header reads as any GGUF's, so it would be listed
    and chosen and fail only when its role loads it."""
    try:
        if option.path is not None:  # an added file's always is
            check_loadable(option.path)
    except ModelFileInvalid as error:
        return replace(option, problem=str(error))
    return option
