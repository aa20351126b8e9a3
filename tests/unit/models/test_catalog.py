"""Tests of the recommended-models catalog: the shipped file, its checks, its URLs."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from desktop.core.base.paths import data_dir
from models.catalog import (
    CATALOG_FILE,
    Catalog,
    CatalogEntry,
    CatalogInvalid,
    UnknownModel,
    load_catalog,
    shipped_catalog_path,
)
from models.errors import ModelError

HUB = "https://huggingface.co"
COMMIT = re.compile(r"[0-9a-f]{40}")
SHA256 = re.compile(r"[0-9a-f]{64}")


def _entry(**changes: Any) -> dict[str, Any]:
    """A valid chat entry as it appears in the JSON file, with *changes* applied."""
    entry: dict[str, Any] = {
        "id": "tiny-chat",
        "name": "Tiny Chat",
        "kind": "chat",
        "repo": "someone/Tiny-GGUF",
        "file": "tiny-q4_k_m.gguf",
        "revision": "main",
        "size": 1234,
        "sha256": None,
        "license": "MIT",
        "license_url": "https://example.org/LICENSE",
        "parameters": None,
        "quantization": "Q4_K_M",
        "context_length": 2048,
        "good_for": "Tests.",
        "shape": None,
        "dimension": None,
        "query_prefix": None,
        "document_prefix": None,
        "sources": ["a test"],
    }
    entry.update(changes)
    return entry


def _embedder(**changes: Any) -> dict[str, Any]:
    # A file of its own: the models folder holds each catalog file by its name.
    embedder = {
        "id": "tiny-embed",
        "kind": "embedding",
        "dimension": 384,
        "file": "tiny-embed.gguf",
    }
    return _entry(**{**embedder, **changes})


def _write(tmp_path: Path, document: object) -> Path:
    path = tmp_path / CATALOG_FILE
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def _catalog(*entries: dict[str, Any]) -> Catalog:
    # Through JSON, as the loader reads it (strict models take JSON arrays as tuples).
    return Catalog.model_validate_json(json.dumps({"version": 1, "models": list(entries)}))


def _parsed_entry(**changes: Any) -> CatalogEntry:
    return CatalogEntry.model_validate_json(json.dumps(_entry(**changes)))


@pytest.fixture(scope="module")
def shipped() -> Catalog:
    return load_catalog()


# -- the shipped catalog ---------------------------------------------------------


def test_the_shipped_catalog_is_found_where_the_app_finds_its_data() -> None:
    assert shipped_catalog_path() == data_dir() / CATALOG_FILE
    assert shipped_catalog_path().is_file()


def test_an_installed_wheel_ships_the_catalog_inside_the_desktop_package(tmp_path: Path) -> None:
    site_packages = tmp_path / "site-packages"
    installed = site_packages / "desktop" / "_shipped" / "data" / CATALOG_FILE
    installed.parent.mkdir(parents=True)
    installed.write_bytes(shipped_catalog_path().read_bytes())

    assert shipped_catalog_path(packages_root=site_packages) == installed
    assert load_catalog(installed).entries == load_catalog().entries


def test_the_shipped_catalog_offers_chat_and_embedding_models(shipped: Catalog) -> None:
    assert 4 <= len(shipped.chat_models()) <= 7
    assert 2 <= len(shipped.embedding_models()) <= 3
    assert len(shipped.chat_models()) + len(shipped.embedding_models()) == len(shipped.entries)


def test_shipped_ids_are_unique(shipped: Catalog) -> None:
    ids = [entry.id for entry in shipped.entries]

    assert len(ids) == len(set(ids))


def test_every_shipped_entry_is_sane(shipped: Catalog) -> None:
    for entry in shipped.entries:
        assert entry.size > 0, entry.id
        assert entry.sha256 is None or SHA256.fullmatch(entry.sha256), entry.id
        assert entry.file.endswith(".gguf"), entry.id
        assert entry.revision == "main" or COMMIT.fullmatch(entry.revision), entry.id
        assert entry.license_url.startswith("https://"), entry.id
        assert entry.sources, entry.id


def test_shipped_chat_models_are_q4_k_m_with_a_shape(shipped: Catalog) -> None:
    for entry in shipped.chat_models():
        assert entry.quantization == "Q4_K_M", entry.id
        assert entry.shape is not None, entry.id
        assert entry.dimension is None, entry.id


def test_shipped_embedding_models_have_a_dimension(shipped: Catalog) -> None:
    for entry in shipped.embedding_models():
        assert entry.dimension is not None and entry.dimension > 0, entry.id


def test_a_shipped_entry_builds_the_hub_url_of_its_pinned_file(shipped: Catalog) -> None:
    entry = shipped.get("qwen2.5-1.5b-instruct")

    assert entry.download_url(HUB) == (
        "https://huggingface.co/Qwen/Qwen2.5-1.5B-Instruct-GGUF/resolve/"
        "91cad51170dc346986eccefdc2dd33a9da36ead9/qwen2.5-1.5b-instruct-q4_k_m.gguf"
    )


def test_the_kv_cache_per_token_follows_the_shape(shipped: Catalog) -> None:
    shape = shipped.get("qwen2.5-1.5b-instruct").shape
    assert shape is not None

    # 28 layers x 2 KV heads x (128 + 128) values x 2 bytes (f16)
    assert shape.kv_bytes_per_token() == 28_672
    assert shape.kv_bytes_per_token(bytes_per_value=1) == 14_336


# -- looking models up -------------------------------------------------------------


def test_get_finds_an_entry_by_id() -> None:
    catalog = _catalog(_entry(), _embedder())

    assert catalog.get("tiny-embed").kind == "embedding"
    assert [entry.id for entry in catalog.chat_models()] == ["tiny-chat"]
    assert [entry.id for entry in catalog.embedding_models()] == ["tiny-embed"]


def test_get_of_an_unknown_id_names_the_known_ones() -> None:
    catalog = _catalog(_entry(), _embedder())

    with pytest.raises(UnknownModel, match=r"'gpt-5'.*tiny-chat, tiny-embed") as caught:
        catalog.get("gpt-5")

    assert isinstance(caught.value, ModelError)


# -- URLs ---------------------------------------------------------------------------


def _url(endpoint: str = HUB, **changes: Any) -> str:
    return _parsed_entry(**changes).download_url(endpoint)


def test_the_endpoint_may_end_with_a_slash() -> None:
    assert _url(HUB + "/") == _url(HUB) == f"{HUB}/someone/Tiny-GGUF/resolve/main/tiny-q4_k_m.gguf"


def test_a_file_in_a_sub_folder_keeps_its_folder() -> None:
    url = _url("https://mirror.example/hf", file="Q4_K_M/tiny-Q4_K_M-00001-of-00002.gguf")

    assert (
        url
        == "https://mirror.example/hf/someone/Tiny-GGUF/resolve/main/Q4_K_M/tiny-Q4_K_M-00001-of-00002.gguf"
    )


def test_odd_characters_are_quoted_in_each_path_part() -> None:
    url = _url(file="my models/modèle #1?%.gguf", revision="refs/pr/7")

    assert url == (
        f"{HUB}/someone/Tiny-GGUF/resolve/refs%2Fpr%2F7/my%20models/mod%C3%A8le%20%231%3F%25.gguf"
    )


# -- refusing damaged catalogs --------------------------------------------------------


def test_an_unknown_field_is_refused_with_its_name(tmp_path: Path) -> None:
    path = _write(tmp_path, {"version": 1, "models": [_entry(colour="blue")]})

    with pytest.raises(
        CatalogInvalid, match=r"models\.0\.colour: Extra inputs are not permitted"
    ) as caught:
        load_catalog(path)

    assert str(path) in str(caught.value)
    assert isinstance(caught.value, ModelError)


def test_a_truncated_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / CATALOG_FILE
    path.write_text(json.dumps({"version": 1, "models": [_entry()]})[:-20], encoding="utf-8")

    with pytest.raises(CatalogInvalid, match=r"is damaged: .*Invalid JSON"):
        load_catalog(path)


def test_a_missing_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "absent.json"

    with pytest.raises(CatalogInvalid, match=r"Cannot read the model catalog .*absent\.json"):
        load_catalog(path)


@pytest.mark.parametrize(
    ("entries", "problem"),
    [
        ([_entry(), _entry()], r"model ids must be unique; repeated: tiny-chat"),
        ([_entry(size=0)], r"models\.0\.size: Input should be greater than 0"),
        ([_entry(size="1234")], r"models\.0\.size: Input should be a valid integer"),
        ([_entry(sha256="ABC")], r"models\.0\.sha256: String should match pattern"),
        ([_entry(sha256="A" * 64)], r"models\.0\.sha256: String should match pattern"),
        ([_entry(file="tiny.bin")], r"models\.0\.file: String should match pattern"),
        ([_entry(file="../escape.gguf")], r"must be a plain path inside the repository"),
        ([_entry(kind="vision")], r"models\.0\.kind: Input should be 'chat' or 'embedding'"),
        ([_entry(repo="no-owner")], r"models\.0\.repo: String should match pattern"),
        ([_entry(license_url="http://example.org")], r"models\.0\.license_url"),
        ([_entry(sources=[])], r"models\.0\.sources: Tuple should have at least 1 item"),
        ([_entry(dimension=384)], r"a chat model has no dimension or prefixes"),
        ([_embedder(dimension=None)], r"an embedding model needs its dimension"),
        ([_entry(shape={"layers": 2})], r"models\.0\.shape\.kv_heads: Field required"),
        ([], r"models: Tuple should have at least 1 item"),
    ],
)
def test_a_bad_entry_is_refused_with_a_clear_message(
    tmp_path: Path, entries: list[dict[str, Any]], problem: str
) -> None:
    path = _write(tmp_path, {"version": 1, "models": entries})

    with pytest.raises(CatalogInvalid, match=problem):
        load_catalog(path)


def test_an_unknown_catalog_version_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, {"version": 2, "models": [_entry()]})

    with pytest.raises(CatalogInvalid, match=r"version: Input should be 1"):
        load_catalog(path)


def test_entries_cannot_be_changed() -> None:
    entry = _parsed_entry()

    with pytest.raises(ValueError, match="frozen"):
        entry.size = 1  # type: ignore[misc]  # the point: assignment must fail
