"""Tests of desktop.core.db.connection: opening the file, pragmas, transactions, refusals."""

from __future__ import annotations

import errno
import os
import random
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import sqlean

from desktop.core.db import connection
from desktop.core.db.connection import BUSY_TIMEOUT_MS, Database
from desktop.core.db.drivers import DriverCandidate
from desktop.core.db.errors import DatabaseUnavailable, DiskFull, QueryFailed
from desktop.core.db.migrations import latest_version
from desktop.core.db.opening import open_database


def _sidecars(path: Path) -> list[Path]:
    return [p for p in (Path(f"{path}-wal"), Path(f"{path}-shm")) if p.exists()]


def test_a_blank_file_opens_with_a_vector_capable_driver(db: Database, db_path: Path) -> None:
    assert db_path.exists()
    assert db.path == db_path
    assert db.driver_name in {"sqlite3", "sqlean", "pysqlite3"}
    assert db.vec_version.startswith("v")
    assert db.fetch_value("SELECT vec_length(vec_f32('[1, 2]'))") == 2
    assert db.sqlite_version.count(".") == 2


def test_pragmas_are_set_on_the_connection(db: Database) -> None:
    assert db.journal_mode == "wal"
    assert db.pragma("journal_mode") == "wal"
    assert db.pragma("synchronous") == 1  # NORMAL
    assert db.pragma("foreign_keys") == 1
    assert db.pragma("busy_timeout") == BUSY_TIMEOUT_MS


def test_broken_candidates_are_passed_over_when_opening(db_path: Path) -> None:
    def missing() -> object:
        raise ImportError("not installed")

    drivers = [DriverCandidate("absent", missing), DriverCandidate("sqlean", lambda: sqlean)]

    with open_database(db_path, drivers=drivers) as database:
        assert database.driver_name == "sqlean"
        assert database.fetch_value("SELECT count(*) FROM schema_migrations") == latest_version()


def test_no_working_driver_refuses_before_creating_the_file(db_path: Path) -> None:
    with pytest.raises(DatabaseUnavailable, match=r"pip install sqlean\.py"):
        open_database(db_path, drivers=[])

    assert not db_path.exists()


def test_a_transaction_commits_its_writes(db: Database) -> None:
    with db.transaction() as tx:
        tx.execute("CREATE TABLE t (x INTEGER)")
        result = tx.execute("INSERT INTO t (x) VALUES (?)", (7,))

    assert result.rowcount == 1
    assert result.lastrowid == 1
    assert db.fetch_all("SELECT x FROM t")[0]["x"] == 7


def test_an_exception_rolls_the_transaction_back(db: Database) -> None:
    with db.transaction() as tx:
        tx.execute("CREATE TABLE t (x INTEGER)")

    with pytest.raises(ValueError, match="changed my mind"), db.transaction() as tx:
        tx.execute("INSERT INTO t (x) VALUES (1)")
        raise ValueError("changed my mind")

    assert db.fetch_value("SELECT count(*) FROM t") == 0


def test_a_rejected_statement_is_a_typed_error_and_rolls_back(db: Database) -> None:
    with db.transaction() as tx:
        tx.execute("CREATE TABLE t (x INTEGER NOT NULL)")

    with pytest.raises(QueryFailed, match="NOT NULL"), db.transaction() as tx:
        tx.execute("INSERT INTO t (x) VALUES (1)")
        tx.execute("INSERT INTO t (x) VALUES (NULL)")

    assert db.fetch_value("SELECT count(*) FROM t") == 0
    with db.transaction() as tx:  # the connection is usable again
        tx.execute("INSERT INTO t (x) VALUES (2)")
    assert db.fetch_value("SELECT x FROM t") == 2


def test_a_script_is_split_into_whole_statements(db: Database) -> None:
    script = """
    CREATE TABLE t (x TEXT); CREATE TABLE log (x TEXT);
    -- a trigger body holds semicolons of its own
    CREATE TRIGGER t_log AFTER INSERT ON t BEGIN
        INSERT INTO log VALUES ('saw ' || new.x);
    END;
    INSERT INTO t VALUES ('a;b');
    -- a closing comment is not a statement
    """

    with db.transaction() as tx:
        tx.execute_script(script)

    assert db.fetch_value("SELECT x FROM t") == "a;b"
    assert db.fetch_value("SELECT x FROM log") == "saw a;b"


