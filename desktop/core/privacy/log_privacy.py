"""What Reverie's log handlers let through: redacted text, in a private file.

A log line may carry what the user typed or what a model answered (an
exception's text, a warning quoting an answer), so every record passes the
one redaction path (``desktop.core.privacy.redaction``) before any handler writes it:
the message formatted with its arguments, an exception's traceback and a
stack.  The log file is created 0600 whatever the umask, and rotates so it
never grows without bound.  A log file that cannot be written (a full disk)
is said once on stderr and then left alone: logging never stops the app.
Anything but a regular file at the log's name (a named pipe, a link, a
folder) is never opened, nor written through: ``NotARegularFile`` names it,
and Reverie runs without a log file (``desktop.app`` says so at start).
"""

from __future__ import annotations

import io
import logging
import logging.handlers
import sys
from pathlib import Path

from desktop.core.base.files import make_private, open_regular
from desktop.core.privacy.redaction import redact

_REDACTED = "_reverie_redacted"
"""Set on a record once redacted: the second handler need not do it again."""


class RedactingFilter(logging.Filter):
    """Replaces a record's message, traceback and stack by their redacted text.

    Added to a handler, it runs for every record that handler emits; the
    record is changed in place (its arguments folded into the message), so
    each handler after the first sees it redacted already.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, _REDACTED, False):
            return True
        record.msg = redact(record.getMessage()).text
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            # Formatters use exc_text as it is once it is set.
            record.exc_text = redact(record.exc_text).text
        if record.stack_info:
            record.stack_info = redact(record.stack_info).text
        setattr(record, _REDACTED, True)
        return True


class PrivateRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """A rotating log file readable by the user alone, every generation of it."""

    def __init__(self, path: Path, *, max_bytes: int, backups: int) -> None:
        super().__init__(path, maxBytes=max_bytes, backupCount=backups, encoding="utf-8")
        self.failed = False
        """Set once a write failed: the file is given up, the rest of the app goes on."""

    def emit(self, record: logging.LogRecord) -> None:
        if not self.failed:
            super().emit(record)

    def handleError(self, record: logging.LogRecord) -> None:  # logging's own name
        error = sys.exc_info()[1]
        if not isinstance(error, OSError):
            super().handleError(record)  # a bug in a log call: logging's own report
            return
        self._give_up(error)

    def close(self) -> None:
        try:
            super().close()  # flushes what a failed write left in the buffer
        except OSError as error:
            self._give_up(error)

    def _give_up(self, error: OSError) -> None:
        """Say once why the log file stops here; later lines are dropped."""
        if self.failed:
            return
        self.failed = True
        print(
            f"Reverie: the log file {self.baseFilename} cannot be written "
            f"({error.strerror or error}); logging to it stopped.",
            file=sys.stderr,
        )

    def _open(self) -> io.TextIOWrapper:
        # Always appending: a rotating handler with a size limit does nothing else.
        stream = open(  # noqa: SIM115  # the handler owns and closes the stream
            self.baseFilename,
            "a",
            encoding=self.encoding,
            errors=self.errors,
            opener=_open_log_file,
        )
        make_private(Path(self.baseFilename))  # a file an older version left 0644
        return stream


def _open_log_file(path: str, flags: int) -> int:
    """The ``opener`` of the log file, at start and after each rotation:
    a regular file, or ``NotARegularFile`` (a named pipe would keep the
    opener waiting for a reader for good, a link lead the lines elsewhere)."""
    return open_regular(Path(path), flags)
