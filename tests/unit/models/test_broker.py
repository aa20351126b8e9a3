"""Tests of the inference broker, with scripted fakes in place of the models.

Generations are held mid-stream with a ``StepGate`` (never a sleep), so every
interleaving below is the one the test means.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from models.broker import EMBED_SLICE, InferenceBroker, Job, Priority
from models.errors import GenerationCancelled, ModelUnavailable
from models.interfaces import ChatMessage, Chunk, GenerationOptions
from models.llama_chat import LlamaChatModel
from tests.fakes import (
    CallProbe,
    ForkableChatModel,
    HashingEmbedder,
    ScriptedChatModel,
    StepGate,
    eventually,
)

TIMEOUT = 10.0
MODEL_TIMEOUT = 120.0
"""For a real model's calls: SmolLM2 took 4-27 s for 8 tokens on 2 loaded cores."""
OPTIONS = GenerationOptions(temperature=0.0)
USER = Priority.USER
BACKGROUND = Priority.BACKGROUND


def _say(text: str) -> list[ChatMessage]:
    return [ChatMessage("user", text)]


def _asked(model: ScriptedChatModel) -> list[str]:
    """The last message of every request *model* got, in order."""
    return [messages[-1].content for messages, _ in model.requests]


@pytest.fixture
def probe() -> CallProbe:
    return CallProbe()


@pytest.fixture
def model(probe: CallProbe) -> ScriptedChatModel:
    return ScriptedChatModel(probe=probe)


@pytest.fixture
def embedder(probe: CallProbe) -> HashingEmbedder:
    return HashingEmbedder(probe=probe)


@pytest.fixture
def broker_threads() -> list[threading.Thread]:
    """Filled by the ``broker`` fixture with the broker's own thread."""
    return []


@pytest.fixture
def broker(
    model: ScriptedChatModel,
    embedder: HashingEmbedder,
    broker_threads: list[threading.Thread],
) -> Iterator[InferenceBroker]:
    broker = InferenceBroker()
    loads = [broker.load_chat_model(lambda: model), broker.load_embedder(lambda: embedder)]
    # Added before start(), so the callback runs on the broker thread.
    loads[0].add_done_callback(lambda _: broker_threads.append(threading.current_thread()))
    broker.start()
    for load in loads:
        load.result(TIMEOUT)
    yield broker
    for gate in (model.gate, embedder.gate):
        if isinstance(gate, StepGate):
            gate.open()  # a failed test must not leave the thread held
    broker.stop()
    assert not broker_threads[0].is_alive()


def _hold(model: ScriptedChatModel | HashingEmbedder, allowed: int = 0) -> StepGate:
    gate = StepGate(allowed)
    model.gate = gate
    return gate


# -- streaming and order -------------------------------------------------------


def test_user_chat_streams_chunks_in_order_and_result_joins_them(
    broker: InferenceBroker, model: ScriptedChatModel
) -> None:
    model.queue("Hello there, old friend.")
    job = broker.chat(_say("hi"), OPTIONS)

    chunks = list(job.chunks(TIMEOUT))

    assert [chunk.text for chunk in chunks] == ["Hello ", "there, ", "old ", "friend.", ""]
    assert [chunk.finish_reason for chunk in chunks] == [None, None, None, None, "stop"]
    assert job.result(TIMEOUT) == "Hello there, old friend."
    assert model.requests == [(_say("hi"), OPTIONS)]


def test_count_tokens_uses_the_chat_models_tokenizer_on_the_broker_thread(
    broker: InferenceBroker,
) -> None:
    counts = broker.count_tokens(["one two three", "", "four"]).result(TIMEOUT)

    assert counts == [3, 0, 1]  # the scripted model counts words


def test_user_jobs_run_before_queued_background_jobs(
    broker: InferenceBroker, model: ScriptedChatModel
) -> None:
    gate = _hold(model)
    first = broker.chat(_say("first"), OPTIONS)
    gate.wait_for_arrival(1)  # the broker is busy: everything below queues
    background = [broker.chat(_say(f"dream {n}"), OPTIONS, BACKGROUND) for n in (1, 2)]
    second = broker.chat(_say("second"), OPTIONS)
    gate.open()

    for job in (first, second, *background):
        assert job.result(TIMEOUT) == "ok"
    assert _asked(model) == ["first", "second", "dream 1", "dream 2"]
    assert [job.preemptions for job in background] == [0, 0]


