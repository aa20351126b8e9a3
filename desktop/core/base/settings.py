"""User settings: a declared, versioned schema stored as JSON in the config dir.

Every option is declared once here, with its type, default and description.
Secrets never live here (see ``desktop.core.base.secrets``).  A damaged file is
set aside (never silently overwritten) and the defaults are used; a value
that cannot be used falls back to its default alone, named in the problem
(one spoiled by bytes that are not UTF-8 or written twice too, the file
then set aside); a file written by a newer Reverie is left untouched.
Reading the file is ``desktop.core.base.settings_file``'s part.  Every write
holds the file's lock, and a save made on settings read earlier (``since``:
the app's, while ``reverie models`` writes too) writes only what it changed
over the file as it is now, so neither drops the other's change.  Numbers are
finite (JSON has no infinity: one would be saved as null), and every count
and duration has an upper bound (``MAX_DAYS`` and friends).
"""

from __future__ import annotations

import copy
import ipaddress
import json
import logging
import re
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, cast
from urllib.parse import urlsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticSerializationError

from desktop.core.base.errors import EnvironmentProblem
from desktop.core.base.files import make_missing_folders, write_atomically
from desktop.core.base.invalid_values import dotted, key_name, reason
from desktop.core.base.paths import explain
from desktop.core.base.settings_file import MAX_SETTINGS_BYTES as MAX_SETTINGS_BYTES
from desktop.core.base.settings_file import (
    NotASettingsFile,
    RawSettings,
    SettingsBusy,
    Unreachable,
    Unreadable,
    read_raw,
    set_aside,
    settings_lock,
)
from desktop.core.base.time_zones import SYSTEM_ZONE, zone_named
from models.server_http import Dialect

log = logging.getLogger(__name__)

SETTINGS_VERSION = 2
"""A new setting with a default needs no new version (a file without it
reads the default; an older Reverie ignores it, and says so); one renamed,
moved or read otherwise does, with its step in ``_UPGRADES``."""


# Every count and duration has an upper bound, so none is a number no
# clock, timedelta or SQLite integer can take (a huge interval meant as
# "never" crashed the scheduler at start).  Each is far past any use.
MAX_DAYS = 3650
"""Ten years: the longest any setting counted in days may be."""
MAX_INTERVAL_MINUTES = 7 * 24 * 60
"""A week: the longest between two looks at conversations (or agendas)."""
MAX_IDLE_MINUTES = 30 * 24 * 60
"""Thirty days: the longest a conversation is waited on to be quiet."""
MAX_QUIET_SECONDS = 24 * 3600
"""A day: the longest background work waits after a chat turn."""
MAX_COUNT = 100_000
"""The most messages, memories or sightings any count may ask for."""
MAX_CHARS = 1_000_000
"""The most characters of a prompt's section or a harvest's text (the
longest context, 262,144 tokens, holds about this many)."""

MAX_ADDRESS_CHARS = 300
_HOST_LABEL = re.compile(r"^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$")


_JOINERS = frozenset("\u200c\u200d")
"""The zero-width non-joiner and joiner: format characters, but part of how
Persian and Indic scripts are written (Persian's word for "models" holds
one) and of emoji (a family is three faces joined); they shape the letters
around them, hiding nothing."""


def plain_text(text: str, what: str, fix: str = "") -> str:
    """*text* unless it holds a control, layout or invisible character (a
    right-to-left override can make an address read as another; a
    zero-width space hides a difference); else ``ValueError``, naming the
    *what* with each such character written as its code, then *fix*.  The
    joiners (``_JOINERS``) are written text's own."""

    def odd(c: str) -> bool:
        return unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") and c not in _JOINERS

    if first := next((c for c in text if odd(c)), None):
        # Shown as it is, it would hide or reorder what the message names.
        named = "".join(f"<U+{ord(c):04X}>" if odd(c) else c for c in text)
        raise ValueError(
            f"the {what} holds an invisible or control character (U+{ord(first):04X}): {named}{fix}"
        )
    return text


