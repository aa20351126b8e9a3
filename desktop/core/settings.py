"""User settings: a declared, versioned schema stored as JSON in the config dir.

Every option is declared once here, with its type, default and description.
Secrets never live here (see ``desktop.core.secrets``).  A damaged file is
set aside (never silently overwritten) and the defaults are used; a file
written by a newer Reverie is left untouched.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from desktop.core.errors import EnvironmentProblem

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


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    version: int = Field(SETTINGS_VERSION, description="Schema version of this file.")
    models: ModelSettings = Field(default_factory=ModelSettings)


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
        version = int(raw.get("version", 1))
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
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    try:
        temporary.write_text(settings.model_dump_json(indent=2) + "\n", encoding="utf-8")
        os.replace(temporary, path)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise SettingsProblem(
            f"Could not save settings to {path}: {error.strerror}.",
            "Your previous settings file is unchanged.",
        ) from error


def _set_aside(path: Path) -> Path:
    kept = path.with_name(f"{path.name}.damaged-{int(time.time())}")
    try:
        path.replace(kept)
    except OSError:
        log.exception("could not set the damaged settings file aside")
        return path
    return kept


def _first_line(error: Exception) -> str:
    return str(error).splitlines()[0] if str(error) else type(error).__name__