def test_background_generation_is_cut_for_a_user_job_then_runs_again(
    broker: InferenceBroker, model: ScriptedChatModel
) -> None:
    model.answers["dream"] = "one two three four five"
    gate = _hold(model, allowed=2)
    dream = broker.chat(_say("dream"), OPTIONS, BACKGROUND)
    gate.wait_for_arrival(3)  # two words out, held before the third

    user = broker.chat(_say("hi"), OPTIONS)
    gate.open()

    assert user.result(TIMEOUT) == "ok"
    assert dream.result(TIMEOUT) == "one two three four five"
    assert dream.preemptions >= 1
    assert _asked(model) == ["dream", "hi", "dream"]
    assert model.chunks_sent == 2 + 1 + 5


def test_a_preempted_background_job_keeps_its_place_in_the_queue(
    broker: InferenceBroker, model: ScriptedChatModel
) -> None:
    model.answers["first"] = "one two three"
    gate = _hold(model, allowed=1)
    first = broker.chat(_say("first"), OPTIONS, BACKGROUND)
    gate.wait_for_arrival(2)
    later = broker.chat(_say("later"), OPTIONS, BACKGROUND)
    user = broker.chat(_say("hi"), OPTIONS)
    gate.open()

    assert user.result(TIMEOUT) == "ok"
    assert first.result(TIMEOUT) == "one two three"
    assert later.result(TIMEOUT) == "ok"
    assert first.preemptions == 1
    assert _asked(model) == ["first", "hi", "first", "later"]


def test_background_jobs_stream_no_chunks(
    broker: InferenceBroker, model: ScriptedChatModel
) -> None:
    model.queue("quiet work")
    dream = broker.chat(_say("dream"), OPTIONS, BACKGROUND)

    assert list(dream.chunks(TIMEOUT)) == []
    assert dream.result(TIMEOUT) == "quiet work"


# -- cancelling ------------------------------------------------------------------


def test_cancel_mid_stream_ends_with_cancelled_and_keeps_the_partial_text(
    broker: InferenceBroker, model: ScriptedChatModel
) -> None:
    model.queue("a b c d e")
    gate = _hold(model, allowed=2)
    job = broker.chat(_say("hi"), OPTIONS)
    chunks = job.chunks(TIMEOUT)
    assert [next(chunks), next(chunks)] == [Chunk("a "), Chunk("b ")]
    gate.wait_for_arrival(3)

    job.cancel()
    gate.open()

    assert list(chunks) == [Chunk("", "cancelled")]
    assert job.result(TIMEOUT) == "a b "
    assert job.preemptions == 0
    assert _asked(model) == ["hi"]  # not run again


def test_cancel_before_start_never_reaches_the_model(
    broker: InferenceBroker, model: ScriptedChatModel
) -> None:
    gate = _hold(model)
    first = broker.chat(_say("first"), OPTIONS)
    gate.wait_for_arrival(1)
    second = broker.chat(_say("second"), OPTIONS)

    second.cancel()
    gate.open()

    assert first.result(TIMEOUT) == "ok"
    # Ends like a reply stopped mid-stream, with nothing said: not an error.
    assert second.result(TIMEOUT) == ""
    assert list(second.chunks(TIMEOUT)) == [Chunk("", "cancelled")]
    assert _asked(model) == ["first"]


def test_a_background_job_cancelled_before_start_raises(
    broker: InferenceBroker, model: ScriptedChatModel
) -> None:
    gate = _hold(model)
    first = broker.chat(_say("first"), OPTIONS)
    gate.wait_for_arrival(1)
    dream = broker.chat(_say("dream"), OPTIONS, BACKGROUND)

    dream.cancel()
    gate.open()

    assert first.result(TIMEOUT) == "ok"
    with pytest.raises(GenerationCancelled):
        dream.result(TIMEOUT)
    assert _asked(model) == ["first"]


def test_cancelled_background_generation_raises_and_is_not_run_again(
    broker: InferenceBroker, model: ScriptedChatModel
) -> None:
    model.answers["dream"] = "one two three"
    gate = _hold(model, allowed=1)
    dream = broker.chat(_say("dream"), OPTIONS, BACKGROUND)
    gate.wait_for_arrival(2)

    dream.cancel()
    gate.open()

    with pytest.raises(GenerationCancelled):
        dream.result(TIMEOUT)
    assert dream.preemptions == 0
    assert broker.chat(_say("next"), OPTIONS).result(TIMEOUT) == "ok"
    assert _asked(model) == ["dream", "next"]


