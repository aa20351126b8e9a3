"""Nothing reaches Reverie's log unredacted, the log file rotates, and
only a regular file is ever a log file."""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop import app
from desktop.app import LOG_BACKUPS, LOG_FILE_NAME, _logging
from desktop.core.base.paths import AppPaths
from desktop.core.privacy.log_privacy import PrivateRotatingFileHandler
from tests.pipes import a_reader_comes_late

SECRET = "hunter2"
log = logging.getLogger("reverie.test")


def _log_text(paths: AppPaths) -> str:
    return "".join(p.read_text(encoding="utf-8") for p in sorted(paths.log_dir.iterdir()))


@pytest.mark.parametrize(
    ("message", "args"),
    [
        ("my bank password is hunter2", ()),
        ("unusable answer: %s", ("my bank password is hunter2",)),
        ("%s said: %r", ("the model", {"note": "my bank password is hunter2"})),
    ],
    ids=["message", "argument", "argument-repr"],
)
def test_a_secret_in_a_message_or_its_arguments_is_redacted_in_file_and_console(
    user_dirs: AppPaths,
    capsys: pytest.CaptureFixture[str],
    message: str,
    args: tuple[object, ...],
) -> None:
    with _logging(user_dirs, verbose=False):
        log.warning(message, *args)

    written = _log_text(user_dirs)
    assert "[redacted password]" in written
    assert SECRET not in written
    shown = capsys.readouterr().err
    assert "[redacted password]" in shown
    assert SECRET not in shown


def test_an_exceptions_text_and_traceback_are_redacted(
    user_dirs: AppPaths, capsys: pytest.CaptureFixture[str]
) -> None:
    with _logging(user_dirs, verbose=False):
        try:
            raise ValueError("the answer quoted: my bank password is hunter2")
        except ValueError:
            log.exception("a harvest failed")

    written = _log_text(user_dirs)
    assert "ValueError: the answer quoted: my bank password is [redacted password]" in written
    assert "Traceback" in written
    assert SECRET not in written
    assert SECRET not in capsys.readouterr().err


def test_a_stack_is_redacted(user_dirs: AppPaths) -> None:
    with _logging(user_dirs, verbose=True):
        # The stack shows this line's source, the secret in it too.
        log.warning("where am I", stack_info=True, extra={"said": "my password is hunter2"})

    written = _log_text(user_dirs)
    assert "Stack (most recent call last)" in written
    assert '"my password is [redacted password]"' in written
    assert SECRET not in written


def test_the_log_rotates_and_keeps_at_most_its_backups(
    user_dirs: AppPaths, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(app, "LOG_FILE_BYTES", 2_000)
    with _logging(user_dirs, verbose=False):
        for n in range(400):
            log.info("line %03d: the password for the router is hunter2, said the user", n)

    files = sorted(user_dirs.log_dir.iterdir())
    assert [p.name for p in files] == [LOG_FILE_NAME] + [
        f"{LOG_FILE_NAME}.{n}" for n in range(1, LOG_BACKUPS + 1)
    ]
    assert all(p.stat().st_size <= 2_000 for p in files)
    assert "line 399" in (user_dirs.log_dir / LOG_FILE_NAME).read_text(encoding="utf-8")
    assert SECRET not in _log_text(user_dirs)


def test_a_record_handled_twice_is_redacted_once_and_stays_readable(
    user_dirs: AppPaths, tmp_path: Path
) -> None:
    second = logging.FileHandler(tmp_path / "second.log", encoding="utf-8")
    with _logging(user_dirs, verbose=False):
        # Another handler after Reverie's sees the message already redacted.
        logging.getLogger().addHandler(second)
        try:
            log.warning("pin: %s for the %s", "hunter2", "door")
        finally:
            logging.getLogger().removeHandler(second)
            second.close()

    assert "pin: [redacted password] for the door" in _log_text(user_dirs)
    assert (tmp_path / "second.log").read_text(encoding="utf-8") == (
        "pin: [redacted password] for the door\n"
    )


def _pipe(path: Path) -> None:
    os.mkfifo(path, 0o600)


def _link(path: Path) -> None:
    path.symlink_to(path.parent.parent / "the-users-notes.txt")


def _folder(path: Path) -> None:
    path.mkdir()


@pytest.mark.parametrize(
    ("make", "kind"),
    [(_pipe, "a named pipe"), (_link, "a symbolic link"), (_folder, "a folder")],
    ids=["pipe", "link", "folder"],
)
def test_anything_but_a_file_at_the_logs_place_is_a_problem_at_start_and_no_log_is_written(
    user_dirs: AppPaths,
    capsys: pytest.CaptureFixture[str],
    make: Callable[[Path], None],
    kind: str,
) -> None:
    notes = user_dirs.cache_dir / "the-users-notes.txt"  # where the link leads
    notes.parent.mkdir(parents=True)
    notes.write_text("the user's own notes\n")
    user_dirs.log_dir.mkdir(parents=True)
    odd = user_dirs.log_dir / LOG_FILE_NAME
    make(odd)
    found = stat.S_IFMT(odd.lstat().st_mode)

    with a_reader_comes_late(odd), _logging(user_dirs, verbose=False) as problems:
        log.warning("Reverie goes on without its log file")

    assert problems == [
        f"No log file is written: {odd} is {kind}, not a regular file, where the log goes. "
        "Move or remove it; the next start writes the log there again."
    ]
    assert "Reverie goes on without its log file" in capsys.readouterr().err  # the console still
    assert notes.read_text() == "the user's own notes\n"  # nothing written through the link
    assert stat.S_IFMT(odd.lstat().st_mode) == found  # left where it was
    assert sorted(p.name for p in user_dirs.log_dir.iterdir()) == [LOG_FILE_NAME]


def test_a_named_pipe_met_when_the_log_rotates_stops_the_file_and_is_said_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / LOG_FILE_NAME
    handler = PrivateRotatingFileHandler(path, max_bytes=200, backups=2)

    def rotate_then_a_pipe_appears(source: str, dest: str) -> None:
        os.rename(source, dest)
        _pipe(Path(source))  # where the log's next file is opened

    handler.rotator = rotate_then_a_pipe_appears
    with a_reader_comes_late(path):
        for n in range(20):
            handler.handle(logging.makeLogRecord({"msg": f"line {n} of a log that rotates"}))
        handler.close()

    said = capsys.readouterr().err.splitlines()
    assert said == [
        f"Reverie: the log file {path} cannot be written ({path} is a named pipe, not a "
        "regular file); logging to it stopped."
    ]
    assert stat.S_ISFIFO(path.lstat().st_mode)
    assert "line 0 of a log" in Path(f"{path}.1").read_text(encoding="utf-8")
