"""Choosing what serves a role: a model on this computer, or a server of the user's own.

A ``RoleEditor`` edits one role's backends (the chat, background work, memory
search): the first, then fallbacks for when it cannot answer (not for memory
search: vectors of two models are never mixed).  Each ``BackendRow`` is a
model from the list, or a server: its address, the model's name there, how it
takes structured output, and an API key that goes only to the system keyring.
"Test connection" asks the server what it is and which models it serves; the
answer goes to the row on screen then (``PendingTest``): the rows may have
been rebuilt meanwhile (a download finishing, Revert) or the row removed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import shiboken6
from pydantic import ValidationError
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from desktop.core.backends.library import EMBEDDED, ModelKind, ModelOption, file_ref, is_path
from desktop.core.backends.roles import api_key_name
from desktop.core.base.secrets import SecretStore, SecretsUnavailable
from desktop.core.base.settings import Backend, base_url
from desktop.ui.widgets.direction_guard import guarded
from desktop.ui.widgets.labels import named
from desktop.ui.widgets.visibility import set_shown
from models.server_http import DIALECTS, ServerInfo, api_key_problem

SERVER = "server"
MAX_BACKENDS = 4
Probe = Callable[[str, str | None, Callable[[object], None], Callable[[str], None]], None]
"""Runs ``models.server_http.probe(url, key)`` off the UI thread; then done(info) or failed(msg)."""


class InvalidBackend(ValueError):
    """What the user typed cannot be a backend; the message says why."""


class PendingTest:
    """A server Test waiting for its answer, and the row the answer goes to.

    The probe answers later, on the UI thread, through ``answered`` or
    ``failed``; by then the row that asked may be gone.  A rebuilt row that
    shows the same server takes the Test over (``RoleEditor.set_backends``);
    otherwise the answer is dropped (``row`` None), never given to a deleted
    widget.
    """

    def __init__(self, row: BackendRow, url: str) -> None:
        self.row: BackendRow | None = row
        self.url = url

    def answered(self, info: object) -> None:
        if (row := self._live_row()) is not None:
            row._tested(info)

    def failed(self, message: str) -> None:
        if (row := self._live_row()) is not None:
            row._test_failed(message)

    def _live_row(self) -> BackendRow | None:
        row, self.row = self.row, None  # one answer per Test
        if row is None or not shiboken6.isValid(row) or row.testing is not self:
            return None  # gone (the whole window may have been), or asked again since
        row.testing = None
        return row


class BackendRow(QWidget):
    """One backend of a role.

    Signals:
        changed(): the user changed something.
        remove_requested(): the user asked to take this fallback away.
    """

    changed = Signal()
    remove_requested = Signal()

    def __init__(
        self,
        kind: ModelKind,
        options: Sequence[ModelOption],
        secrets: SecretStore,
        probe: Probe,
        *,
        same_as_chat: bool = False,
        removable: bool = False,
    ) -> None:
        super().__init__()
        self._secrets = secrets
        self._probe = probe
        self.testing: PendingTest | None = None
        """The Test waiting for its answer, if any."""
        self._written: tuple[str, str] | None = None
        """A file the settings name otherwise than its choice here
        (``~/a.gguf``): that choice's ref and the name as written."""
        self.source = named(QComboBox(), "backend-source", "Model")
        if same_as_chat:
            self.source.addItem("The chat's model", None)
        for option in options:
            if option.kind == kind:
                missing = option.source == "catalog" and not option.installed
                label = f"{option.name} (not downloaded)" if missing else option.name
                self.source.addItem(label, option.ref)
        self.source.addItem("A server of your own…", SERVER)
        self.source.currentIndexChanged.connect(self._source_changed)
        self.remove_button = named(QPushButton("Remove"), "backend-remove", "Remove this fallback")
        self.remove_button.setVisible(removable)
        self.remove_button.clicked.connect(self.remove_requested)
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.source, 1)
        top.addWidget(self.remove_button)
        self.server = self._server_fields()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.server)
        self._source_changed()

    def _server_fields(self) -> QWidget:
        box = named(QWidget(), "server-fields")
        self.url = named(QLineEdit(), "server-url", "Server address")
        self.url.setPlaceholderText("http://127.0.0.1:8080/v1")
        self.model = named(QLineEdit(), "server-model", "Model name on the server")
        self.model.setPlaceholderText("the model's name there, e.g. qwen2.5:7b")
        self.dialect = named(QComboBox(), "server-dialect", "Kind of server")
        for dialect in DIALECTS:
            self.dialect.addItem("Find out (auto)" if dialect == "auto" else dialect, dialect)
        self.api_key = named(QLineEdit(), "server-api-key", "API key")
        self.api_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.forget_key = named(
            QPushButton("Forget key"), "server-forget-key", "Forget the API key"
        )
        self.forget_key.clicked.connect(self._forget_key)
        self.test_button = named(QPushButton("Test connection"), "server-test", "Test the server")
        self.test_button.clicked.connect(self.test)
        self.test_result = named(QLabel(), "server-test-result")
        self.test_result.setWordWrap(True)
        self.test_result.setTextFormat(Qt.TextFormat.PlainText)
        unstretching(self.test_result)
        key_row = QHBoxLayout()
        key_row.addWidget(self.api_key, 1)
        key_row.addWidget(self.forget_key)
        form = QFormLayout(box)
        form.setContentsMargins(16, 4, 0, 4)
        form.addRow("Address", guarded(self.url))
        form.addRow("Model", guarded(self.model))
        form.addRow("Kind", self.dialect)
        form.addRow("API key", key_row)
        form.addRow(self.test_button, self.test_result)
        for line in (self.url, self.model, self.api_key):
            line.textEdited.connect(self.changed)
        self.api_key.textEdited.connect(lambda _: self._check_key())
        self.url.editingFinished.connect(self._show_key_state)
        self.url.textEdited.connect(lambda _: self._say(""))  # said of another address
        self.dialect.currentIndexChanged.connect(self.changed)
        return box

    # -- reading and writing -------------------------------------------------
    def set_backend(self, backend: Backend | None) -> None:
        """Show *backend* (None: the chat's model, for background work)."""
        self._written = None
        if backend is None:
            self.source.setCurrentIndex(max(0, self.source.findData(None)))
        elif backend.kind == "server":
            self.source.setCurrentIndex(self.source.findData(SERVER))
            self.url.setText(backend.url)
            self.model.setText(backend.model)
            self.dialect.setCurrentIndex(max(0, self.dialect.findData(backend.dialect)))
        else:
            ref = backend.model if backend.kind == "local" else EMBEDDED
            index = self.source.findData(ref)
            if index < 0 and is_path(ref):  # written otherwise: "~/a.gguf" is the added file
                index = self.source.findData(file_ref(ref))
                if index >= 0:
                    self._written = (file_ref(ref), ref)
            if index < 0:  # a file no longer on the list: keep it choosable
                self.source.insertItem(self.source.count() - 1, ref, ref)
                index = self.source.findData(ref)
            self.source.setCurrentIndex(index)
        self.api_key.clear()
        self._source_changed()

    def backend(self) -> Backend | None:
        """What the row says (None: the chat's model); ``InvalidBackend`` says why not."""
        choice = self.source.currentData()
        if choice is None:
            return None
        if choice == EMBEDDED:
            return Backend()
        if choice != SERVER:
            written = self._written[1] if self._written and self._written[0] == choice else choice
            return Backend(kind="local", model=str(written))
        try:
            backend = Backend(
                kind="server",
                url=self.url.text(),
                model=self.model.text().strip(),
                dialect=self.dialect.currentData(),
            )
        except ValidationError as error:
            raise InvalidBackend(reason(error)) from error
        if problem := self.key_problem():
            raise InvalidBackend(f"the API key for {backend.url} {problem}")
        return backend

    def typed_key(self) -> str:
        """The API key typed in (to store in the keyring), or ""."""
        return self.api_key.text().strip() if self.source.currentData() == SERVER else ""

    def key_problem(self) -> str | None:
        """Why the key typed in cannot be used ("has a line break in it"), or None."""
        return api_key_problem(self.typed_key())

    # -- behaviour -----------------------------------------------------------
    def _source_changed(self) -> None:
        self.server.setVisible(self.source.currentData() == SERVER)
        self._show_key_state()
        self.changed.emit()

    def _show_key_state(self) -> None:
        url = self.url.text().strip().rstrip("/")
        stored = bool(url) and self._secrets.available and self._stored_key(url) is not None
        self.forget_key.setVisible(stored)
        self.api_key.setEnabled(self._secrets.available)
        self.api_key.setPlaceholderText(
            "kept in the system keyring; type a new one to replace it"
            if stored
            else "optional; kept only in the system keyring"
            if self._secrets.available
            else "no system keyring here: a key cannot be kept"
        )

    def _stored_key(self, url: str) -> str | None:
        try:
            return self._secrets.get(api_key_name(url))
        except SecretsUnavailable:  # a locked keyring: said again when the key is used
            return None

    def _forget_key(self) -> None:
        url = self.url.text().strip().rstrip("/")
        self._secrets.delete(api_key_name(url))
        self._say("The API key was taken out of the keyring.")
        self._show_key_state()
        self.changed.emit()

    def test(self) -> None:
        """Ask the server what it is and which models it serves (an address
        that cannot be one is refused first, as *Use these models* would)."""
        try:
            url = base_url(self.url.text())
        except ValueError as error:
            self._say(f"Not asked: {error}.", problem=True)
            return
        if not self._check_key():
            return
        key = self.typed_key() or self._stored_key(url)
        testing = PendingTest(self, url)
        self.take_over(testing)
        self._probe(url, key, testing.answered, testing.failed)

    def take_over(self, testing: PendingTest) -> None:
        """Show *testing* as this row's Test, and take its answer."""
        testing.row = self
        self.testing = testing
        self.test_button.setEnabled(False)
        self._say("Asking the server…")

    def shows_server(self, url: str) -> bool:
        """Does the row show the server at *url* (as Test would ask it)?"""
        if self.source.currentData() != SERVER:
            return False
        try:
            return base_url(self.url.text()) == url
        except ValueError:
            return False

    def let_go(self) -> None:
        """The row is going: its Test's answer, if one is awaited, is dropped."""
        if self.testing is not None:
            self.testing.row = None
            self.testing = None

    def _check_key(self) -> bool:
        """Say at once what is wrong with the key typed in (never the key);
        is it usable?  A key is refused where it is typed, not at its first use."""
        problem = self.key_problem()
        if problem:
            self._say(
                f"This API key cannot be used: it {problem}. Type or paste it again as plain text.",
                problem=True,
            )
        elif self.test_result.text().startswith("This API key cannot be used"):
            self._say("")
        return problem is None

    def _say(self, text: str, problem: bool = False) -> None:
        self.test_result.setText(text)
        self.test_result.setProperty("problem", problem)
        self.test_result.style().polish(self.test_result)

    def _tested(self, info: object) -> None:
        assert isinstance(info, ServerInfo)
        self.test_button.setEnabled(True)
        served = info.listing
        self._say(
            f"Reached a {info.dialect} server"
            + (f"; it serves: {served}" if served else "; it does not list its models")
            + "."
        )
        if not self.model.text().strip() and len(info.models) == 1:
            self.model.setText(info.models[0])
            self.changed.emit()

    def _test_failed(self, message: str) -> None:
        self.test_button.setEnabled(True)
        self._say(message, problem=True)