def base_url(url: str) -> str:
    """*url* as a server's base address (no trailing slash); ``ValueError`` says
    why it cannot be one."""
    url = plain_text(url.strip(), "address")
    if len(url) > MAX_ADDRESS_CHARS:
        raise ValueError(
            f"an address this long (over {MAX_ADDRESS_CHARS} characters) is not a base URL"
        )
    if any(c.isspace() for c in url):
        raise ValueError("an address has no spaces")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("an address starts with http:// or https:// and names a host")
    try:
        if parts.port == 0:  # urlsplit takes it; nothing listens there
            raise ValueError("port 0")
    except ValueError as error:
        raise ValueError("the port is a number from 1 to 65535") from error
    if not _is_host(parts.hostname):
        raise ValueError(f"{parts.hostname!r} is not a host name or an IP address")
    if parts.username or parts.password:
        # settings.json is a plain file: a key belongs in the keyring.
        raise ValueError("the address may not hold a user name or password; give an API key")
    if "?" in url or "#" in url:  # an empty one too: the requests' paths would follow it
        raise ValueError("the address is a base URL, without ?query or #fragment")
    return url.rstrip("/")


def _is_host(host: str) -> bool:
    """A DNS name (letters, digits and hyphens; international names in
    their xn-- form) or an IP address."""
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        pass
    labels = host.rstrip(".").split(".")
    return bool(labels) and all(_HOST_LABEL.match(label) for label in labels)


_STRICT = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False, strict=True)
"""Every settings group: a value is read as the type declared, never
converted (true is no number, "0.7" no number, "yes" no switch), except
a whole number where a number with a fraction is declared.  A list field
says ``strict=False`` (JSON has lists, not tuples); its items stay strict."""


class Backend(BaseModel):
    """One way to run a role's model: the embedded default, a GGUF file on
    this machine, or an OpenAI-compatible server of the user's own.  A
    server's API key is never here: it lives in the system keyring."""

    model_config = _STRICT

    kind: Literal["embedded", "local", "server"] = Field(
        "embedded",
        description="embedded: the model that ships with Reverie; local: a GGUF file on this "
        "machine; server: an OpenAI-compatible server of your own.",
    )
    model: str = Field(
        "",
        description="local: a catalog model's id or a .gguf file's path; server: the name the "
        "server knows the model by.",
    )
    url: str = Field(
        "", description="server: its OpenAI-compatible base URL, e.g. http://127.0.0.1:8080/v1."
    )
    dialect: Dialect = Field(
        "auto",
        description="server: how it takes structured output (auto: asked of the server).",
    )

    @field_validator("url")
    @classmethod
    def _plain_http_url(cls, url: str) -> str:
        return base_url(url) if url.strip() else ""

    @field_validator("model")
    @classmethod
    def _plain_model(cls, model: str, info: ValidationInfo) -> str:
        if info.data.get("kind") == "local":
            fix = "; rename the file without it, then add it again"
            return plain_text(model.strip(), "model file's path", fix)
        return plain_text(model.strip(), "model name")

    @model_validator(mode="after")
    def _complete(self) -> Backend:
        if self.kind == "embedded" and (self.model or self.url):
            raise ValueError("the embedded model takes no model name or address")
        if self.kind == "local" and not self.model.strip():
            raise ValueError("a local backend names a catalog model or a .gguf file")
        if self.kind == "local" and self.url:
            raise ValueError("a local backend has no server address")
        if self.kind == "server" and not (self.url and self.model.strip()):
            raise ValueError("a server backend needs its address and a model name")
        return self