def test_transactions_do_not_nest(db: Database) -> None:
    with pytest.raises(RuntimeError, match="do not nest"), db.transaction(), db.transaction():
        pass


def test_a_transaction_cannot_be_used_after_its_block(db: Database) -> None:
    with db.transaction() as tx:
        pass

    with pytest.raises(RuntimeError, match="already ended"):
        tx.execute("SELECT 1")


def test_read_helpers(db: Database) -> None:
    assert db.fetch_one("SELECT 1 AS one WHERE 0") is None
    assert db.fetch_value("SELECT 1 WHERE 0") is None
    row = db.fetch_one("SELECT 1 AS one, 'two' AS two")
    assert row is not None
    assert (row["one"], row["two"], row.keys()) == (1, "two", ["one", "two"])
    assert [r[0] for r in db.fetch_all("SELECT value FROM json_each('[3, 4]')")] == [3, 4]


def test_pragma_names_are_checked(db: Database) -> None:
    with pytest.raises(ValueError, match="pragma name"):
        db.pragma("user_version; DROP TABLE memories")
    with pytest.raises(ValueError, match="pragma value"):
        db.set_pragma("journal_mode", "wal; DROP TABLE memories")


def test_threads_share_the_connection_safely(db: Database) -> None:
    with db.transaction() as tx:
        tx.execute("CREATE TABLE t (worker INTEGER, n INTEGER)")
    errors: list[BaseException] = []

    def work(worker: int) -> None:
        try:
            for n in range(50):
                with db.transaction() as tx:
                    tx.execute("INSERT INTO t VALUES (?, ?)", (worker, n))
                db.fetch_all("SELECT count(*) FROM t")
        except BaseException as exc:  # reported below: a thread's error must fail the test
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    assert db.fetch_value("SELECT count(*) FROM t") == 200


def test_a_snapshot_copies_what_was_committed_without_waiting_for_a_writer(
    db: Database, tmp_path: Path
) -> None:
    with db.transaction() as tx:
        tx.execute("CREATE TABLE t (x TEXT)")
        tx.execute("INSERT INTO t VALUES ('committed')")
    writing, release = threading.Event(), threading.Event()

    def writer() -> None:  # holds the connection (and a write lock) until released
        with db.transaction() as tx:
            tx.execute("INSERT INTO t VALUES ('not yet')")
            writing.set()
            release.wait(timeout=30)

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        assert writing.wait(timeout=10)
        copier = threading.Thread(target=db.snapshot_to, args=(tmp_path / "copy.sqlite3",))
        copier.start()
        copier.join(timeout=20)
        assert not copier.is_alive(), "the snapshot waited for the open transaction"
    finally:
        release.set()
        thread.join()

    with open_database(tmp_path / "copy.sqlite3") as copy:
        assert [row["x"] for row in copy.fetch_all("SELECT x FROM t")] == ["committed"]
        assert copy.fetch_value("PRAGMA integrity_check") == "ok"
    assert db.fetch_value("SELECT count(*) FROM t") == 2


def test_close_is_idempotent_and_later_use_is_a_typed_error(db_path: Path) -> None:
    database = open_database(db_path)
    database.close()
    database.close()

    with pytest.raises(QueryFailed, match="closed"):
        database.fetch_value("SELECT 1")


def test_reopening_keeps_the_data(db_path: Path) -> None:
    with open_database(db_path) as database, database.transaction() as tx:
        tx.execute("CREATE TABLE t (x TEXT)")
        tx.execute("INSERT INTO t VALUES ('kept')")

    with open_database(db_path) as database:
        assert database.fetch_value("SELECT x FROM t") == "kept"
        versions = database.fetch_all("SELECT version FROM schema_migrations")
        assert [row[0] for row in versions] == list(range(1, latest_version() + 1))


