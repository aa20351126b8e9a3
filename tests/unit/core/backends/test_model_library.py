"""Tests of the model library: what models there are, where each lives, what it needs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from desktop.core.backends.library import (
    EMBEDDED,
    ModelLibrary,
    NotDownloaded,
    catalog_estimate,
    is_path,
)
from models.catalog import Catalog, load_catalog
from models.download import lock_path, part_path, sidecar_path
from models.download_files import downloading_alone
from models.errors import DownloadFailed, ModelUnavailable
from models.gguf_info import read_gguf_info


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


@pytest.fixture
def library(tmp_path: Path, catalog: Catalog) -> ModelLibrary:
    return ModelLibrary(tmp_path / "models", catalog)


def test_every_catalog_model_is_offered_with_its_estimate_before_download(
    library: ModelLibrary, catalog: Catalog
) -> None:
    options = {(o.kind, o.ref): o for o in library.options((), 4096)}

    for entry in catalog.entries:
        option = options[(entry.kind, entry.id)]
        assert not option.installed
        assert option.size == entry.size
        assert option.estimate is not None, entry.id
        assert option.estimate.weights == entry.size
    chat = options[("chat", "qwen2.5-1.5b-instruct")]
    assert chat.estimate is not None
    # 28 layers x 2 KV heads x (128 + 128) x 4096 tokens x 2 bytes of f16 cache.
    assert chat.estimate.kv_cache == 28 * 2 * 256 * 4096 * 2


def test_the_embedded_models_are_offered_first(library: ModelLibrary) -> None:
    first, second = library.options((), 4096)[:2]

    assert (first.ref, first.kind, first.source) == (EMBEDDED, "chat", "embedded")
    assert first.installed and first.estimate is not None
    assert (second.ref, second.kind) == (EMBEDDED, "embedding")
    assert not second.installed  # made from its package on the first start


def test_a_catalog_model_is_installed_once_its_file_is_in_the_models_folder(
    library: ModelLibrary, catalog: Catalog, smollm2_path: Path
) -> None:
    entry = catalog.get("qwen2.5-1.5b-instruct")
    with pytest.raises(NotDownloaded, match="not downloaded yet") as caught:
        library.local_path(entry.id)
    assert f"reverie models download {entry.id}" in caught.value.hint
    library.models_dir.mkdir()
    shutil.copyfile(smollm2_path, library.file_of(entry))  # stands in for the download

    assert library.local_path(entry.id) == library.models_dir / entry.file
    installed = next(o for o in library.options((), 4096) if o.ref == entry.id)
    assert installed.installed


def test_an_unfinished_download_is_offered_as_resumable_and_can_be_discarded(
    library: ModelLibrary, catalog: Catalog
) -> None:
    entry = catalog.get("bge-small-en-v1.5")
    target = library.file_of(entry)
    library.models_dir.mkdir()
    part_path(target).write_bytes(b"x" * 1000)
    sidecar_path(target).write_text("{}")

    option = next(o for o in library.options((), 4096) if o.ref == entry.id)
    assert option.partial == 1000
    library.discard_partial(entry)

    assert not part_path(target).exists() and not sidecar_path(target).exists()


def test_a_link_at_a_downloads_part_is_not_offered_as_its_progress(
    library: ModelLibrary, catalog: Catalog, tmp_path: Path
) -> None:
    entry = catalog.get("bge-small-en-v1.5")
    elsewhere = tmp_path / "someone-elses.bin"
    elsewhere.write_bytes(b"x" * 1000)
    library.models_dir.mkdir()
    part_path(library.file_of(entry)).symlink_to(elsewhere)  # downloads never write through it

    option = next(o for o in library.options((), 4096) if o.ref == entry.id)

    assert option.partial == 0


def test_a_download_under_way_elsewhere_is_not_discarded(
    library: ModelLibrary, catalog: Catalog
) -> None:
    entry = catalog.get("bge-small-en-v1.5")
    target = library.file_of(entry)
    library.models_dir.mkdir()
    part_path(target).write_bytes(b"x" * 1000)

    with (
        downloading_alone(lock_path(target), entry.name),  # as `reverie models download` holds it
        pytest.raises(DownloadFailed, match="being downloaded already"),
    ):
        library.discard_partial(entry)

    assert part_path(target).read_bytes() == b"x" * 1000


def test_an_added_file_is_read_from_its_header(library: ModelLibrary, smollm2_path: Path) -> None:
    [option] = [o for o in library.options([str(smollm2_path)], 2048) if o.source == "added"]

    assert option.installed and option.kind == "chat"
    assert option.name == smollm2_path.name
    assert option.size == smollm2_path.stat().st_size
    assert option.estimate is not None and option.estimate.context == 2048


def test_an_added_file_that_is_gone_or_damaged_says_why(
    library: ModelLibrary, tmp_path: Path
) -> None:
    damaged = tmp_path / "damaged.gguf"
    damaged.write_bytes(b"GGUF" + b"\x00" * 10)
    gone = tmp_path / "gone.gguf"

    for path in (damaged, gone):
        option = library.added_option(path, 4096)
        assert not option.installed
        assert option.problem is not None and path.name in option.problem


def test_a_minilm_converted_on_the_first_start_is_installed(
    library: ModelLibrary, minilm_path: Path
) -> None:
    library.models_dir.mkdir()
    shutil.copyfile(minilm_path, library.models_dir / minilm_path.name)

    embedder = library.options((), 4096)[1]

    assert embedder.installed and embedder.estimate is not None
    assert embedder.estimate.weights == read_gguf_info(minilm_path).tensor_bytes


def test_a_local_backend_names_a_path_or_a_catalog_id(library: ModelLibrary) -> None:
    assert is_path("~/models/q.gguf") and is_path("/m/q") and is_path("q.GGUF")
    assert not is_path("qwen2.5-1.5b-instruct")
    assert library.local_path("~/models/q.gguf") == Path.home() / "models/q.gguf"
    with pytest.raises(ModelUnavailable, match="No model 'nope'"):
        library.local_path("nope")
    assert library.name_of("qwen2.5-1.5b-instruct") == "Qwen2.5 1.5B Instruct"
    assert library.name_of("/a/b/mine.gguf") == "mine.gguf"


def test_a_path_in_the_home_of_an_unknown_user_says_so(library: ModelLibrary) -> None:
    ref = "~nosuchuser_zz/m.gguf"

    with pytest.raises(ModelUnavailable, match="nosuchuser_zz"):
        library.local_path(ref)
    added = library.options([ref], 2048)[-1]
    assert not added.installed
    assert added.problem is not None and "nosuchuser_zz" in added.problem


def test_an_embedding_models_estimate_has_no_kv_cache(catalog: Catalog) -> None:
    estimate = catalog_estimate(catalog.get("bge-m3"), 4096)

    assert estimate is not None
    assert estimate.kv_cache == 0
    # Its output buffer holds a batch of logits over 250,002 tokens: it dominates.
    assert estimate.total > 2 * catalog.get("bge-m3").size


def test_an_added_path_too_long_for_the_file_system_is_a_problem_not_a_crash(
    library: ModelLibrary, tmp_path: Path
) -> None:
    too_long = [tmp_path / ("a" * 300 + ".gguf"), tmp_path.joinpath(*["b" * 200] * 30, "m.gguf")]

    options = library.options([str(path) for path in too_long], 2048)[-2:]

    for option in options:
        assert not option.installed
        assert option.problem is not None and "too long for the file system" in option.problem


def test_a_models_folder_too_long_for_its_files_says_so_for_each_model(
    catalog: Catalog, tmp_path: Path
) -> None:
    # Under PATH_MAX itself, but a file name inside takes it over.
    folder = tmp_path.joinpath(*["d" * 200] * 20)
    library = ModelLibrary(folder, catalog)

    options = library.options((), 2048)

    catalog_options = [o for o in options if o.source == "catalog"]
    assert catalog_options and all(
        o.problem and "too long for the file system" in o.problem for o in catalog_options
    )
    with pytest.raises(ModelUnavailable, match="too long for the file system"):
        library.local_path(catalog.entries[0].id)