class ModelSettings(BaseModel):
    model_config = _STRICT

    chat: tuple[Backend, ...] = Field(
        (Backend(),),
        strict=False,
        min_length=1,
        max_length=4,
        description="The chat's model: the first backend, then the others in order when one "
        "cannot answer (a server down).",
    )
    background: tuple[Backend, ...] = Field(
        (),
        strict=False,
        max_length=4,
        description="The model of background work (remembering, dreaming, routines, agenda "
        "reviews, summaries); none: the chat's.",
    )
    embeddings: Backend = Field(
        default_factory=Backend,
        description="The embedding model that finds memories by meaning (one backend: vectors "
        "of two models are never mixed).",
    )
    context_length: int = Field(
        4096, ge=512, le=262144, description="Tokens of context the chat model is given (n_ctx)."
    )
    max_reply_tokens: int = Field(512, ge=16, le=32768, description="Longest reply, in tokens.")
    temperature: float = Field(0.7, ge=0.0, le=2.0, description="Sampling temperature.")
    threads: int = Field(
        0,
        ge=0,
        le=256,
        description="CPU threads for the models; 0 means every core. Lower it if other heavy "
        "work runs beside Reverie: llama.cpp slows down sharply when it competes for cores.",
    )
    added: tuple[str, ...] = Field(
        (),
        strict=False,
        description="GGUF files you added to the Models page (they stay where they are).",
    )
    hub_endpoint: str = Field(
        "https://huggingface.co",
        description="Where catalog models are downloaded from (a Hugging Face Hub or a mirror).",
    )
    suggest_model: bool = Field(
        True,
        description="Suggest, once, a model that fits this machine while only the small "
        "embedded one is in use.",
    )

    _endpoint = field_validator("hub_endpoint")(lambda url: base_url(url))


Appearance = Literal["system", "light", "dark"]
"""Light or dark windows, or whichever the system's colour scheme is."""


class ChatSettings(BaseModel):
    model_config = _STRICT

    appearance: Appearance = Field(
        "system",
        description="Light or dark windows; Follow the system switches between them as your "
        "system's colour scheme does.",
        # How a list of choices names each (settings_form): plain words, not the stored value.
        json_schema_extra={
            "choices": {"system": "Follow the system", "light": "Light", "dark": "Dark"}
        },
    )
    language: str = Field(
        "en",
        pattern=r"^[A-Za-z_-]{2,16}$",
        description="Language of the greeting that opens a conversation (data/prompts/"
        "SEED_<language>.txt; English when there is no such file).",
    )
    keep_recent_messages: int = Field(
        10, ge=2, le=200, description="Messages compaction always keeps word for word."
    )
    tools_enabled: bool = Field(
        True,
        description="Let the model use tools: remember a fact, search its memories (off the "
        "record it never remembers).",
    )
    memories_top_k: int = Field(
        10, ge=1, le=200, description="Memories retrieved for each message and given to the model."
    )
    excerpts_top_k: int = Field(
        5,
        ge=0,
        le=50,
        description="Excerpts of past conversations retrieved for each message and given to"
        " the model (memory.recall_past_conversations turns them off).",
    )
    memories_chars: int = Field(
        10_000,
        ge=200,
        le=MAX_CHARS,
        description="Largest memories section of the prompt, in characters.",
    )
    tasks_chars: int = Field(
        5_000,
        ge=200,
        le=MAX_CHARS,
        description="Largest active-tasks section of the prompt, in characters.",
    )
    skills_chars: int = Field(
        2_000, ge=200, le=MAX_CHARS, description="Largest skills list in the prompt, in characters."
    )
    compaction_interval_minutes: int = Field(
        30,
        ge=1,
        le=MAX_INTERVAL_MINUTES,
        description="How often idle conversations are looked at for compaction.",
    )
    compaction_idle_minutes: int = Field(
        30,
        ge=1,
        le=MAX_IDLE_MINUTES,
        description="A conversation idle this long may be compacted in the background.",
    )
    compaction_min_new_messages: int = Field(
        4,
        ge=1,
        le=MAX_COUNT,
        description="Background compaction waits until this many messages could be summarised.",
    )
    archive_days: int = Field(
        30,
        ge=1,
        le=MAX_DAYS,
        description="Summarised (archived) messages are deleted after this many days.",
    )


class MemorySettings(BaseModel):
    model_config = _STRICT

    harvest_after_messages: int = Field(
        20,
        ge=1,
        le=MAX_COUNT,
        description="Harvest a conversation once this many new user messages arrived.",
    )
    harvest_idle_minutes: int = Field(
        15,
        ge=1,
        le=MAX_IDLE_MINUTES,
        description="Or once it has been quiet this long with enough new messages...",
    )
    harvest_idle_min_messages: int = Field(
        5, ge=1, le=MAX_COUNT, description="...namely at least this many new user messages."
    )
    harvest_check_minutes: int = Field(
        5,
        ge=1,
        le=MAX_INTERVAL_MINUTES,
        description="How often conversations are looked at for harvesting.",
    )
    max_message_chars: int = Field(
        4_000,
        ge=200,
        le=MAX_CHARS,
        description="A longer message is cut in the middle (start and end kept) for the harvest.",
    )
    harvest_transcript_chars: int = Field(
        60_000,
        ge=1_000,
        le=MAX_CHARS,
        description="Most conversation text read in one harvest, in characters.",
    )
    harvest_known_memories: int = Field(
        30, ge=0, le=200, description="Related memories shown to the harvest, so it skips them."
    )
    recall_past_conversations: bool = Field(
        True,
        description="Recall excerpts of past conversations into replies, beside the memories"
        " (never of off-the-record or deleted conversations).",
    )


