"""Tests of turning the settings' roles into the broker's backends, and switching them."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.core.backends.library import ModelLibrary, NotDownloaded
from desktop.core.backends.roles import (
    DEFAULT_EMBEDDER_NAME,
    BackendMaker,
    Preparation,
    PreparationProgress,
    RoleSwitch,
    api_key_name,
    describe_role,
    preparing_text,
)
from desktop.core.base.secrets import SecretStore
from desktop.core.base.settings import Backend, ModelSettings
from models import convert_bert
from models.broker import InferenceBroker, Role
from models.catalog import load_catalog
from models.convert_bert import Progress
from models.errors import ModelConversionError, ModelFileInvalid
from models.llama_chat import LlamaChatModel
from models.server_chat import ServerChatModel
from tests.fakes import MemoryKeyring

TIMEOUT = 60.0
SERVER = Backend(kind="server", url="http://127.0.0.1:9/v1", model="qwen")


@pytest.fixture
def secrets() -> SecretStore:
    return SecretStore(MemoryKeyring())


@pytest.fixture
def maker(tmp_path: Path, secrets: SecretStore) -> BackendMaker:
    return BackendMaker(ModelLibrary(tmp_path / "models", load_catalog()), secrets)


@pytest.fixture
def broker() -> Iterator[InferenceBroker]:
    broker = InferenceBroker()
    broker.start()
    yield broker
    broker.stop()


def test_the_same_local_model_for_chat_and_background_is_one_model(maker: BackendMaker) -> None:
    settings = ModelSettings(
        chat=(Backend(kind="local", model="/m/q.gguf"),),
        background=(Backend(kind="local", model="/m/q.gguf"),),
    )

    [chat] = maker.for_role(Role.CHAT, settings)
    [background] = maker.for_role(Role.BACKGROUND, settings)

    assert chat.key == background.key  # the broker forks it, never loads it twice
    assert not chat.remote
    assert chat.label == "q.gguf"


def test_background_work_without_backends_of_its_own_has_none(maker: BackendMaker) -> None:
    assert maker.for_role(Role.BACKGROUND, ModelSettings()) == []


def test_a_change_of_context_or_threads_is_another_model(maker: BackendMaker) -> None:
    keys = {
        maker.for_role(Role.CHAT, ModelSettings(context_length=c, threads=t))[0].key
        for c, t in ((4096, 0), (8192, 0), (4096, 2))
    }

    assert len(keys) == 3


def test_a_server_backend_runs_on_its_own_lane_and_reads_its_key_from_the_keyring(
    maker: BackendMaker, secrets: SecretStore
) -> None:
    secrets.set(api_key_name(SERVER.url), "sk-secret-1234")
    [backend] = maker.for_role(Role.CHAT, ModelSettings(chat=(SERVER,)))

    model = backend.load()

    assert backend.remote
    assert backend.label == "qwen at http://127.0.0.1:9/v1"
    assert isinstance(model, ServerChatModel)
    assert "sk-secret-1234" not in repr(model) + backend.key + backend.label
    model.close()


def test_a_new_api_key_makes_the_server_backend_again(
    maker: BackendMaker, secrets: SecretStore
) -> None:
    settings = ModelSettings(chat=(SERVER,))
    before = maker.for_role(Role.CHAT, settings)[0].key

    secrets.set(api_key_name(SERVER.url), "sk-new")

    assert maker.for_role(Role.CHAT, settings)[0].key != before


def test_a_catalog_model_not_downloaded_fails_its_load_with_how_to_get_it(
    maker: BackendMaker,
) -> None:
    settings = ModelSettings(chat=(Backend(kind="local", model="qwen2.5-1.5b-instruct"),))
    [backend] = maker.for_role(Role.CHAT, settings)

    with pytest.raises(NotDownloaded, match=r"Qwen2\.5 1\.5B Instruct is not downloaded"):
        backend.load()


def test_a_local_embedder_is_named_by_its_catalog_id(
    maker: BackendMaker, minilm_path: Path
) -> None:
    # The converted MiniLM stands in for a downloaded bge-small file.
    library = maker.library
    entry = library.catalog.get("bge-small-en-v1.5")
    library.models_dir.mkdir()
    shutil.copyfile(minilm_path, library.file_of(entry))
    settings = ModelSettings(embeddings=Backend(kind="local", model=entry.id))
    [backend] = maker.for_role(Role.EMBEDDINGS, settings)

    embedder = backend.load()
    try:
        assert embedder.name == "bge-small-en-v1.5"  # recorded with every vector it makes
        assert backend.label == "BGE small EN v1.5"
    finally:
        embedder.close()


@pytest.mark.model
def test_switching_applies_only_the_roles_that_changed(
    maker: BackendMaker, broker: InferenceBroker, smollm2_path: Path, minilm_path: Path
) -> None:
    shutil.copytree(minilm_path.parent, maker.library.models_dir)  # converted already
    switch = RoleSwitch(broker, maker)
    first = switch.apply(ModelSettings(context_length=1024))
    assert set(first) == {Role.CHAT, Role.EMBEDDINGS}  # background follows the chat
    for job in first.values():
        job.result(TIMEOUT)
    assert broker.embedder_name == DEFAULT_EMBEDDER_NAME
    assert describe_role(broker, Role.BACKGROUND).startswith("the chat's: SmolLM2")

    local = Backend(kind="local", model=str(smollm2_path))
    second = switch.apply(ModelSettings(context_length=1024, chat=(local,)))

    assert set(second) == {Role.CHAT}
    assert second[Role.CHAT].result(TIMEOUT) == smollm2_path.stem
    assert isinstance(broker.model(Role.CHAT), LlamaChatModel)
    assert describe_role(broker, Role.CHAT) == f"{smollm2_path.name}, on this computer"


@pytest.mark.model
def test_a_role_whose_load_failed_is_tried_again_on_the_next_apply(
    maker: BackendMaker, broker: InferenceBroker, tmp_path: Path, smollm2_path: Path
) -> None:
    missing = tmp_path / "later.gguf"
    settings = ModelSettings(context_length=1024, chat=(Backend(kind="local", model=str(missing)),))
    switch = RoleSwitch(broker, maker)

    with pytest.raises(ModelFileInvalid, match=r"later\.gguf"):
        switch.apply(settings)[Role.CHAT].result(TIMEOUT)
    shutil.copyfile(smollm2_path, missing)  # the user fixed it

    assert switch.apply(settings)[Role.CHAT].result(TIMEOUT) == "later"


# --- preparing a model for its first use ------------------------------------


def test_preparation_steps_reach_every_listener_until_it_is_removed() -> None:
    progress = PreparationProgress()
    first: list[Preparation] = []
    second: list[Preparation] = []
    progress.add_listener(first.append)
    progress.add_listener(second.append)

    with progress.reporting() as report:
        report(0.0, "reading the weights")
        progress.remove_listener(second.append)
        report(1.0, "done")

    assert first == [Preparation(0.0, "reading the weights"), Preparation(1.0, "done")]
    assert second == [Preparation(0.0, "reading the weights")]
    assert first[-1].over and not first[0].over


def test_a_preparation_that_raises_tells_its_listeners_where_it_failed() -> None:
    progress = PreparationProgress()
    heard: list[Preparation] = []
    progress.add_listener(heard.append)

    with pytest.raises(ModelConversionError), progress.reporting() as report:
        report(0.8, "checking the converted model")
        raise ModelConversionError("the converted tokenizer gives (101, 102)")

    assert heard[-1] == Preparation(0.8, "checking the converted model", failed=True)
    assert heard[-1].over


def test_a_load_that_fails_before_preparing_anything_tells_nothing() -> None:
    progress = PreparationProgress()
    heard: list[Preparation] = []
    progress.add_listener(heard.append)

    with pytest.raises(ModelConversionError), progress.reporting():
        raise ModelConversionError("Cannot read the embedding model")

    assert heard == []


def test_the_preparing_text_counts_whole_percents_up_to_done() -> None:
    assert preparing_text(0.429).endswith("(first start only)… 42%")
    assert preparing_text(0.999).endswith(" 99%")  # 100% only once it is done
    assert preparing_text(1.0).endswith(" 100%")


@pytest.mark.model
def test_the_embedded_embedder_already_converted_loads_without_preparing(
    secrets: SecretStore, tmp_path: Path, minilm_path: Path
) -> None:
    library = ModelLibrary(tmp_path / "models", load_catalog())
    shutil.copytree(minilm_path.parent, library.models_dir)  # converted already
    progress = PreparationProgress()
    heard: list[Preparation] = []
    progress.add_listener(heard.append)
    [backend] = BackendMaker(library, secrets, progress).for_role(Role.EMBEDDINGS, ModelSettings())

    embedder = backend.load()
    embedder.close()

    assert embedder.name == DEFAULT_EMBEDDER_NAME
    assert heard == []


@pytest.mark.model
def test_the_embedded_embedder_is_prepared_in_reveries_own_cache_folder(
    secrets: SecretStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Not the system's temporary folder: what a kill leaves there is
    # Reverie's to find and remove (round 14).
    library = ModelLibrary(tmp_path / "models", load_catalog())
    preparing = tmp_path / "cache" / "preparing"
    unpacked_in: list[Path] = []
    write = convert_bert._write_gguf

    def watched(model_dir: Path, out_path: Path, report: Progress) -> None:
        unpacked_in.append(model_dir.parent)
        write(model_dir, out_path, report)

    monkeypatch.setattr(convert_bert, "_write_gguf", watched)
    maker = BackendMaker(library, secrets, preparing_dir=preparing)
    [backend] = maker.for_role(Role.EMBEDDINGS, ModelSettings())

    backend.load().close()

    assert unpacked_in == [preparing]
    assert list(preparing.iterdir()) == []
