"""Fixtures for the model layer's download tests: a local Hub on 127.0.0.1
and a downloader whose back-off sleeps are only recorded."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from models.download import Downloader
from tests.fakes import RecordedSleep
from tests.hub_server import HubServer


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
