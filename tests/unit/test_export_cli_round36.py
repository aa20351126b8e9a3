"""Round 36, a real full disk (a 24 MB tmpfs): ``reverie export`` to
another disk was refused as "the disk ... is full" when the data folder's
disk was, though an export only reads, and may be what frees the space:
SQLite could not make the log's index to open the database.  A database
closed cleanly is read as the file holds it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from desktop.core.base.paths import AppPaths
from desktop.core.db import ConversationStore, open_database
from desktop.core.transfer.archive_read import read_archive

# No file may grow past 16 kB in this child: SQLite cannot make the 32 kB
# index of the log beside the database, as on a full disk; a small archive
# still can be written.  The data folder's disk says it has no room.
_EXPORT_ON_A_FULL_DISK = """
import resource, shutil, signal, sys
from collections import namedtuple
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (16384, 16384))
usage, disk_usage = namedtuple("usage", "total used free"), shutil.disk_usage
full = lambda folder: usage(10**9, 10**9, 0) if "data" in str(folder) else disk_usage(folder)
shutil.disk_usage = full
from desktop.app import main
sys.exit(main(["export", sys.argv[1]]))
"""


def _export_in_a_child(target: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _EXPORT_ON_A_FULL_DISK, str(target)],
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,  # its environment names the test's folders (user_dirs)
    )


@pytest.mark.skipif(sys.platform == "win32", reason="no file size limit to stand for a full disk")
@pytest.mark.parametrize("left_open", [False, True])
def test_export_reads_a_database_on_a_full_disk(
    user_dirs: AppPaths, tmp_path: Path, left_open: bool
) -> None:
    user_dirs.data_dir.mkdir(parents=True, exist_ok=True)
    with open_database(user_dirs.database_file) as database:
        store = ConversationStore(database)
        store.add_message(store.create("Hello").id, "user", "Hi there.")
        if left_open:  # changes in its log, as a kill leaves them: not readable alone
            database.set_pragma("wal_autocheckpoint", 0)
            store.add_message(1, "user", "And the roses?")
            left = {s: Path(f"{database.path}{s}").read_bytes() for s in ("", "-wal")}
    if left_open:
        for suffix, data in left.items():
            Path(f"{user_dirs.database_file}{suffix}").write_bytes(data)
    target = tmp_path / "out" / "all.reverie.zip"
    target.parent.mkdir()

    done = _export_in_a_child(target)

    if left_open:
        assert done.returncode == 1
        assert "is full" in done.stderr and not target.exists()
    else:
        assert done.returncode == 0, done.stderr
        assert read_archive(target).counts["messages"] == 1
