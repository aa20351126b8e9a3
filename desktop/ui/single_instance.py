"""One Reverie per data folder: a second launch wakes the first and exits.

Two instances would load the models twice and show two tray icons over one
database.  The first instance listens on a local socket named after its data
folder; a later one connects (which asks it to show its window) and quits.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

_CONNECT_TIMEOUT_MS = 500


def instance_key(data_dir: Path) -> str:
    digest = hashlib.sha256(str(data_dir.resolve()).encode()).hexdigest()[:16]
    return f"reverie-{digest}"


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
        """True if this is the first instance; otherwise wake the first one."""
        socket = QLocalSocket()
        socket.connectToServer(self.key)
        if socket.waitForConnected(_CONNECT_TIMEOUT_MS):
            socket.disconnectFromServer()
            return False
        QLocalServer.removeServer(self.key)  # a socket file left by a crash
        self._server = QLocalServer(self)
        self._server.newConnection.connect(self._on_connection)
        return self._server.listen(self.key)

    def release(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None

    def _on_connection(self) -> None:
        # Any connection is a request to show: there is nothing else to ask.
        assert self._server is not None
        while (socket := self._server.nextPendingConnection()) is not None:
            socket.abort()
            socket.deleteLater()
        self.activation_requested.emit()
