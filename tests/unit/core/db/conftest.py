"""Fixtures for the database tests: a fresh database in a temporary folder, a settable clock."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.core.db import ConversationStore, Database, MemoryStore, open_database
from tests.fakes import HashingEmbedder

START = 1_700_000_000.0


class FakeClock:
    """A clock that only moves when told to."""

    def __init__(self, now: float = START) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "reverie.sqlite3"


@pytest.fixture
def kept(db_path: Path) -> Path:
    """A Reverie database holding one conversation, closed cleanly."""
    with open_database(db_path) as database:
        ConversationStore(database).create("my conversation")
    return db_path


@pytest.fixture
def db(db_path: Path) -> Iterator[Database]:
    database = open_database(db_path)
    yield database
    database.close()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def embedder() -> HashingEmbedder:
    return HashingEmbedder()


@pytest.fixture
def memories(db: Database, clock: FakeClock) -> MemoryStore:
    return MemoryStore(db, clock=clock)


@pytest.fixture
def conversations(db: Database, clock: FakeClock) -> ConversationStore:
    return ConversationStore(db, clock=clock)
