"""The inference broker: the one owner of the loaded models, and the router
that sends every model call to a backend of its role.

Three roles (``Role``): the chat (user-priority generations and token
counts), background work (background-priority generations) and embeddings.
Each role is served by backends (``Backend``) in order: when one cannot
answer (a server down), the next one takes the job, unless the user already
saw part of its answer; embeddings have exactly one, since vectors of two
models must never be mixed.  Background work with no backends of its own
uses the chat's.

Every local llama.cpp model lives on the one local lane (a context must
never be used by two threads at once), where user jobs go first and
background work gives way (see ``models.lane``).  A backend on a server gets
a lane of its own, so a role on a server never queues behind local work: a
dream on a server goes on while the user chats with a local model.

Background generations on a local model the chat also uses run on a second
context over the same weights (see ``LlamaChatModel.fork``), so the chat's
prompt cache survives them and the next user turn does not re-read the
whole conversation.

Switching a role's backends (``configure``) loads the new models beside the
old ones, between jobs; only once every one loaded do the role's jobs go to
them and the old ones close.  If a load fails, the old backends stay.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from models.errors import GenerationCancelled, ModelUnavailable
from models.interfaces import ChatMessage, GenerationOptions
from models.jobs import (
    Backend,
    ChatRequest,
    CollectRequest,
    ConfigureRequest,
    CountRequest,
    EmbedRequest,
    Job,
    LoadRequest,
    Priority,
    ReadRequest,
    Request,
    Role,
)
from models.lane import EMBED_SLICE, Lane

__all__ = ["EMBED_SLICE", "Backend", "InferenceBroker", "Job", "Priority", "Role", "RoleHealth"]

log = logging.getLogger(__name__)

LOCAL = "local"
RETRY_AFTER_S = 30.0
"""A backend that could not answer is passed over for this long while a
fallback serves its role (so each job does not wait on a server that is
down first), then tried again."""

HealthListener = Callable[["RoleHealth"], None]


@dataclass(frozen=True)
class RoleHealth:
    """How a role's backends fared lately, for the window's banner."""

    role: Role
    problem: str | None
    """Why the first backend could not serve the role's last job; None when it did."""
    served_by: str | None = None
    """The fallback that served it instead, if one did."""


@dataclass(frozen=True)
class _Route:
    backend: Backend
    lane: Lane