# -- failures --------------------------------------------------------------------


@pytest.mark.parametrize("priority", [USER, BACKGROUND])
def test_a_failing_model_fails_its_job_and_the_broker_serves_the_next(
    broker: InferenceBroker, model: ScriptedChatModel, priority: Priority
) -> None:
    error = RuntimeError("the model broke")
    model.queue(error, "still here")

    failed = broker.chat(_say("first"), OPTIONS, priority)

    with pytest.raises(RuntimeError) as caught:
        failed.result(TIMEOUT)
    assert caught.value is error
    with pytest.raises(RuntimeError):
        list(failed.chunks(TIMEOUT))
    assert broker.chat(_say("second"), OPTIONS, priority).result(TIMEOUT) == "still here"


def test_jobs_without_a_loaded_model_fail_with_model_unavailable() -> None:
    broker = InferenceBroker()
    broker.start()
    try:
        chat = broker.chat(_say("hi"), OPTIONS)
        embed = broker.embed(["hi"])
        count = broker.count_tokens(["hi"])
        with pytest.raises(ModelUnavailable):
            chat.result(TIMEOUT)
        with pytest.raises(ModelUnavailable):
            count.result(TIMEOUT)
        with pytest.raises(ModelUnavailable):
            embed.result(TIMEOUT)
    finally:
        broker.stop()


def test_a_failing_loader_keeps_the_previous_model(
    broker: InferenceBroker, model: ScriptedChatModel
) -> None:
    def broken_loader() -> ScriptedChatModel:
        raise OSError("no such file")

    with pytest.raises(OSError, match="no such file"):
        broker.load_chat_model(broken_loader).result(TIMEOUT)

    assert not model.closed
    assert broker.chat(_say("hi"), OPTIONS).result(TIMEOUT) == "ok"


# -- stopping --------------------------------------------------------------------


def test_stop_cancels_everything_and_joins_the_thread(
    broker: InferenceBroker,
    model: ScriptedChatModel,
    embedder: HashingEmbedder,
    broker_threads: list[threading.Thread],
) -> None:
    model.queue("a b c")
    gate = _hold(model, allowed=1)
    running = broker.chat(_say("running"), OPTIONS)
    gate.wait_for_arrival(2)
    queued = [
        broker.chat(_say("queued"), OPTIONS),
        broker.chat(_say("dream"), OPTIONS, BACKGROUND),
        broker.embed(["a text"], BACKGROUND),
    ]

    stopper = threading.Thread(target=broker.stop)
    stopper.start()
    for job in queued:  # finished by stop() itself, while the running job is held
        with pytest.raises(GenerationCancelled):
            job.result(TIMEOUT)
    gate.open()
    stopper.join(TIMEOUT)

    assert not stopper.is_alive()
    assert not broker_threads[0].is_alive()
    assert running.result(TIMEOUT) == "a "
    assert list(running.chunks(TIMEOUT))[-1] == Chunk("", "cancelled")
    assert _asked(model) == ["running"]
    assert model.closed
    assert embedder.closed
    with pytest.raises(GenerationCancelled):
        broker.chat(_say("too late"), OPTIONS).result(TIMEOUT)


def test_stop_cancels_a_background_embedding_between_slices(
    broker: InferenceBroker, embedder: HashingEmbedder
) -> None:
    gate = _hold(embedder, allowed=1)
    texts = [f"text {n}" for n in range(3 * EMBED_SLICE)]
    job = broker.embed(texts, BACKGROUND)
    gate.wait_for_arrival(2)

    stopper = threading.Thread(target=broker.stop)
    stopper.start()
    gate.open()
    stopper.join(TIMEOUT)

    assert not stopper.is_alive()
    with pytest.raises(GenerationCancelled):
        job.result(TIMEOUT)
    assert len(embedder.calls) == 2  # the third slice never ran


# -- embedding -------------------------------------------------------------------


