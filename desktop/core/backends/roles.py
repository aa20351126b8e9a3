"""From the settings' roles to the broker's backends, and keeping them in step.

Each role (chat, background work, embeddings) names its backends in the
settings (``settings.Backend``): the embedded model, a local GGUF (a catalog
model or a file) or an OpenAI-compatible server.  ``backends_for`` turns them
into what the broker loads (``models.jobs.Backend``: a key, a loader, a label);
``RoleSwitch`` hands the broker the roles whose backends changed, so a new
model or server takes effect without a restart.  A server's API key is read
from the system keyring when its backend is made, never from the settings,
and taken out of it once no role uses the server (``forget_unused_keys``).
On the first start the embedded embedding model is converted to GGUF (a few
seconds); ``PreparationProgress`` tells the command line and the window how
that goes.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from desktop.core.backends.library import (
    EMBEDDED_CHAT_NAME,
    EMBEDDED_EMBEDDER_NAME,
    ModelLibrary,
    is_path,
)
from desktop.core.base.secrets import SecretStore
from desktop.core.base.settings import Backend as BackendSettings
from desktop.core.base.settings import ModelSettings
from models.broker import InferenceBroker
from models.convert_bert import CONVERTER_VERSION, Progress, ensure_default_embedder_gguf
from models.embedded import default_chat_model_path, default_embedding_source
from models.jobs import Backend, Job, Role
from models.llama_chat import LlamaChatModel
from models.llama_embedder import LlamaEmbedder
from models.server_chat import ServerChatModel
from models.server_embed import ServerEmbedder
from models.server_http import DEFAULT_READ_TIMEOUT_S

log = logging.getLogger(__name__)

DEFAULT_EMBEDDER_NAME = f"all-MiniLM-L6-v2@{CONVERTER_VERSION}"
"""Stored vectors record the embedder's name; a new converter means new vectors."""


@dataclass(frozen=True)
class Preparation:
    """A step of preparing a model for its first use (converting the embedded embedder)."""

    fraction: float
    """Done so far, 0 to 1."""
    stage: str
    """What it is doing: "reading the weights", "writing tensors 12/101"..."""
    failed: bool = False
    """It stopped here with an error (the load's error says which)."""

    @property
    def over(self) -> bool:
        """Nothing more of this preparation comes."""
        return self.failed or self.fraction >= 1.0


PreparationListener = Callable[[Preparation], None]


def preparing_text(fraction: float) -> str:
    """What the user reads while the memory model is prepared."""
    return f"Preparing the memory model (first start only)… {int(fraction * 100)}%"