class RoleEditor(QGroupBox):
    """A role's backends: the first, then fallbacks (where the role may have them).

    Signals:
        changed(): the user changed something.
    """

    changed = Signal()

    def __init__(
        self,
        title: str,
        explanation: str,
        kind: ModelKind,
        secrets: SecretStore,
        probe: Probe,
        *,
        fallbacks: bool,
        same_as_chat: bool = False,
    ) -> None:
        super().__init__(title)
        named(self, "role-editor", title)
        self._kind = kind
        self._secrets = secrets
        self._probe = probe
        self._fallbacks = fallbacks
        self._same_as_chat = same_as_chat
        self._options: Sequence[ModelOption] = ()
        self.rows: list[BackendRow] = []
        self.explanation = named(QLabel(explanation), "role-explanation")
        self.explanation.setWordWrap(True)
        self.status = named(QLabel(), "role-status")
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        unstretching(self.status)
        self.rows_box = QVBoxLayout()
        self.add_button = named(
            QPushButton("Add a fallback"), "role-add-fallback", f"Add a fallback for {title}"
        )
        self.add_button.setToolTip("Used in order when the backend before it cannot answer.")
        self.add_button.clicked.connect(lambda: self._add_row(None))
        set_shown(self.add_button, fallbacks)
        layout = QVBoxLayout(self)
        layout.addWidget(self.explanation)
        layout.addLayout(self.rows_box)
        footer = QHBoxLayout()
        footer.addWidget(self.status, 1)
        footer.addWidget(self.add_button)
        layout.addLayout(footer)

    def set_backends(self, backends: Sequence[Backend], options: Sequence[ModelOption]) -> None:
        """Show *backends* (none: the chat's model), choosing among *options*."""
        self._options = options
        waiting = [row.testing for row in self.rows]
        for row in self.rows:
            row.let_go()
            row.deleteLater()
        self.rows = []
        shown: Sequence[Backend | None] = backends or [None]
        for backend in shown:
            self._add_row(backend)
        # A Test asked before the rows were rebuilt: its answer goes to the
        # row in its place that shows the same server, else it is dropped.
        for row, testing in zip(self.rows, waiting, strict=False):
            if testing is not None and row.shows_server(testing.url):
                row.take_over(testing)
        self._update_buttons()

    def backends(self) -> tuple[Backend, ...]:
        """The role's backends in order (background work: () for the chat's)."""
        chosen = [row.backend() for row in self.rows]
        if not chosen or chosen[0] is None:  # the chat's model, and so its fallbacks
            return ()
        return tuple(backend for backend in chosen if backend is not None)

    def typed_keys(self) -> dict[str, str]:
        """API keys typed in, by server address."""
        keys: dict[str, str] = {}
        for row in self.rows:
            if key := row.typed_key():
                keys[row.url.text().strip().rstrip("/")] = key
        return keys

    def set_status(self, text: str, problem: bool = False) -> None:
        self.status.setText(text)
        self.status.setProperty("problem", problem)
        self.status.style().polish(self.status)

    def _add_row(self, backend: Backend | None) -> None:
        first = not self.rows
        row = BackendRow(
            self._kind,
            self._options,
            self._secrets,
            self._probe,
            same_as_chat=self._same_as_chat and first,
            removable=not first,
        )
        row.set_backend(backend)
        if backend is None and not first:  # a new fallback: the first model on the list
            row.source.setCurrentIndex(0)
        row.changed.connect(self.changed)
        row.changed.connect(self._update_buttons)
        row.remove_requested.connect(lambda: self._remove_row(row))
        self.rows.append(row)
        self.rows_box.addWidget(row)
        self._update_buttons()
        if not first:
            self.changed.emit()

    def _remove_row(self, row: BackendRow) -> None:
        self.rows.remove(row)
        row.let_go()
        row.deleteLater()
        self._update_buttons()
        self.changed.emit()

    def _update_buttons(self) -> None:
        # Fallbacks follow a backend of the role's own, never "the chat's model".
        own = bool(self.rows) and self.rows[0].source.currentData() is not None
        self.add_button.setVisible(self._fallbacks and own)
        self.add_button.setEnabled(len(self.rows) < MAX_BACKENDS)


def unstretching(label: QLabel) -> None:
    """Let *label* wrap within the page: a long address (a word that cannot
    wrap) is cut at the edge instead of widening the whole page."""
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)


def reason(error: ValidationError) -> str:
    """pydantic's first message, without its boilerplate."""
    message = str(error.errors(include_url=False)[0]["msg"])
    return message.removeprefix("Value error, ")