def test_user_embedding_returns_the_embedder_vectors(
    broker: InferenceBroker, embedder: HashingEmbedder
) -> None:
    texts = ["I love climbing", "the invoice is due"]

    vectors = broker.embed(texts).result(TIMEOUT)

    np.testing.assert_array_equal(vectors, HashingEmbedder().embed(texts))
    assert embedder.calls == [texts]


def test_background_embedding_runs_in_slices_and_yields_to_a_user_job(
    broker: InferenceBroker, embedder: HashingEmbedder
) -> None:
    texts = [f"memory number {n}" for n in range(3 * EMBED_SLICE + 5)]
    gate = _hold(embedder, allowed=1)
    background = broker.embed(texts, BACKGROUND)
    gate.wait_for_arrival(2)  # the first slice is done, the second is held

    user = broker.embed(["hello world"])
    gate.open()

    np.testing.assert_array_equal(user.result(TIMEOUT), HashingEmbedder().embed(["hello world"]))
    np.testing.assert_array_equal(background.result(TIMEOUT), HashingEmbedder().embed(texts))
    sizes = [len(call) for call in embedder.calls]
    assert sizes == [EMBED_SLICE, EMBED_SLICE, 1, EMBED_SLICE, 5]
    assert embedder.calls[2] == ["hello world"]


def test_background_embedding_of_nothing_is_an_empty_array(broker: InferenceBroker) -> None:
    vectors = broker.embed([], BACKGROUND).result(TIMEOUT)

    assert vectors.shape == (0, HashingEmbedder().dimension)


def test_cancelling_a_background_embedding_stops_it_between_slices(
    broker: InferenceBroker, embedder: HashingEmbedder
) -> None:
    gate = _hold(embedder, allowed=1)
    job = broker.embed([f"text {n}" for n in range(3 * EMBED_SLICE)], BACKGROUND)
    gate.wait_for_arrival(2)

    job.cancel()
    gate.open()

    with pytest.raises(GenerationCancelled):
        job.result(TIMEOUT)
    assert len(embedder.calls) == 2


def test_a_new_embedder_loaded_mid_job_embeds_the_whole_job_again(
    broker: InferenceBroker, embedder: HashingEmbedder
) -> None:
    texts = [f"text {n}" for n in range(3 * EMBED_SLICE)]
    gate = _hold(embedder, allowed=1)
    job = broker.embed(texts, BACKGROUND)
    gate.wait_for_arrival(2)
    replacement = HashingEmbedder(dimension=16)

    load = broker.load_embedder(lambda: replacement)
    gate.open()

    assert load.result(TIMEOUT) == "hashing"
    vectors = job.result(TIMEOUT)
    assert vectors.shape == (len(texts), 16)  # no rows from the old model mixed in
    assert job.preemptions == 1
    assert embedder.closed
    assert sum(len(call) for call in replacement.calls) == len(texts)


# -- forks and loading -----------------------------------------------------------


def test_background_chat_runs_on_a_fork_of_the_chat_model(broker: InferenceBroker) -> None:
    forkable = ForkableChatModel()
    broker.load_chat_model(lambda: forkable).result(TIMEOUT)

    jobs = [
        broker.chat(_say("dream 1"), OPTIONS, BACKGROUND),
        broker.chat(_say("hi"), OPTIONS),
        broker.chat(_say("dream 2"), OPTIONS, BACKGROUND),
    ]

    assert [job.result(TIMEOUT) for job in jobs] == ["ok", "ok", "ok"]
    assert len(forkable.forks) == 1  # forked once, then reused
    assert _asked(forkable) == ["hi"]
    assert _asked(forkable.forks[0]) == ["dream 1", "dream 2"]


def test_load_chat_model_replaces_and_closes_the_old_models(
    broker: InferenceBroker, model: ScriptedChatModel
) -> None:
    first = ForkableChatModel(default="first")
    assert broker.load_chat_model(lambda: first).result(TIMEOUT) == "forkable"
    assert model.closed  # the fixture's model was replaced
    assert broker.chat(_say("dream"), OPTIONS, BACKGROUND).result(TIMEOUT) == "first"
    second = ScriptedChatModel(default="second")

    broker.load_chat_model(lambda: second).result(TIMEOUT)

    assert first.closed
    assert first.forks[0].closed
    assert broker.chat(_say("hi"), OPTIONS).result(TIMEOUT) == "second"
    assert broker.chat(_say("dream"), OPTIONS, BACKGROUND).result(TIMEOUT) == "second"
    assert not second.closed
    assert _asked(second) == ["hi", "dream"]  # no fork: background shares the model