class PreparationProgress:
    """Tells its listeners how a model's preparation goes, on the loading thread.

    Listeners (the command line, the window) may come and go from any thread;
    each must be quick and hand the step on to its own thread if it needs one.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._listeners: tuple[PreparationListener, ...] = ()

    def add_listener(self, listener: PreparationListener) -> None:
        with self._lock:
            self._listeners = (*self._listeners, listener)

    def remove_listener(self, listener: PreparationListener) -> None:
        with self._lock:
            self._listeners = tuple(known for known in self._listeners if known != listener)

    @contextmanager
    def reporting(self) -> Iterator[Progress]:
        """A converter's ``Progress`` callback for the listeners; if the
        conversion raises, they hear that it failed where it was."""
        last: list[Preparation] = []

        def report(fraction: float, stage: str) -> None:
            last[:] = [Preparation(fraction, stage)]
            self._tell(last[0])

        try:
            yield report
        except BaseException:
            if last and not last[0].over:
                self._tell(replace(last[0], failed=True))
            raise

    def _tell(self, step: Preparation) -> None:
        for listener in self._listeners:  # a snapshot: one removed meanwhile may hear it
            listener(step)


def api_key_name(url: str) -> str:
    """The keyring entry of the API key for the server at *url*."""
    return f"api-key {url}"


def forget_unused_keys(secrets: SecretStore, before: ModelSettings, after: ModelSettings) -> None:
    """Take out of the keyring the API key of each server a role used
    *before* and none uses *after*: a key is kept for a server in use only.
    ``SecretsUnavailable`` if the keyring refused (a locked one)."""
    for url in sorted(_server_urls(before) - _server_urls(after)):
        secrets.delete(api_key_name(url))


def _server_urls(models: ModelSettings) -> set[str]:
    backends = (*models.chat, *models.background, models.embeddings)
    return {backend.url for backend in backends if backend.kind == "server"}


@dataclass(frozen=True)
class BackendMaker:
    """Makes the broker's backends of one installation's settings."""

    library: ModelLibrary
    secrets: SecretStore
    preparation: PreparationProgress = field(default_factory=PreparationProgress)
    """Hears the embedded embedder's conversion on the first start."""
    preparing_dir: Path | None = None
    """Where that conversion unpacks the weights (``AppPaths.preparing_dir``;
    None: the system's temporary folder)."""
    server_wait: float = DEFAULT_READ_TIMEOUT_S
    """The longest a server may stay silent before it counts as not
    answering (``reverie --check`` waits less than the app)."""

    def for_role(self, role: Role, settings: ModelSettings) -> list[Backend]:
        """*role*'s backends, in order (background work: none means the chat's)."""
        if role is Role.EMBEDDINGS:
            return [self.embedder(settings.embeddings, settings)]
        chosen = settings.chat if role is Role.CHAT else settings.background
        return [self.chat(backend, settings) for backend in chosen]

    def chat(self, backend: BackendSettings, settings: ModelSettings) -> Backend:
        context, threads = settings.context_length, settings.threads or None
        if backend.kind == "server":
            return self._server(
                backend, ServerChatModel, context_length=context, dialect=backend.dialect
            )
        name = (
            EMBEDDED_CHAT_NAME
            if backend.kind == "embedded"
            else self.library.name_of(backend.model)
        )
        where = "embedded" if backend.kind == "embedded" else backend.model

        def load() -> LlamaChatModel:
            return LlamaChatModel(self._chat_file(backend), context_length=context, threads=threads)

        return Backend(f"llama:{where}@{context}/{threads}", load, label=name)

    def embedder(self, backend: BackendSettings, settings: ModelSettings) -> Backend:
        threads = settings.threads or None
        if backend.kind == "server":
            return self._server(backend, ServerEmbedder)
        if backend.kind == "embedded":
            models_dir, preparation = self.library.models_dir, self.preparation
            preparing_dir = self.preparing_dir

            def load_embedded() -> LlamaEmbedder:
                with preparation.reporting() as progress:
                    source = default_embedding_source()
                    path = ensure_default_embedder_gguf(source, models_dir, progress, preparing_dir)
                return LlamaEmbedder(path, name=DEFAULT_EMBEDDER_NAME, n_threads=threads)

            key = f"embedder:{DEFAULT_EMBEDDER_NAME}/{threads}"
            return Backend(key, load_embedded, label=EMBEDDED_EMBEDDER_NAME)
        ref = backend.model
        # The vectors' model: a catalog id names itself; a file, by its name.
        name = ref if not is_path(ref) else self.library.name_of(ref)
        entry = None if is_path(ref) else self.library.catalog.find(ref)

        def load() -> LlamaEmbedder:
            return LlamaEmbedder(
                self.library.local_path(ref),
                name=name,
                n_threads=threads,
                query_prefix=(entry and entry.query_prefix) or "",
                document_prefix=(entry and entry.document_prefix) or "",
            )

        return Backend(f"embedder:{ref}/{threads}", load, label=self.library.name_of(ref))

    def _chat_file(self, backend: BackendSettings) -> Path:
        if backend.kind == "embedded":
            return default_chat_model_path()
        return self.library.local_path(backend.model)

    def _server(
        self,
        backend: BackendSettings,
        make: Callable[..., ServerChatModel | ServerEmbedder],
        **options: object,
    ) -> Backend:
        url, model, wait = backend.url, backend.model, self.server_wait
        secret = api_key_name(url)

        def load() -> ServerChatModel | ServerEmbedder:
            return make(url, model, api_key=self.secrets.get(secret), read_timeout=wait, **options)

        # With the key's revision: a backend made with an older API key is made again.
        identity = f"server:{url}|{model}|{backend.dialect}|{self.secrets.revision(secret)}"
        return Backend(identity, load, label=f"{model} at {url}", remote=True)


class RoleSwitch:
    """Gives the broker the backends of each role whose settings changed."""

    def __init__(self, broker: InferenceBroker, maker: BackendMaker) -> None:
        self._broker = broker
        self._maker = maker
        self._applied: dict[Role, tuple[str, ...]] = {}

    def apply(self, settings: ModelSettings) -> dict[Role, Job]:
        """Switch every role whose backends differ from what was applied; the
        load jobs, by role (a failed one leaves the role as it was)."""
        jobs: dict[Role, Job] = {}
        for role in Role:
            backends = self._maker.for_role(role, settings)
            keys = tuple(backend.key for backend in backends)
            if self._applied.get(role, ()) == keys:
                continue
            self._applied[role] = keys
            jobs[role] = job = self._broker.configure(role, backends)
            job.add_done_callback(self._forget_if_failed)
        return jobs

    def _forget_if_failed(self, job: Job) -> None:
        if job.error is not None and job.role is not None:
            # The role kept its old backends: the next apply tries again.
            self._applied.pop(job.role, None)


def context_overrun(broker: InferenceBroker, role: Role) -> str | None:
    """Why *role*'s model may garble long conversations, or None: it is given
    more context than it was trained for (llama.cpp says so only in the log)."""
    model = broker.model(role)
    trained = getattr(model, "trained_context", None)
    given = getattr(model, "context_length", None)
    if not (isinstance(trained, int) and isinstance(given, int) and 0 < trained < given):
        return None
    return (
        f"{getattr(model, 'name', 'The model')} was trained for {trained:,} tokens of context, "
        f"less than the {given:,} it is given (models.context_length): long conversations "
        f"may come out garbled. Set models.context_length to {trained:,} or less."
    )


def describe_role(broker: InferenceBroker, role: Role) -> str:
    """What serves *role* now, for the user: its backends in order, and
    where each runs ("Qwen2.5 1.5B Instruct, on this computer; then ...")."""
    backends = broker.backends(role)
    if not backends:
        return "none loaded"
    said = "; then ".join(
        f"{b.label}, {'on a server' if b.remote else 'on this computer'}" for b in backends
    )
    if role is Role.BACKGROUND and backends == broker.backends(Role.CHAT):
        return f"the chat's: {said}"
    return said
