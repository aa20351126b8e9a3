"""Fixtures for the model layer's download tests: a local Hub on 127.0.0.1,
a downloader whose back-off sleeps are only recorded, and a model on it to
download into a models folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from models.download import Downloader
from tests.fakes import RecordedSleep
from tests.hub_server import HubServer
from tests.unit.models.test_download import FILE, REPO, gguf_bytes


@pytest.fixture
def hub() -> Iterator[HubServer]:
    with HubServer() as server:
        yield server


@pytest.fixture
def sleep() -> RecordedSleep:
    return RecordedSleep()


@pytest.fixture
def downloader(hub: HubServer, sleep: RecordedSleep) -> Iterator[Downloader]:
    # Depends on ``hub`` so that it closes (and drops its connections) first.
    loader = Downloader(sleep=sleep, disk_margin=0)
    yield loader
    loader.close()


@pytest.fixture
def models_dir(tmp_path: Path) -> Path:
    """The models folder, empty."""
    folder = tmp_path / "models"
    folder.mkdir()
    return folder


@pytest.fixture
def content() -> bytes:
    return gguf_bytes()


@pytest.fixture
def url(hub: HubServer, content: bytes) -> str:
    return hub.add(REPO, FILE, content)
