"""User settings: a declared, versioned schema stored as JSON in the config dir.

Every option is declared once here, with its type, default and description.
Secrets never live here (see ``desktop.core.secrets``).  A damaged file is
set aside (never silently overwritten) and the defaults are used; a file
written by a newer Reverie is left untouched.
"""

from __future__ import annotations

import itertools
import json
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from desktop.core.errors import EnvironmentProblem
from desktop.core.files import write_atomically

log = logging.getLogger(__name__)

SETTINGS_VERSION = 1


class ModelSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    chat_model_path: str | None = Field(
        None, description="A GGUF chat model; empty means the embedded default (SmolLM2-135M)."
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


class ChatSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

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
    memories_chars: int = Field(
        10_000, ge=200, description="Largest memories section of the prompt, in characters."
    )
    tasks_chars: int = Field(
        5_000, ge=200, description="Largest active-tasks section of the prompt, in characters."
    )
    skills_chars: int = Field(
        2_000, ge=200, description="Largest skills list in the prompt, in characters."
    )
    compaction_interval_minutes: int = Field(
        30, ge=1, description="How often idle conversations are looked at for compaction."
    )
    compaction_idle_minutes: int = Field(
        30, ge=1, description="A conversation idle this long may be compacted in the background."
    )
    compaction_min_new_messages: int = Field(
        4,
        ge=1,
        description="Background compaction waits until this many messages could be summarised.",
    )
    archive_days: int = Field(
        30, ge=1, description="Summarised (archived) messages are deleted after this many days."
    )


class MemorySettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    harvest_after_messages: int = Field(
        20, ge=1, description="Harvest a conversation once this many new user messages arrived."
    )
    harvest_idle_minutes: int = Field(
        15, ge=1, description="Or once it has been quiet this long with enough new messages..."
    )
    harvest_idle_min_messages: int = Field(
        5, ge=1, description="...namely at least this many new user messages."
    )
    harvest_check_minutes: int = Field(
        5, ge=1, description="How often conversations are looked at for harvesting."
    )
    max_message_chars: int = Field(
        4_000,
        ge=200,
        description="A longer message is cut in the middle (start and end kept) for the harvest.",
    )
    harvest_transcript_chars: int = Field(
        60_000, ge=1_000, description="Most conversation text read in one harvest, in characters."
    )
    harvest_known_memories: int = Field(
        30, ge=0, le=200, description="Related memories shown to the harvest, so it skips them."
    )


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    version: int = Field(SETTINGS_VERSION, description="Schema version of this file.")
    models: ModelSettings = Field(default_factory=ModelSettings)
    chat: ChatSettings = Field(default_factory=ChatSettings)
    memory: MemorySettings = Field(default_factory=MemorySettings)


class SettingsProblem(EnvironmentProblem):
    """The settings file could not be used; defaults are in effect."""


# Each entry upgrades a raw settings dict from version N to N + 1.
_UPGRADES: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {}


def load_settings(path: Path) -> tuple[Settings, SettingsProblem | None]:
    """The settings in *path* (defaults if absent), and any problem met on the way."""
    if not path.exists():
        return Settings(), None
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(raw, dict):
            raise ValueError("the top level is not an object")
        version = _version_of(raw)
        if version > SETTINGS_VERSION:
            return Settings(), SettingsProblem(
                f"{path} was written by a newer Reverie (settings version {version}).",
                "It was left untouched; defaults are in use until you update Reverie.",
            )
        for step in range(version, SETTINGS_VERSION):
            raw = _UPGRADES[step](raw)
        raw["version"] = SETTINGS_VERSION
        return Settings.model_validate(raw), None
    except (OSError, ValueError, ValidationError) as error:
        kept = _set_aside(path)
        return Settings(), SettingsProblem(
            f"The settings file could not be read ({_first_line(error)}).",
            f"It was kept as {kept.name}; defaults are in use.",
        )


def save_settings(settings: Settings, path: Path) -> None:
    """Write *settings* atomically: a crash never leaves a half-written file."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, settings.model_dump_json(indent=2) + "\n")
    except OSError as error:
        raise SettingsProblem(
            f"Could not save settings to {path}: {error.strerror}.",
            "Your previous settings file is unchanged.",
        ) from error


def _version_of(raw: dict[str, Any]) -> int:
    try:
        version = int(raw.get("version", 1))
    except (TypeError, OverflowError) as error:  # null, a list, Infinity: not ValueErrors
        raise ValueError(f"the version {raw.get('version')!r} is not a number") from error
    if version < 1:
        raise ValueError(f"there is no settings version {version}")
    return version


def _set_aside(path: Path) -> Path:
    stamp = int(time.time())
    kept = path.with_name(f"{path.name}.damaged-{stamp}")
    for count in itertools.count(1):  # never overwrite a file set aside earlier
        if not kept.exists():
            break
        kept = path.with_name(f"{path.name}.damaged-{stamp}-{count}")
    try:
        path.replace(kept)
    except OSError:
        log.exception("could not set the damaged settings file aside")
        return path
    return kept


def _first_line(error: Exception) -> str:
    return str(error).splitlines()[0] if str(error) else type(error).__name__