class DreamSettings(BaseModel):
    model_config = _STRICT

    enabled: bool = Field(True, description="Dream (consolidate memories) in the background.")
    nightly_hour: int = Field(1, ge=0, le=23, description="Hour of the nightly dream (local time).")
    nightly_minute: int = Field(0, ge=0, le=59, description="Minute of the nightly dream.")
    every_hours: int = Field(
        0, ge=0, le=168, description="Also dream every this many hours (0: only nightly)."
    )
    early_after_new_memories: int = Field(
        50,
        ge=1,
        le=MAX_COUNT,
        description="Dream early once this many memories were added since the last dream.",
    )
    quiet_seconds: int = Field(
        30,
        ge=0,
        le=MAX_QUIET_SECONDS,
        description="After a chat turn, background work (dreams, harvests, summaries) waits "
        "this long before going on.",
    )
    grace_days: float = Field(
        30,
        ge=0,
        le=MAX_DAYS,
        description="Days a memory keeps its importance after it was last seen.",
    )
    half_life_days: float = Field(
        45,
        gt=0,
        le=MAX_DAYS,
        description="After the grace period, importance halves every this many days.",
    )
    importance_floor: float = Field(
        0.10, ge=0.0, le=1.0, description="Importance never decays below this."
    )
    duplicate_similarity: float = Field(
        0.85, gt=0.0, le=1.0, description="Cosine similarity from which memories may be duplicates."
    )
    contradiction_band: tuple[float, float] = Field(
        (0.45, 0.85),
        strict=False,
        description="Similarity band in which two memories may contradict each other.",
    )
    stale_days: int = Field(
        90, ge=1, le=MAX_DAYS, description="Memories unseen this long may be archived..."
    )
    stale_max_reinforcement: int = Field(
        2,
        ge=1,
        le=MAX_COUNT,
        description="...if seen at most this many times (and not pinned, not told "
        "explicitly, not important).",
    )
    important: float = Field(
        0.8, ge=0.0, le=1.0, description="Memories this important are never archived as stale."
    )
    risky_reinforcement: int = Field(
        5,
        ge=2,
        le=MAX_COUNT,
        description="Changes to memories seen this often (or pinned, or told explicitly) wait "
        "for your approval.",
    )
    max_retired_share: float = Field(
        0.25,
        gt=0.0,
        le=1.0,
        description="A pass that would supersede or archive more than this share of the active "
        "memories changes nothing (a circuit breaker)...",
    )
    max_retired_floor: int = Field(
        10,
        ge=0,
        le=MAX_COUNT,
        description="...unless it retires no more than this many (small stores).",
    )
    snapshots_kept: int = Field(
        3, ge=1, le=50, description="Database snapshots taken before dreams that are kept."
    )
    preference_window_days: int = Field(
        30,
        ge=1,
        le=MAX_DAYS,
        description="Your messages of this many days are read for preferences.",
    )
    task_purge_days: int = Field(
        30, ge=1, le=MAX_DAYS, description="Completed tasks older than this are purged by a dream."
    )
    deleted_kept_days: int = Field(
        30,
        ge=0,
        le=MAX_DAYS,
        description="Deleted memories and conversations can be restored for this many days; "
        "then they are erased for good, from the database and its snapshots, after a dream "
        "or at start (0: erased then, with no time to restore).",
    )
    working_set_size: int = Field(
        50, ge=1, le=1000, description="Memories written to MEMORIES.md, the most used first."
    )

    @field_validator("contradiction_band")
    @classmethod
    def _band_in_order(cls, band: tuple[float, float]) -> tuple[float, float]:
        low, high = band
        if not 0.0 < low < high <= 1.0:
            raise ValueError("the band is two similarities, low then high, between 0 and 1")
        return band


