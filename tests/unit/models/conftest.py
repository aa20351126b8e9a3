"""Fixtures for the model layer's tests: tiny chat models written per test
(``tiny_gguf``), a chat template's clock standing still (``still_clock``),
and for the download tests a local Hub on 127.0.0.1, a
downloader whose back-off sleeps are only recorded, and a model on it to
download into a models folder."""

from __future__ import annotations

import functools
import math
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jinja2.filters
import pytest

from models import chat_template
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


GUARD_S = 60.0
"""Real seconds after which a still clock lets the render's deadline pass."""


class StillClock:
    """A clock that stands still for ``GUARD_S`` real seconds, then jumps
    past every deadline (a guard against a hang) and remembers it did."""

    def __init__(self) -> None:
        self.jumped = False
        self._guard = time.monotonic() + GUARD_S

    def monotonic(self) -> float:
        if time.monotonic() > self._guard:
            self.jumped = True
            return math.inf
        return 0.0


@pytest.fixture
def still_clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[StillClock]:
    """The chat template's clock, standing still: a costly template must be
    stopped by the steps and sizes its render counts, which no machine's
    speed changes, not by its deadline (a test that timed the render passed
    on a fast machine with an uncounted step back, and failed a busy one)."""
    clock = StillClock()
    monkeypatch.setattr(chat_template, "time", clock)
    yield clock
    assert not clock.jumped, "the render went on until its deadline: some work was not counted"


@pytest.fixture
def filters_run(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How many times each of jinja2's filters ran in a chat template made
    after it (each filter counted under its bounds, as the template wraps it)."""
    counted: Counter[str] = Counter()
    for name, function in list(jinja2.filters.FILTERS.items()):
        monkeypatch.setitem(jinja2.filters.FILTERS, name, _counting(function, counted))
    return counted


def _counting(function: Callable[..., Any], counted: Counter[str]) -> Callable[..., Any]:
    @functools.wraps(function)  # keeps the name and pass marks the template's bounds read
    def run(*args: Any, **kwargs: Any) -> Any:
        counted[function.__name__] += 1
        return function(*args, **kwargs)

    return run


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