def test_load_embedder_replaces_and_closes_the_old_one(
    broker: InferenceBroker, embedder: HashingEmbedder
) -> None:
    replacement = HashingEmbedder(dimension=8)

    broker.load_embedder(lambda: replacement).result(TIMEOUT)

    assert embedder.closed
    assert broker.embed(["hi"]).result(TIMEOUT).shape == (1, 8)


# -- one model call at a time ----------------------------------------------------


def test_the_call_probe_notices_two_calls_at_once(probe: CallProbe) -> None:
    both_inside = threading.Barrier(2, timeout=TIMEOUT)

    def call() -> None:
        with probe.call():
            both_inside.wait()

    threads = [threading.Thread(target=call) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(TIMEOUT)

    assert probe.max_active == 2
    assert len(probe.thread_ids) == 2


def test_models_are_never_called_twice_at_once_nor_off_the_broker_thread(
    broker: InferenceBroker,
    probe: CallProbe,
    broker_threads: list[threading.Thread],
) -> None:
    forkable = ForkableChatModel(default="a few words of reply", probe=probe)
    broker.load_chat_model(lambda: forkable).result(TIMEOUT)
    start = threading.Barrier(4, timeout=TIMEOUT)
    jobs: list[Job] = []
    jobs_lock = threading.Lock()

    def submit(n: int) -> None:
        start.wait()
        for round_ in range(5):
            batch = [
                broker.chat(_say(f"user {n}.{round_}"), OPTIONS),
                broker.chat(_say(f"dream {n}.{round_}"), OPTIONS, BACKGROUND),
                broker.embed([f"fact {n}.{round_}"]),
                broker.embed([f"memory {k}" for k in range(EMBED_SLICE + 3)], BACKGROUND),
            ]
            with jobs_lock:
                jobs.extend(batch)

    submitters = [threading.Thread(target=submit, args=(n,)) for n in range(4)]
    for thread in submitters:
        thread.start()
    for thread in submitters:
        thread.join(TIMEOUT)
    for job in jobs:
        job.result(TIMEOUT)

    assert len(jobs) == 4 * 5 * 4
    assert probe.calls >= len(jobs)
    assert probe.max_active == 1
    assert probe.thread_ids == {broker_threads[0].ident}


# -- done callbacks --------------------------------------------------------------


def test_done_callback_fires_once_also_when_added_after_completion(
    broker: InferenceBroker, model: ScriptedChatModel
) -> None:
    gate = _hold(model)
    job = broker.chat(_say("hi"), OPTIONS)
    gate.wait_for_arrival(1)
    fired = threading.Event()
    early: list[Job] = []

    def on_done(done: Job) -> None:
        early.append(done)
        fired.set()

    job.add_done_callback(on_done)
    gate.open()
    assert fired.wait(TIMEOUT)
    late: list[Job] = []
    job.add_done_callback(late.append)

    assert late == [job]  # called at once, on this thread
    assert broker.chat(_say("next"), OPTIONS).result(TIMEOUT) == "ok"
    assert early == [job]


def test_a_failing_done_callback_does_not_take_the_broker_down(
    broker: InferenceBroker, model: ScriptedChatModel
) -> None:
    gate = _hold(model)
    job = broker.chat(_say("hi"), OPTIONS)
    gate.wait_for_arrival(1)
    after = threading.Event()

    def broken(_: Job) -> None:
        raise RuntimeError("a listener's bug")

    job.add_done_callback(broken)
    job.add_done_callback(lambda _: after.set())
    gate.open()

    assert job.result(TIMEOUT) == "ok"
    assert after.wait(TIMEOUT)  # later callbacks still run
    assert broker.chat(_say("next"), OPTIONS).result(TIMEOUT) == "ok"


@pytest.mark.model
def test_a_background_call_leaves_the_chats_prompt_cache_alone(smollm2_path: Path) -> None:
    chat = LlamaChatModel(smollm2_path, context_length=1024)
    broker = InferenceBroker()
    broker.start()
    try:
        broker.load_chat_model(lambda: chat).result(MODEL_TIMEOUT)
        options = GenerationOptions(max_tokens=8, temperature=0.0)
        turn = [ChatMessage("system", "Be brief."), ChatMessage("user", "Name a colour.")]
        first = broker.chat(turn, options).result(MODEL_TIMEOUT)
        broker.chat(_say("Summarise: the sky is blue."), options, BACKGROUND).result(MODEL_TIMEOUT)
        follow_up = [*turn, ChatMessage("assistant", first), ChatMessage("user", "Another?")]
        broker.chat(follow_up, options).result(MODEL_TIMEOUT)

        assert chat.last_prompt_reuse >= len(chat.prompt_tokens(turn)) - 1
    finally:
        broker.stop()


# -- holding background work ------------------------------------------------------


class Switch:
    """Whether background work may run, as a test sets it."""

    def __init__(self) -> None:
        self.allowed = threading.Event()

    def __call__(self) -> bool:
        return self.allowed.is_set()


def test_held_background_work_waits_and_runs_once_allowed(model: ScriptedChatModel) -> None:
    switch = Switch()
    broker = InferenceBroker(background_allowed=switch)
    broker.start()
    try:
        broker.load_chat_model(lambda: model).result(TIMEOUT)
        background = broker.chat(_say("tidy up"), OPTIONS, BACKGROUND)
        user = broker.chat(_say("hello"), OPTIONS)

        assert user.result(TIMEOUT) == "ok"  # user work is never held
        assert not background.done()
        assert _asked(model) == ["hello"]

        switch.allowed.set()
        assert background.result(TIMEOUT) == "ok"
        assert _asked(model) == ["hello", "tidy up"]
    finally:
        broker.stop()


def test_a_background_generation_is_cut_when_held_and_runs_again_later(
    model: ScriptedChatModel,
) -> None:
    switch = Switch()
    switch.allowed.set()
    broker = InferenceBroker(background_allowed=switch)
    broker.start()
    try:
        broker.load_chat_model(lambda: model).result(TIMEOUT)
        model.queue("one two three four", "one two three four")
        gate = _hold(model, allowed=1)
        job = broker.chat(_say("tidy up"), OPTIONS, BACKGROUND)
        gate.wait_for_arrival(2)

        switch.allowed.clear()  # the user started a turn
        gate.open()
        # Cut at its next token and back in the queue, held.
        assert eventually(lambda: job.preemptions == 1)
        assert not job.done()

        switch.allowed.set()
        assert job.result(TIMEOUT) == "one two three four"
        assert job.preemptions == 1
    finally:
        broker.stop()


def test_a_cancelled_job_ends_at_once_even_while_background_work_is_held(
    model: ScriptedChatModel,
) -> None:
    switch = Switch()  # held: the user is chatting
    broker = InferenceBroker(background_allowed=switch)
    broker.start()
    try:
        broker.load_chat_model(lambda: model).result(TIMEOUT)
        held = broker.chat(_say("tidy up"), OPTIONS, BACKGROUND)
        also_held = broker.chat(_say("and this"), OPTIONS, BACKGROUND)

        held.cancel()

        with pytest.raises(GenerationCancelled):
            held.result(TIMEOUT)  # its caller (e.g. quitting) does not wait for quiet
        assert not also_held.done() and _asked(model) == []
    finally:
        broker.stop()


def test_every_text_a_model_is_sent_passes_the_filter_first(
    model: ScriptedChatModel, embedder: HashingEmbedder
) -> None:
    # The application takes out the secrets caught this run (Redactor.known):
    # a memory stored before its value was named reaches no model with it.
    broker = InferenceBroker(text_filter=lambda text: text.replace("Qz2Fv84Mt", "[redacted]"))
    loads = [broker.load_chat_model(lambda: model), broker.load_embedder(lambda: embedder)]
    broker.start()
    try:
        for load in loads:
            load.result(TIMEOUT)
        said = [ChatMessage("system", "memory: type Qz2Fv84Mt"), *_say("and the NAS?")]
        broker.chat(said, OPTIONS).result(TIMEOUT)
        broker.embed(["when the NAS asks, type Qz2Fv84Mt"]).result(TIMEOUT)
    finally:
        broker.stop()

    [(sent, _)] = model.requests
    assert [m.content for m in sent] == ["memory: type [redacted]", "and the NAS?"]
    assert embedder.calls == [["when the NAS asks, type [redacted]"]]