class TaskSettings(BaseModel):
    model_config = _STRICT

    time_zone: str = Field(
        SYSTEM_ZONE,
        description="Time zone task schedules are read in, an IANA name such as Europe/Berlin; "
        "empty means the system's (and follows it when it changes).",
    )
    agenda_review_minutes: int = Field(
        60,
        ge=0,
        le=MAX_INTERVAL_MINUTES,
        description="How often Reverie looks over each conversation's active tasks (completing, "
        "adding, rescheduling); 0: never.",
    )
    agenda_messages: int = Field(
        12, ge=0, le=200, description="Latest messages of a conversation its agenda review reads."
    )
    routine_memories: int = Field(
        5, ge=0, le=50, description="Memories retrieved for a routine and given to the model."
    )

    @field_validator("time_zone")
    @classmethod
    def _known_zone(cls, name: str) -> str:
        name = name.strip()
        if name != SYSTEM_ZONE:
            zone_named(name)  # UnknownTimeZone (a ValueError) says what is wrong
        return name


WorkerMode = Literal["minimal", "full", "base_only", "none"]
MAX_WORKER_SECONDS = 24 * 3600
"""A day: the longest running time a background worker may be given."""


class WorkerProfile(BaseModel):
    """A named preset of a background worker: its mode and its tools, so the
    model asks for a profile instead of listing tools."""

    model_config = _STRICT

    mode: WorkerMode = Field("minimal", description="The worker's system prompt.")
    tools: tuple[str, ...] = Field(
        (), strict=False, max_length=32, description="The tools the worker may call."
    )


DEFAULT_PROFILES = {
    "researcher": WorkerProfile(mode="minimal", tools=("search_memory", "read_skill")),
    "scribe": WorkerProfile(mode="minimal", tools=("append_memory", "task")),
}


class WorkerSettings(BaseModel):
    model_config = _STRICT

    timeout_seconds: int = Field(
        300,
        ge=10,
        le=MAX_WORKER_SECONDS,
        description="A background worker's own running time before it is continued afresh.",
    )
    max_continuations: int = Field(
        3, ge=0, le=20, description="How often a timed-out worker is continued before it fails."
    )
    max_tool_calls: int = Field(
        8, ge=0, le=100, description="Tool calls of one worker before it must answer in words."
    )
    quiet_seconds: int = Field(
        30,
        ge=0,
        le=MAX_QUIET_SECONDS,
        description="How long after a chat turn background workers wait before going on.",
    )
    profiles: dict[str, WorkerProfile] = Field(
        default_factory=lambda: dict(DEFAULT_PROFILES),
        strict=False,
        max_length=32,
        description="Named presets of a worker's mode and tools the model may ask for.",
    )


class DesktopSettings(BaseModel):
    model_config = _STRICT

    start_at_login: bool = Field(
        False,
        description="Start Reverie, hidden in the tray, when you log in to this computer. "
        "What this shows is read from your system's startup entries: turned off there, it is "
        "off here too.",
    )


class Settings(BaseModel):
    model_config = _STRICT

    version: int = Field(SETTINGS_VERSION, description="Schema version of this file.")
    models: ModelSettings = Field(default_factory=ModelSettings)
    chat: ChatSettings = Field(default_factory=ChatSettings)
    memory: MemorySettings = Field(default_factory=MemorySettings)
    tasks: TaskSettings = Field(default_factory=TaskSettings)
    dream: DreamSettings = Field(default_factory=DreamSettings)
    workers: WorkerSettings = Field(default_factory=WorkerSettings)
    desktop: DesktopSettings = Field(default_factory=DesktopSettings)


class SettingsProblem(EnvironmentProblem):
    """The settings file could not be used as it is: some or all defaults are in effect."""


MAX_NOTES = 10
"""A problem names this many unusable settings at most (then counts the rest)."""