@pytest.mark.parametrize(
    "content",
    [
        random.Random(1234).randbytes(64 * 1024),
        b"These are my notes, not a database.\n" * 100,
    ],
    ids=["random-bytes", "text"],
)
def test_a_file_that_is_not_a_database_is_refused_untouched(db_path: Path, content: bytes) -> None:
    db_path.write_bytes(content)

    with pytest.raises(DatabaseUnavailable) as caught:
        open_database(db_path)

    message = str(caught.value)
    assert str(db_path) in message
    assert "not a database" in message
    assert "Nothing was changed" in message
    assert db_path.read_bytes() == content
    assert _sidecars(db_path) == []


def test_a_damaged_database_is_refused_untouched(db_path: Path) -> None:
    open_database(db_path).close()
    damaged = bytearray(db_path.read_bytes())
    # Keep the 100-byte file header but scribble over the schema's page.
    damaged[100:4096] = random.Random(99).randbytes(3996)
    db_path.write_bytes(bytes(damaged))

    with pytest.raises(DatabaseUnavailable, match="the file is damaged") as caught:
        open_database(db_path)

    assert "Nothing was changed" in str(caught.value)
    assert db_path.read_bytes() == bytes(damaged)


def test_another_applications_database_is_refused_untouched(db_path: Path) -> None:
    other = sqlean.connect(db_path)
    other.execute("CREATE TABLE bookmarks (url TEXT)")
    other.commit()
    other.close()
    before = db_path.read_bytes()

    with pytest.raises(DatabaseUnavailable, match="another application's database"):
        open_database(db_path)

    assert db_path.read_bytes() == before


def test_a_path_inside_a_file_is_refused(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")

    with pytest.raises(DatabaseUnavailable, match="not-a-folder is not a folder") as caught:
        open_database(blocker / "reverie.sqlite3")

    assert str(blocker / "reverie.sqlite3") in str(caught.value)
    assert blocker.read_text() == "x"


def test_a_missing_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DatabaseUnavailable, match="cannot be opened"):
        open_database(tmp_path / "missing" / "reverie.sqlite3")

    assert not (tmp_path / "missing").exists()


def test_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DatabaseUnavailable):
        open_database(tmp_path)


_OPEN_ON_A_FULL_DISK = """
import resource, shutil, signal, sys
from collections import namedtuple
from pathlib import Path
# No file may grow past 4 kB: SQLite cannot make the WAL index beside the
# database, as on a full disk (the child, not the test: pytest writes files).
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
if sys.argv[2] == "full":
    usage = namedtuple("usage", "total used free")
    shutil.disk_usage = lambda folder: usage(10**9, 10**9, 0)
from desktop.core.db import open_database
from desktop.core.base.errors import EnvironmentProblem
try:
    open_database(Path(sys.argv[1])).close()
except EnvironmentProblem as error:
    print(type(error).__name__, error)
"""


def _open_in_a_child(database: Path, disk: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", _OPEN_ON_A_FULL_DISK, str(database), disk],
        cwd=Path(__file__).resolve().parents[4],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.skipif(sys.platform == "win32", reason="no file size limit to stand for a full disk")
def test_a_database_closed_cleanly_opened_on_a_full_disk_says_the_disk_is_full(
    kept: Path,
) -> None:
    # SQLite calls the WAL index it cannot make an I/O error: the start said
    # "If the file is damaged, move it aside" (round 14), and a user who did
    # started with an empty memory.
    assert _sidecars(kept) == []

    said = _open_in_a_child(kept, "full")

    assert said.startswith(f"DiskFull The disk holding {kept} is full (0 B free in {kept.parent})")
    assert "aside" not in said
    with open_database(kept) as database:  # space back: all there
        assert database.fetch_value("SELECT count(*) FROM conversations") == 1


@pytest.mark.skipif(sys.platform == "win32", reason="no file size limit to stand for a full disk")
def test_a_failing_disk_with_room_on_it_is_still_a_failing_disk(kept: Path) -> None:
    said = _open_in_a_child(kept, "room")

    assert said.startswith("DatabaseUnavailable ")
    assert "disk I/O error" in said


def test_a_new_database_on_a_full_disk_says_the_disk_is_full(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_room(path: str, flags: int) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)

    monkeypatch.setattr(connection, "open_private", no_room)

    with pytest.raises(DiskFull, match=f"The disk holding {db_path} is full") as caught:
        open_database(db_path)
    assert "aside" not in str(caught.value)