class InferenceBroker:
    """Routes every model call to a lane, user requests first within each."""

    def __init__(
        self,
        background_allowed: Callable[[], bool] | None = None,
        on_health: HealthListener | None = None,
        clock: Callable[[], float] = time.monotonic,
        text_filter: Callable[[str], str] | None = None,
    ) -> None:
        """*background_allowed* says whether background work on local models
        may run now (e.g. not while the user is in the middle of a chat
        turn); while it says no, such jobs wait and one in flight is cut.
        *on_health* hears when a role's backend stops or starts answering.
        *text_filter* is given every text a model is sent (each message of
        a prompt, each text to embed) and says what is sent instead."""
        self._lock = threading.RLock()
        self._filter = text_filter
        self._local = Lane(LOCAL, self, hold=background_allowed)
        self._lanes: dict[str, Lane] = {LOCAL: self._local}
        self._retired: list[Lane] = []
        self._routes: dict[Role, tuple[_Route, ...]] = {}
        self._pending: dict[Role, int] = {}
        self._loading: dict[int, tuple[_Route, ...]] = {}
        """The routes of each ``configure`` still loading (kept from collection)."""
        self._parked: dict[Role, list[Job]] = {}
        self._health: dict[Role, RoleHealth] = {}
        self._on_health = on_health
        self._clock = clock
        self._down_until: dict[str, float] = {}
        """Backends that could not answer lately, by key: when to try them again."""
        self._started = False
        self._stopped = False
        self._keys = itertools.count(1)

    # -- lifecycle -----------------------------------------------------------
    def start(self) -> None:
        with self._lock:
            self._started = True
            lanes = list(self._lanes.values())
        for lane in lanes:
            if not lane.started:
                lane.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Cancel everything queued or running and join every lane's thread."""
        with self._lock:
            self._stopped = True
            lanes = [*self._lanes.values(), *self._retired]
            parked = [job for jobs in self._parked.values() for job in jobs]
            self._parked.clear()
        for lane in lanes:
            lane.stop()
        for job in parked:  # cut short by quitting, as the lanes' jobs are: no failure
            job.finish(error=GenerationCancelled("the inference broker stopped"))
        for lane in lanes:
            lane.join(timeout)

    # -- what serves each role -----------------------------------------------
    def configure(self, role: Role, backends: Sequence[Backend]) -> Job:
        """Serve *role* with *backends* (in order) from now on.

        The models load on their lanes between jobs; the returned job's
        result is the first one's name once all loaded, or the first load's
        error, in which case the role keeps what it had.  Background work
        given no backends uses the chat's.
        """
        backends = tuple(backends)
        if role is Role.EMBEDDINGS and len(backends) != 1:
            raise ValueError("embeddings have exactly one backend")
        if role is Role.CHAT and not backends:
            raise ValueError("the chat needs a backend")
        outcome = Job(ConfigureRequest(role, backends), Priority.USER, role)
        with self._lock:
            if self._stopped:  # no lane may start after stop(): none would be joined
                outcome.finish(error=GenerationCancelled("the inference broker stopped"))
                return outcome
            self._pending[role] = self._pending.get(role, 0) + 1
            routes = tuple(_Route(b, self._lane_for(role, b)) for b in backends)
            self._loading[id(outcome)] = routes
        loads = [Job(LoadRequest(route.backend), Priority.USER) for route in routes]
        remaining = [len(loads)]
        counter = threading.Lock()

        def loaded(_: Job) -> None:
            with counter:
                remaining[0] -= 1
                if remaining[0]:
                    return
            self._switch(routes, loads, outcome)

        if not loads:
            self._switch(routes, loads, outcome)
        for route, load in zip(routes, loads, strict=True):
            load.add_done_callback(loaded)
            route.lane.enqueue(load)
        return outcome

    def load_chat_model(self, load: Callable[[], Any]) -> Job:
        """Serve the chat (and background work) with the local model *load* makes."""
        return self.configure(Role.CHAT, [Backend(f"chat-{next(self._keys)}", load)])

    def load_embedder(self, load: Callable[[], Any]) -> Job:
        return self.configure(Role.EMBEDDINGS, [Backend(f"embedder-{next(self._keys)}", load)])

    def backends(self, role: Role) -> tuple[Backend, ...]:
        """The backends serving *role* now (background work: the chat's, if none of its own)."""
        return tuple(route.backend for route in self._routes_of(role))

    def set_health_listener(self, listener: HealthListener | None) -> None:
        """From now on *listener* hears when a role's backend stops or starts
        answering (on the thread that noticed)."""
        self._on_health = listener

    def health(self, role: Role) -> RoleHealth:
        return self._health.get(role, RoleHealth(role, None))

    def model(self, role: Role) -> Any | None:
        """The loaded model of *role*'s first backend (read its ``name``,
        ``context_length`` or ``dimension``; never call it from here)."""
        routes = self._routes_of(role)
        return routes[0].lane.models.get(routes[0].backend.key) if routes else None

    @property
    def embedder_name(self) -> str | None:
        """The embedder's name, recorded with the vectors it makes."""
        embedder = self.model(Role.EMBEDDINGS)
        return None if embedder is None else str(embedder.name)

    # -- submitting ----------------------------------------------------------
    def chat(
        self,
        messages: Sequence[ChatMessage],
        options: GenerationOptions,
        priority: Priority = Priority.USER,
    ) -> Job:
        role = Role.CHAT if priority == Priority.USER else Role.BACKGROUND
        return self._submit(ChatRequest(self._sent(messages), options), priority, role)

    def _sent(self, messages: Sequence[ChatMessage]) -> tuple[ChatMessage, ...]:
        """*messages* as a model is given them (through the filter, if any)."""
        if (sent := self._filter) is None:
            return tuple(messages)
        return tuple(ChatMessage(m.role, sent(m.content)) for m in messages)

    def read(self, messages: Sequence[ChatMessage]) -> Job:
        """Read *messages*' prompt into the chat model's prompt cache, in the
        background, so that a next reply to them reads only what it adds
        (``Lane._read``); the result is whether it was read whole."""
        return self._submit(ReadRequest(self._sent(messages)), Priority.BACKGROUND, Role.CHAT)

    def embed(
        self, texts: Sequence[str], priority: Priority = Priority.USER, *, query: bool = False
    ) -> Job:
        """Vectors of *texts*, to be found, or to search with if *query*."""
        if (sent := self._filter) is not None:
            texts = [sent(text) for text in texts]
        return self._submit(EmbedRequest(tuple(texts), query), priority, Role.EMBEDDINGS)

    def count_tokens(self, texts: Sequence[str], priority: Priority = Priority.USER) -> Job:
        """Count the chat model's tokens in each text; the result is a list of ints."""
        return self._submit(CountRequest(tuple(texts)), priority, Role.CHAT)

    def _submit(self, request: Request, priority: Priority, role: Role) -> Job:
        job = Job(request, priority, role)
        job.attempt = self._first_answering(self._routes_of(role))
        self._dispatch(job)
        return job

    def _first_answering(self, routes: tuple[_Route, ...]) -> int:
        """Where a new job starts: at the first backend not passed over
        after failing lately (the first one, if they all failed)."""
        now = self._clock()
        up = (i for i, r in enumerate(routes) if self._down_until.get(r.backend.key, 0.0) <= now)
        return next(up, 0)

    def _dispatch(self, job: Job) -> None:
        """Queue *job* on the lane of its role's current backend (or park it
        while the role's first backends load)."""
        assert job.role is not None
        with self._lock:
            routes = self._routes_of(job.role)
            waits_for = self._serving_role(job.role)
            if not routes and self._pending.get(waits_for):
                self._parked.setdefault(waits_for, []).append(job)
                return
        lane = routes[job.attempt].lane if job.attempt < len(routes) else self._local
        lane.enqueue(job)

    # -- the Router protocol, called on the lanes' threads -------------------
    def model_key(self, lane: Lane, job: Job) -> str | None:
        assert job.role is not None
        routes = self._routes_of(job.role)
        if job.attempt >= len(routes):
            name = "embedding" if job.role is Role.EMBEDDINGS else "chat"
            raise ModelUnavailable(f"No {name} model is loaded.")
        route = routes[job.attempt]
        if route.lane is not lane:  # its role moved while it waited
            route.lane.enqueue(job)
            return None
        if route.backend.key not in lane.models:
            raise ModelUnavailable(f"{route.backend.label or 'The model'} is not loaded.")
        return route.backend.key

    def shares_with_chat(self, lane: Lane, key: str) -> bool:
        return any(r.lane is lane and r.backend.key == key for r in self._routes_of(Role.CHAT))

    def failed(self, job: Job, error: ModelUnavailable) -> bool:
        assert job.role is not None
        routes = self._routes_of(job.role)
        if job.attempt < len(routes):
            self._down_until[routes[job.attempt].backend.key] = self._clock() + RETRY_AFTER_S
        if job.attempt == 0 and routes:
            self._report(RoleHealth(job.role, f"{routes[0].backend.label}: {error}"))
        if job.emitted or job.attempt + 1 >= len(routes):
            return False
        label = routes[job.attempt].backend.label
        log.warning("%s could not serve a %s job; trying the next backend", label, job.role)
        job.attempt += 1
        self._dispatch(job)
        return True

    def served(self, job: Job) -> None:
        assert job.role is not None
        routes = self._routes_of(job.role)
        if job.attempt < len(routes):
            self._down_until.pop(routes[job.attempt].backend.key, None)
        if job.attempt == 0:
            self._report(RoleHealth(job.role, None))
            return
        health = self.health(job.role)
        if job.attempt < len(routes):
            label = routes[job.attempt].backend.label
            self._report(RoleHealth(job.role, health.problem, served_by=label))

    # -- helpers -------------------------------------------------------------
    def _serving_role(self, role: Role) -> Role:
        """The role whose backends serve *role*: background work with none
        of its own (and none loading) uses the chat's."""
        if role is Role.BACKGROUND and not self._routes.get(role) and not self._pending.get(role):
            return Role.CHAT
        return role

    def _routes_of(self, role: Role) -> tuple[_Route, ...]:
        return self._routes.get(self._serving_role(role), ())

    def _lane_for(self, role: Role, backend: Backend) -> Lane:
        """The local lane, or the lane of this role's server backend (made if new)."""
        if not backend.remote:
            return self._local
        name = f"{role.value}:{backend.key}"
        lane = self._lanes.get(name)
        if lane is None:
            lane = self._lanes[name] = Lane(name, self)
            if self._started:
                lane.start()
        return lane

    def _switch(self, routes: tuple[_Route, ...], loads: list[Job], outcome: Job) -> None:
        """Every load of a ``configure`` is done: switch its role to *routes*,
        or keep the old ones if a load failed; close what nothing uses now."""
        request = outcome.request
        assert isinstance(request, ConfigureRequest)
        role = request.role
        error = next((load.error for load in loads if load.error is not None), None)
        with self._lock:
            self._pending[role] -= 1
            del self._loading[id(outcome)]
            if error is None:
                self._routes[role] = routes
            parked = [] if self._pending[role] else self._parked.pop(role, [])
            keep, forked, retire = self._unused()
        if error is None:  # a problem of the backends it had is no longer the role's
            self._report(RoleHealth(role, None))
        for lane in retire:
            lane.retire()
        for job in parked:
            self._dispatch(job)
        collect = Job(CollectRequest(keep, forked), Priority.USER)
        if error is None:
            name = loads[0].result() if loads else None
            collect.add_done_callback(lambda _: outcome.finish(result=name))
        else:
            outcome.finish(error=error)
        self._local.enqueue(collect)

    def _unused(self) -> tuple[frozenset[str], frozenset[str], list[Lane]]:
        """The keys the local lane must keep, those whose forks it may keep
        (background work shares them with the chat), and the server lanes
        nothing routes to or loads on any more (taken out of the broker's list)."""
        routes = [r for role in Role for r in self._routes.get(role, ())]
        routes += [r for loading in self._loading.values() for r in loading]
        keep = frozenset(r.backend.key for r in routes if r.lane is self._local)
        forked = frozenset(
            r.backend.key
            for r in self._routes_of(Role.BACKGROUND)
            if r.lane is self._local and self.shares_with_chat(self._local, r.backend.key)
        )
        used = {id(r.lane) for r in routes}
        retire = [lane for lane in self._lanes.values() if id(lane) not in used]
        for lane in retire:
            if lane is not self._local:
                del self._lanes[lane.name]
                self._retired.append(lane)
        return keep, forked, [lane for lane in retire if lane is not self._local]

    def _report(self, health: RoleHealth) -> None:
        with self._lock:
            if self._health.get(health.role, RoleHealth(health.role, None)) == health:
                return
            self._health[health.role] = health
        listener = self._on_health
        if listener is not None:
            try:
                listener(health)
            except Exception:  # a listener's bug must not take a lane down
                log.exception("health listener failed")