def _roles_from_one_path(raw: dict[str, Any]) -> dict[str, Any]:
    """Version 1 had one chat model path for everything; it becomes the chat role's backend."""
    models = raw.get("models")
    if isinstance(models, dict) and "chat_model_path" in models:
        path = models.pop("chat_model_path")
        if path:
            models["chat"] = [{"kind": "local", "model": path}]
    return raw


# Each entry upgrades a raw settings dict from version N to N + 1.
_UPGRADES: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {1: _roles_from_one_path}


def load_settings(path: Path) -> tuple[Settings, SettingsProblem | None]:
    """The settings in *path* (defaults if absent), and any problem met on the way.

    A file that cannot be read as settings at all is set aside and the
    defaults are used; a value that cannot be used falls back to its default
    alone (the file is left as it is), and the problem names each such key.
    A value spoiled by bytes that are not UTF-8, or a key written twice with
    two values, falls back alone too (a group written twice is read as one),
    and the file is set aside: a save could not write it back as written.
    """
    try:
        found = read_raw(path)
        if found is None:
            return Settings(), None
        raw = found.values
        version = _version_of(raw)
    except NotASettingsFile as error:
        return Settings(), _not_a_file(error)
    except Unreachable as error:
        return Settings(), SettingsProblem(
            f"The settings file {path} cannot be read: {error}.",
            "Nothing was changed; defaults are in use.",
        )
    except Unreadable as error:
        return Settings(), _damaged(path, error)
    if version > SETTINGS_VERSION:
        return Settings(), SettingsProblem(
            f"{path} was written by a newer Reverie (settings version {version}).",
            "It was left untouched; defaults are in use until you update Reverie.",
        )
    settings, salvaged = _salvage(_upgraded(raw))
    notes = [*found.notes, *salvaged]
    if not notes:
        return settings, None
    said = " ".join(f"{note}." for note in notes[:MAX_NOTES])
    if len(notes) > MAX_NOTES:
        said += f" And {len(notes) - MAX_NOTES} more."
    hint = "The other settings are in use. Correct these in Settings or in the file."
    if found.keep_aside:  # the file cannot be saved back as it is: keep it as it was
        hint = f"The other settings are in use. {_kept_aside(path)}"
    return settings, SettingsProblem(f"Some settings in {path} cannot be used: {said}", hint)


def _not_a_file(error: NotASettingsFile) -> SettingsProblem:
    return SettingsProblem(
        f"{error}; it was left as it is.",
        "Defaults are in use, and settings cannot be saved. Move or rename it (it may hold "
        "files of yours), then start Reverie again.",
    )


def _kept_aside(path: Path) -> str:
    """Set the file a save could not write back as it was (bytes that are
    not UTF-8, a key written twice) aside, so it is never saved over (a new
    one holds the usable settings once they are saved); where it went, in a
    sentence."""
    try:
        kept = set_aside(path)
    except OSError as failure:
        log.warning("could not set the damaged settings file aside: %s", failure.strerror)
        return f"It could not be set aside ({failure.strerror}) and was left as it is."
    return f"The file as it was is kept as {kept.name}."


def _damaged(path: Path, error: Unreadable) -> SettingsProblem:
    """The problem of a file that is not settings, once it is set aside."""
    said = f"The settings file could not be read ({error})."
    try:
        kept = set_aside(path)
    except OSError as failure:
        log.warning("could not set the damaged settings file aside: %s", failure.strerror)
        return SettingsProblem(
            said,
            f"It could not be set aside ({failure.strerror}) and was left as it is; "
            "defaults are in use.",
        )
    return SettingsProblem(said, f"It was kept as {kept.name}; defaults are in use.")


def is_absent(path: Path) -> bool:
    """Whether nothing is at *path*, so a first settings file may be written
    there; a place that cannot be looked at is not absent (what is there
    may be the user's), nor is a link to nothing."""
    try:
        path.lstat()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return False


