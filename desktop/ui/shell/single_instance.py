"""One Reverie per data folder: a second launch wakes the first and exits.

Two instances would load the models twice and show two tray icons over one
database.  The first instance listens on a local socket named after its data
folder; a later one connects (which asks it to show its window) and quits.

Only an instance that answers counts as running.  When listening fails,
another launch started at the same moment may listen there now: it is
looked for again first, and woken as a running one.  A socket file nobody
listens on (left by a crash) is removed, if it is this user's, and
listening is tried once more; anything else that stops the listening
(another user's socket, a path too long, no permission) is a
``SingleInstanceUnavailable`` naming the socket and the reason, never
"already running".
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from PySide6.QtCore import QDir, QObject, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

from desktop.core.base.errors import EnvironmentProblem

_CONNECT_TIMEOUT_MS = 500
_SOCKET_PATH_MAX = 104  # bytes of a Unix socket's path: 108 on Linux, 104 on macOS


class SingleInstanceUnavailable(EnvironmentProblem):
    """Neither an answering instance nor a socket of this one's own: it
    cannot be told whether another Reverie runs."""


def instance_key(data_dir: Path) -> str:
    digest = hashlib.sha256(str(data_dir.resolve()).encode()).hexdigest()[:16]
    return f"reverie-{digest}"


def socket_path(key: str) -> str:
    """Where the socket named *key* lives (a file on Unix, a pipe on Windows),
    as Qt places it."""
    if os.name != "posix":
        return rf"\\.\pipe\{key}"
    return key if key.startswith("/") else os.path.join(QDir.tempPath(), key)


class SingleInstance(QObject):
    """Signals:
    activation_requested(): another launch asked this instance to show itself.
    """

    activation_requested = Signal()

    def __init__(self, key: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.key = key
        self._server: QLocalServer | None = None

    def claim(self) -> bool:
        """True if this is the first instance (now listening); False if
        another one answered (and was asked to show itself).

        Raises ``SingleInstanceUnavailable`` when this cannot be told.
        """
        if self._knock()[0]:
            return False
        why = self._listen()
        if why:
            # Another launch may have begun listening since the look (two
            # started together): it answers now.  Its live socket is neither
            # reported as in the way nor removed as a crash's leftover.
            answered, refused = self._knock()
            if answered:
                return False
            # Refused: the socket file is there but nobody listens (a crash
            # left it).  A timeout is an instance too busy to answer: its
            # socket stays.
            if refused and self._remove_stale():
                why = self._listen()
        if why:
            raise self._unavailable(why)
        return True

    def _knock(self) -> tuple[bool, bool]:
        """(an instance of this user's answered and was asked to show
        itself, the socket refused: nobody listens on it)."""
        socket = QLocalSocket()
        socket.connectToServer(self.key)
        if socket.waitForConnected(_CONNECT_TIMEOUT_MS):
            socket.disconnectFromServer()
            if self._owned_by_another_user():  # a decoy: the key is easy to guess
                raise self._unavailable("another program listens there")
            return True, False
        return False, socket.error() == QLocalSocket.LocalSocketError.ConnectionRefusedError

    def release(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None

    def _listen(self) -> str:
        """Listen on the key; the reason if that failed (empty if it worked)."""
        # No UserAccessOption: Qt then renames its socket over whatever is
        # there, a running instance's too.  Without it a file in the way
        # fails the listening, and connecting already needs write permission
        # on the socket, which the usual umask denies other users.
        server = QLocalServer(self)
        if not server.listen(self.key):
            why = server.errorString().removeprefix("QLocalServer::listen: ")
            server.deleteLater()
            return why or "it failed"
        server.newConnection.connect(self._on_connection)
        self._server = server
        return ""

    def _remove_stale(self) -> bool:
        """Remove the socket file nobody listens on if it is this user's
        own; True if the way is clear."""
        if os.name == "posix":
            try:
                found = os.lstat(socket_path(self.key))
            except FileNotFoundError:
                return True
            except OSError:
                return False
            if found.st_uid != os.geteuid() or not stat.S_ISSOCK(found.st_mode):
                return False
        return QLocalServer.removeServer(self.key)

    def _unavailable(self, why: str) -> SingleInstanceUnavailable:
        path = socket_path(self.key)
        message = f"Reverie could not make sure it runs only once: its socket {path} cannot be used"
        if len(os.fsencode(path)) >= _SOCKET_PATH_MAX:
            return SingleInstanceUnavailable(
                f"{message} (the path is too long for a local socket).",
                "Set TMPDIR to a shorter folder.",
            )
        if self._owned_by_another_user():
            return SingleInstanceUnavailable(
                f"{message} ({why}): that file belongs to another user.",
                "If no Reverie of yours is running, have it removed, or set TMPDIR to a "
                "folder of your own.",
            )
        return SingleInstanceUnavailable(
            f"{message} ({why}).", "If no Reverie is running, remove that file."
        )

    def _owned_by_another_user(self) -> bool:
        if os.name != "posix":
            return False  # a pipe, not a file with an owner
        try:
            return os.lstat(socket_path(self.key)).st_uid != os.geteuid()
        except OSError:
            return False

    def _on_connection(self) -> None:
        # Any connection is a request to show: there is nothing else to ask.
        assert self._server is not None
        while (socket := self._server.nextPendingConnection()) is not None:
            socket.abort()
            socket.deleteLater()
        self.activation_requested.emit()
