"""Round 33 of issue 15 against the broker: work queued at quit.

A job submitted while its role's first model still loads waits (parked)
for it.  Quitting then (``stop()``) failed such a job with
``ModelUnavailable``, the error of a model that cannot be loaded: the
message indexing, a harvest or a dream call queued at start-up and cut
short by quitting logged as a failure ('memory search by meaning is
unavailable', 'chat work failed' with a traceback).  It is stopped, as
every other job the broker drops at quit is (``GenerationCancelled``); a
model that truly cannot load still says so.
"""

from __future__ import annotations

import threading

import pytest

from models.broker import InferenceBroker, Priority
from models.errors import GenerationCancelled, ModelFileInvalid, ModelUnavailable
from models.interfaces import ChatMessage, GenerationOptions
from tests.fakes import HashingEmbedder, ScriptedChatModel

TIMEOUT = 10.0


def test_work_waiting_for_a_model_still_loading_at_quit_is_stopped_not_unavailable() -> None:
    broker = InferenceBroker()
    loading = threading.Event()
    released = threading.Event()

    def slow_load() -> ScriptedChatModel:
        loading.set()
        released.wait(TIMEOUT)
        return ScriptedChatModel()

    broker.load_chat_model(slow_load)
    broker.load_embedder(HashingEmbedder)
    broker.start()
    assert loading.wait(TIMEOUT)
    dream = broker.chat([ChatMessage("user", "dream")], GenerationOptions(), Priority.BACKGROUND)
    count = broker.count_tokens(["hello"])
    broker.stop(timeout=0.0)  # quitting while the chat model loads
    released.set()
    broker.stop()

    for job in (dream, count):
        with pytest.raises(GenerationCancelled):
            job.result(TIMEOUT)


def test_work_waiting_for_a_model_that_cannot_load_still_says_it_is_unavailable() -> None:
    broker = InferenceBroker()
    released = threading.Event()

    def corrupt() -> ScriptedChatModel:
        released.wait(TIMEOUT)
        raise ModelFileInvalid("chat.gguf is not a usable GGUF.", "Download it again.")

    load = broker.load_chat_model(corrupt)
    broker.start()
    try:
        job = broker.chat([ChatMessage("user", "hi")], GenerationOptions())
        released.set()
        with pytest.raises(ModelFileInvalid):
            load.result(TIMEOUT)
        with pytest.raises(ModelUnavailable) as raised:
            job.result(TIMEOUT)
        assert not isinstance(raised.value, GenerationCancelled)
    finally:
        broker.stop()