def save_settings(settings: Settings, path: Path, *, since: Settings | None = None) -> Settings:
    """Write *settings* atomically, holding the file's lock (``settings_lock``):
    a crash never leaves a half-written file, a file written by a newer
    Reverie is never overwritten, and anything but a regular file at *path*
    (a folder) is left alone.  With *since* (the settings *settings* were
    made from), only what differs from it is written, over the file as it
    is now: what another wrote meanwhile stays (``_merged``).  What was
    written; ``SettingsProblem`` if nothing was."""
    try:
        make_missing_folders(path.parent)  # 0700; one there may be ~/.config, left as it is
        with settings_lock(path):
            found = _refuse_unusable(path)
            if since is not None:
                settings = _merged(_current(path, since, found), since, settings)
            _write(settings, path, _unknown(found))
    except SettingsBusy as error:
        raise SettingsProblem(
            f"Could not save settings to {path}: another Reverie (the app or a "
            "`reverie models` command) is still writing it.",
            "Your previous settings file is unchanged; try again in a moment.",
        ) from error
    except OSError as error:
        raise SettingsProblem(
            f"Could not save settings to {path}: {explain(error)}.", _unchanged(path)
        ) from error
    return settings


def _unchanged(path: Path) -> str:
    """What a save that wrote nothing left at *path*, in a sentence: a first
    save (a first start on a full disk) has no previous file to speak of."""
    if is_absent(path):
        return "No settings file was written."
    return "Your previous settings file is unchanged."


def _write(settings: Settings, path: Path, unknown: dict[str, Any]) -> None:
    """Write *settings*, and the *unknown* entries of the file as it was
    (``_unknown``) back beside them."""
    try:
        text = settings.model_dump_json(indent=2) + "\n"
    except PydanticSerializationError as error:
        # A lone surrogate (a path given in bytes that are not UTF-8) has
        # no UTF-8 form: nothing is written rather than a traceback.
        raise SettingsProblem(
            f"Could not save settings to {path}: a value holds characters that are not UTF-8 text.",
            _unchanged(path),
        ) from error
    if unknown:
        written = json.loads(text)
        for name, value in unknown.items():
            group = written.get(name)
            written[name] = {**group, **value} if isinstance(group, dict) else value
        text = json.dumps(written, indent=2, ensure_ascii=False) + "\n"
    write_atomically(path, text)


def _unknown(found: RawSettings | None) -> dict[str, Any]:
    """The entries of a file read (*found*) that are no setting this Reverie
    knows, as written: a newer Reverie's setting (one with a default needs
    no new version), kept by every save, so going back to an older Reverie
    and changing anything there never loses it.  Whole groups, and keys
    within the groups this Reverie knows."""
    if found is None:
        return {}
    unknown: dict[str, Any] = {}
    for name, value in _upgraded(copy.deepcopy(found.values)).items():
        field = Settings.model_fields.get(name)
        if field is None:
            unknown[name] = value
        elif isinstance(value, dict):
            known = cast("type[BaseModel]", field.annotation).model_fields
            if extra := {key: item for key, item in value.items() if key not in known}:
                unknown[name] = extra
    return unknown


def _current(path: Path, since: Settings, found: RawSettings | None) -> Settings:
    """The settings in the file now (*found*: read, the lock held), for a
    save's changes to go over.  No file, or a damaged one (set aside, as at
    start), holds nothing another wrote to keep: *since* then stands for
    it, so the save is written whole.  A file holding what cannot be used
    (a value out of range, a newer Reverie's setting) that reads as *since*
    did is the one read then, its problem said at start: no change to log."""
    settings, problem = load_settings(path)
    if problem is not None and settings != since:  # not its text: it may quote values
        log.warning("%s changed since it was read and not all of it could be used", path)
    return settings if found is not None else since


def _merged(current: Settings, since: Settings, settings: Settings) -> Settings:
    """*current* with each setting *settings* changed from *since*; the
    files added to (or removed from) ``models.added`` one by one, so a file
    added by another meanwhile stays."""
    groups: dict[str, BaseModel] = {}
    for name in Settings.model_fields:
        was, now = getattr(since, name), getattr(settings, name)
        if name == "version" or was == now:
            continue
        there = getattr(current, name)
        changes = {
            field: getattr(now, field)
            for field in type(now).model_fields
            if getattr(was, field) != getattr(now, field)
        }
        if name == "models" and "added" in changes:
            changes["added"] = _added(there.added, was.added, now.added)
        # Validated one by one already; no group has a rule across its keys.
        groups[name] = there.model_copy(update=changes)
    return current.model_copy(update=groups)


