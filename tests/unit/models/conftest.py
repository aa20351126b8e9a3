"""Fixtures for the model layer's tests: tiny chat models written per test
(``tiny_gguf``), and for the download tests a local Hub on 127.0.0.1, a
downloader whose back-off sleeps are only recorded, and a model on it to
download into a models folder."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from models.download import Downloader
from tests.fakes import RecordedSleep
from tests.hub_server import HubServer
from tests.unit.models.test_download import FILE, REPO, gguf_bytes
from tests.unit.models.tiny_gguf import Metadata, tokenizer_metadata, write_tiny_gguf


@pytest.fixture(scope="session")
def smollm2_metadata(smollm2_path: Path) -> Metadata:
    """SmolLM2's tokenizer and chat template: every metadata key but the model's shape."""
    return tokenizer_metadata(smollm2_path)


@pytest.fixture
def tiny_gguf(smollm2_metadata: Metadata, tmp_path: Path) -> Callable[..., Path]:
    """Writes a tiny SmolLM2-tokenizer model with some metadata replaced
    (``tiny_gguf("name.gguf", tokenizer_ggml_pre="gpt-4o")``)."""

    def write(name: str = "tiny.gguf", **replaced: Any) -> Path:
        return write_tiny_gguf(tmp_path / name, smollm2_metadata, **replaced)

    return write


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
