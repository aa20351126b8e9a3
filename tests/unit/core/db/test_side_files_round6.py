"""Round 6's attacks on the files SQLite keeps beside the database.

A named pipe (FIFO) where the ``-wal`` goes made opening the database hang
for good (the stray-WAL check read it, waiting for a writer that never
came); one at ``-journal`` hung inside SQLite's hot-journal check, and one
at ``-shm`` was reported as a bare disk error.  Anything but a regular file
at those names is now named before SQLite (or Reverie) opens it, as folders
already were.

Each open runs in a child process with a time limit, so that a hang fails
the test instead of stopping the suite.

At the database's own name, a named pipe was reported as a failing disk and
a socket as a file SQLite cannot open: both are now named too, before
anything opens them, as a folder was.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop.core.db import ConversationStore, open_database
from desktop.core.db.errors import DatabaseUnavailable

_OPEN_IN_CHILD = """
import json, sys
from pathlib import Path
from desktop.core.db import open_database
from desktop.core.base.errors import ReverieError
try:
    open_database(Path(sys.argv[1])).close()
except ReverieError as problem:
    print(json.dumps({"error": type(problem).__name__, "message": str(problem)}))
else:
    print(json.dumps({"error": None, "message": ""}))
"""


def _open_in_child(path: Path) -> dict[str, str | None]:
    """What opening *path* does, in a child process given 30 s to finish."""
    finished = subprocess.run(
        [sys.executable, "-c", _OPEN_IN_CHILD, str(path)],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=Path(__file__).parents[4],
        check=True,
    )
    answer: dict[str, str | None] = json.loads(finished.stdout)
    return answer


@pytest.mark.parametrize("suffix", ["-wal", "-shm", "-journal"])
def test_a_named_pipe_where_a_side_file_goes_is_named_without_hanging(
    kept: Path, suffix: str
) -> None:
    pipe = Path(f"{kept}{suffix}")
    os.mkfifo(pipe)
    before = kept.read_bytes()

    outcome = _open_in_child(kept)

    assert outcome["error"] == "DatabaseUnavailable"
    assert f"{pipe} is a named pipe" in str(outcome["message"])
    assert kept.read_bytes() == before
    assert pipe.exists(), "what stands in the way is the user's to move, not ours to delete"


def _socket(path: Path) -> None:
    with socket.socket(socket.AF_UNIX) as unix:
        unix.bind(path.name)  # relative: a socket's path is limited to about 100 bytes


IN_THE_WAY: list[tuple[Callable[[Path], None], str]] = [
    (os.mkfifo, "a named pipe"),
    (_socket, "a socket"),
    (Path.mkdir, "a folder"),
]


@pytest.mark.parametrize(("make", "kind"), IN_THE_WAY, ids=[kind for _, kind in IN_THE_WAY])
def test_anything_but_a_file_at_the_database_is_named_without_opening_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make: Callable[[Path], None], kind: str
) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "reverie.sqlite3"
    make(path)

    outcome = _open_in_child(path)

    assert outcome["error"] == "DatabaseUnavailable"
    message = str(outcome["message"])
    assert f"{path} is {kind}, not a database file" in message
    assert "Move it away" in message
    assert [p.name for p in tmp_path.iterdir()] == [path.name], "nothing made beside it"


@pytest.mark.parametrize("suffix", ["-wal", "-shm", "-journal"])
def test_a_symbolic_link_where_a_side_file_goes_is_named(
    kept: Path, tmp_path: Path, suffix: str
) -> None:
    # SQLite would write through it into whatever file it points at.
    target = tmp_path / "elsewhere"
    target.write_bytes(b"")
    link = Path(f"{kept}{suffix}")
    link.symlink_to(target)

    with pytest.raises(DatabaseUnavailable) as refused:
        open_database(kept)

    assert f"{link} is a symbolic link" in str(refused.value)
    assert target.read_bytes() == b""


def test_a_dangling_symbolic_link_where_the_wal_goes_is_named(kept: Path, tmp_path: Path) -> None:
    link = Path(f"{kept}-wal")
    link.symlink_to(tmp_path / "nowhere")

    with pytest.raises(DatabaseUnavailable) as refused:
        open_database(kept)

    assert f"{link} is a symbolic link" in str(refused.value)
    assert not (tmp_path / "nowhere").exists()


def test_regular_side_files_left_by_a_kill_are_still_used(kept: Path) -> None:
    # The check must not refuse the WAL a killed Reverie leaves behind.
    child = subprocess.run(
        [
            sys.executable,
            "-c",
            "import os, sys\n"
            "from pathlib import Path\n"
            "from desktop.core.db import ConversationStore, open_database\n"
            "db = open_database(Path(sys.argv[1]))\n"
            "db.set_pragma('wal_autocheckpoint', 0)\n"
            "ConversationStore(db).create('kept in the wal')\n"
            "os._exit(0)\n",
            str(kept),
        ],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=Path(__file__).parents[4],
        check=True,
    )
    assert child.returncode == 0
    assert Path(f"{kept}-wal").stat().st_size > 0

    with open_database(kept) as database:
        titles = {c.title for c in ConversationStore(database).list()}
    assert titles >= {"my conversation", "kept in the wal"}


def _other_reverie_wal(folder: Path) -> Path:
    """The WAL of ANOTHER Reverie database in which every page was rewritten
    (a VACUUM in WAL mode), as a crash before its checkpoint leaves it."""
    other = folder / "other" / "reverie.sqlite3"
    other.parent.mkdir()
    with open_database(other) as database:
        store = ConversationStore(database)
        for number in range(5):
            store.create(f"OTHER {number}")
    connection = sqlite3.connect(other, isolation_level=None)
    connection.execute("PRAGMA wal_autocheckpoint = 0")
    connection.execute("UPDATE conversations SET title = title || ' (edited)'")
    connection.execute("VACUUM")
    wal = folder / "other.wal"
    shutil.copy(f"{other}-wal", wal)  # while open: closing would checkpoint it away
    connection.close()
    return wal


def test_a_wal_from_another_reverie_database_is_refused_and_the_database_kept(
    kept: Path, tmp_path: Path
) -> None:
    shutil.copy(_other_reverie_wal(tmp_path), f"{kept}-wal")
    before = kept.read_bytes()

    with pytest.raises(DatabaseUnavailable) as refused:
        open_database(kept)

    assert f"{kept}-wal" in str(refused.value)
    assert kept.read_bytes() == before
    Path(f"{kept}-wal").rename(tmp_path / "set-aside.wal")
    with open_database(kept) as database:
        titles = [c.title for c in ConversationStore(database).list()]
    assert titles == ["my conversation"]


def test_the_database_s_own_wal_that_rewrote_every_page_is_replayed(
    kept: Path, tmp_path: Path
) -> None:
    connection = sqlite3.connect(kept, isolation_level=None)
    connection.execute("PRAGMA wal_autocheckpoint = 0")
    connection.execute("UPDATE conversations SET title = 'renamed before the crash'")
    connection.execute("VACUUM")
    shutil.copy(f"{kept}-wal", tmp_path / "crash.wal")
    shutil.copy(kept, tmp_path / "crash.sqlite3")
    connection.close()
    shutil.copy(tmp_path / "crash.sqlite3", kept)
    shutil.copy(tmp_path / "crash.wal", f"{kept}-wal")

    with open_database(kept) as database:
        titles = [c.title for c in ConversationStore(database).list()]

    assert titles == ["renamed before the crash"]
