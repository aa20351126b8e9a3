"""Round 33 of the attacks on ``reverie export``: a full disk.

Exported onto a file system of 64 KB with 270 KB to write, the export said
"No space left on device. Free some disk space and try again." and left
nothing behind, then printed a traceback: "Exception ignored in:
<generator object Database.each_row ...> ProgrammingError: Cannot operate
on a closed database" (the rows being read when the write failed were
closed after their connection).  It now says what happened and nothing
else."""

from __future__ import annotations

import errno
import gc
import os
import random
import string
import sys
from pathlib import Path
from typing import IO, Any, cast

import pytest

from desktop.app import main
from desktop.core.base.paths import AppPaths
from desktop.core.db import ConversationStore, open_database
from desktop.core.transfer import archive

ROOM = 64 << 10
"""What the disk had room for."""


class _FullDisk:
    """A file on a disk with room for ``ROOM`` bytes."""

    def __init__(self, out: IO[bytes]) -> None:
        self._out = out
        self._written = 0

    def write(self, data: bytes) -> int:
        self._written += len(data)
        if self._written > ROOM:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return self._out.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._out, name)


def _much_data(paths: AppPaths) -> None:
    """100 conversations of words that do not compress: 270 KB archived."""
    paths.data_dir.mkdir(parents=True, exist_ok=True)
    letters = random.Random(0)
    with open_database(paths.database_file) as database:
        store = ConversationStore(database)
        for _ in range(100):
            conversation = store.create("Talk")
            text = "".join(letters.choice(string.ascii_lowercase + " ") for _ in range(2_000))
            store.add_message(conversation.id, "user", text)


def test_an_export_onto_a_full_disk_says_so_leaves_nothing_and_prints_no_traceback(
    user_dirs: AppPaths,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _much_data(user_dirs)
    write = archive.write_archive

    def onto_a_full_disk(out: IO[bytes], *args: Any, **kwargs: Any) -> dict[str, int]:
        return write(cast(IO[bytes], _FullDisk(out)), *args, **kwargs)  # a file's stand-in

    monkeypatch.setattr(archive, "write_archive", onto_a_full_disk)
    unraisable: list[Any] = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    target = tmp_path / "all.reverie.zip"

    assert main(["export", str(target)]) == 1
    gc.collect()  # what the reading left open is closed here at the latest

    err = capsys.readouterr().err
    assert "No space left on device. Free some disk space and try again." in err
    assert list(tmp_path.iterdir()) == []
    assert [str(u.exc_value) for u in unraisable] == []