def _added(there: tuple[str, ...], was: tuple[str, ...], now: tuple[str, ...]) -> tuple[str, ...]:
    """The files *there* (in the file now), less those removed from *was*
    to *now*, and those added, each once."""
    kept = tuple(file for file in there if file in now or file not in was)
    return kept + tuple(dict.fromkeys(file for file in now if file not in kept))


def _refuse_unusable(path: Path) -> RawSettings | None:
    """``SettingsProblem`` if the file at *path* is not to be written over:
    written by a newer Reverie, not a file (a folder), or out of reach.  A
    damaged file may be: nothing a newer Reverie needs is lost.  The file
    read, if one that can be read as settings is there."""
    try:
        found = read_raw(path)
        version = 0 if found is None else _version_of(found.values)
    except NotASettingsFile as error:
        raise SettingsProblem(
            f"Could not save settings to {path}: {error}; it was left as it is.",
            "Move or rename it (it may hold files of yours), then save again.",
        ) from error
    except Unreachable as error:  # what is there is unknown: never written over
        raise SettingsProblem(
            f"Could not save settings to {path}: it cannot be read ({error}).",
            "Your previous settings file is unchanged.",
        ) from error
    except Unreadable:
        return None
    if version > SETTINGS_VERSION:
        raise SettingsProblem(
            f"{path} was written by a newer Reverie (settings version {version}).",
            "It was not overwritten; update Reverie to change these settings.",
        )
    return found


def _upgraded(raw: dict[str, Any]) -> dict[str, Any]:
    """*raw* (of a version no newer than this Reverie's) as this version reads it."""
    for step in range(_version_of(raw), SETTINGS_VERSION):
        raw = _UPGRADES[step](raw)
    return raw


def _version_of(raw: dict[str, Any]) -> int:
    version = raw.get("version", 1)
    # Read strictly like every value: true, 2.0 and "2" are no version number.
    if not isinstance(version, int) or isinstance(version, bool):
        raise Unreadable(f"the version {version!r} is not a whole number")
    if version < 1:
        raise Unreadable(f"there is no settings version {version}")
    return version


def _salvage(raw: dict[str, Any]) -> tuple[Settings, list[str]]:
    """The settings in *raw*, each unusable value replaced by its default,
    and a note on each."""
    notes: list[str] = []
    groups: dict[str, BaseModel] = {}
    for name, value in raw.items():
        field = Settings.model_fields.get(name)
        if name == "version":
            continue
        if field is None:
            notes.append(f"{key_name(name)}: not a setting Reverie knows; ignored")
        elif not isinstance(value, dict):
            notes.append(f"{name}: must be a group of settings (an object); kept the defaults")
        else:
            groups[name] = _salvage_group(
                name, cast("type[BaseModel]", field.annotation), value, notes
            )
    return Settings.model_validate({**groups, "version": SETTINGS_VERSION}), notes


def _salvage_group(
    name: str, model: type[BaseModel], values: dict[str, Any], notes: list[str]
) -> BaseModel:
    """*model* from *values*, leaving out each key that cannot be used (a note on it)."""
    values = dict(values)
    while True:  # each round drops at least one key, so this ends
        try:
            return model.model_validate(values)
        except ValidationError as error:
            details = error.errors()
        if any(not detail["loc"] or detail["loc"][0] not in values for detail in details):
            notes.append(f"{name}: {reason(details[0])}; kept the defaults")  # a group-wide rule
            return model()
        # "models.chat[0].url" says more than the "models.chat: must hold at
        # least 1" that follows from it: a key's deeper errors are enough.
        deeper = {detail["loc"][0] for detail in details if len(detail["loc"]) > 1}
        for detail in details:
            loc = detail["loc"]
            if len(loc) == 1 and loc[0] in deeper:
                continue
            key = f"{name}.{loc[0]}"
            fallback = "ignored" if detail["type"] == "extra_forbidden" else "kept the default"
            where = "" if len(loc) == 1 else f" of {key}"
            notes.append(f"{dotted(name, loc)}: {reason(detail)}; {fallback}{where}")
        for detail in details:
            values.pop(str(detail["loc"][0]), None)
