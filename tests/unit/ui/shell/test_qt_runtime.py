"""Guards against a broken Qt binding: the app emits a signal per streamed token."""

from __future__ import annotations

import sys

from PySide6.QtCore import QObject, Signal


class _Emitter(QObject):
    text = Signal(str)


def test_emitting_signals_leaves_pythons_true_alone(qapp: object) -> None:
    # PySide6 6.12.0 decremented True's reference count on every emit, so a
    # few thousand streamed tokens later Python aborted in bool_dealloc.
    emitter = _Emitter()
    received: list[str] = []
    emitter.text.connect(received.append)
    before = sys.getrefcount(True)

    for _ in range(200):
        emitter.text.emit("token")

    assert len(received) == 200
    assert sys.getrefcount(True) - before >= 0
