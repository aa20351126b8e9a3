"""Tests of converting the shipped all-MiniLM-L6-v2 to GGUF and caching the result.

The real model is converted once per session into a shared temporary folder
(``ensure_default_embedder_gguf`` itself makes later requests free); tests
that need to watch a conversion happen copy that cache into their own folder.
One such conversion, with what it reported, is shared by this module's tests.
"""

from __future__ import annotations

import errno
import itertools
import json
import os
import shutil
import signal
import subprocess
import sys
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import gguf
import pytest

from models import convert_bert
from models.convert_bert import (
    CHECKING,
    DEFAULT_GGUF_NAME,
    DONE,
    READING,
    WRITING,
    Progress,
    convert_minilm_to_gguf,
    ensure_default_embedder_gguf,
)
from models.embedded import default_embedding_source
from models.errors import ModelConversionError, NoRoomToPrepare
from models.temporary_files import create_locked, temporary_path, working_folder

pytestmark = pytest.mark.model

SIDECAR_NAME = DEFAULT_GGUF_NAME + ".json"


@pytest.fixture(scope="session")
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The session's converted-model folder (the same one test_llama_embedder uses)."""
    cache = tmp_path_factory.getbasetemp() / "minilm-cache"
    ensure_default_embedder_gguf(default_embedding_source(), cache)
    return cache


@pytest.fixture(scope="module")
def reader(shared_cache: Path) -> gguf.GGUFReader:
    return gguf.GGUFReader(shared_cache / DEFAULT_GGUF_NAME)


@pytest.fixture
def private_cache(shared_cache: Path, tmp_path: Path) -> Path:
    """A copy of the converted cache this test may change."""
    cache = tmp_path / "models"
    shutil.copytree(shared_cache, cache)
    return cache


def _count_conversions(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    calls: list[Path] = []
    real = convert_bert.convert_minilm_to_gguf

    def counting(
        source_zip: Path,
        out_path: Path,
        progress: Progress | None = None,
        work_root: Path | None = None,
    ) -> Path:
        calls.append(out_path)
        return real(source_zip, out_path, progress, work_root)

    monkeypatch.setattr(convert_bert, "convert_minilm_to_gguf", counting)
    return calls


@pytest.fixture
def count_conversions(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Records each real conversion that ensure_default_embedder_gguf starts."""
    return _count_conversions(monkeypatch)


@dataclass
class Reconversion:
    """A cache whose sidecar was garbage, after ``ensure_default_embedder_gguf``."""

    cache: Path
    conversions: list[Path]
    steps: list[tuple[float, str]] = field(default_factory=list)
    """What the conversion reported, in order."""


@pytest.fixture(scope="module")
def garbage_sidecar_reconverted(
    shared_cache: Path, tmp_path_factory: pytest.TempPathFactory
) -> Reconversion:
    """The module's one real conversion, watched (a conversion takes seconds)."""
    cache = tmp_path_factory.mktemp("reconverted") / "models"
    shutil.copytree(shared_cache, cache)
    (cache / SIDECAR_NAME).write_text("{not json")
    with pytest.MonkeyPatch.context() as monkeypatch:
        done = Reconversion(cache, _count_conversions(monkeypatch))
        ensure_default_embedder_gguf(
            default_embedding_source(), cache, lambda f, s: done.steps.append((f, s))
        )
    return done


def _identity(path: Path) -> tuple[int, int]:
    stat = path.stat()
    return stat.st_ino, stat.st_mtime_ns


def _sidecar(cache: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((cache / SIDECAR_NAME).read_text())
    return data


def _edit_sidecar(cache: Path, change: Callable[[dict[str, Any]], None]) -> None:
    data = _sidecar(cache)
    change(data)
    (cache / SIDECAR_NAME).write_text(json.dumps(data))


def _names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# --- the converted file ---------------------------------------------------


def test_converted_gguf_has_bert_metadata_and_f16_weights(reader: gguf.GGUFReader) -> None:
    # The 30522-entry token arrays are slow to decode and checked below.
    arrays = {"tokenizer.ggml.tokens", "tokenizer.ggml.token_type"}
    fields = {n: f.contents() for n, f in reader.fields.items() if n not in arrays}
    assert fields["general.architecture"] == "bert"
    assert fields["bert.attention.causal"] is False
    assert fields["bert.pooling_type"] == int(gguf.PoolingType.MEAN)
    assert fields["bert.embedding_length"] == 384
    assert fields["general.file_type"] == int(gguf.LlamaFileType.MOSTLY_F16)
    assert fields["tokenizer.ggml.model"] == "bert"
    assert fields["tokenizer.ggml.token_type_count"] == 2
    types = {t.name: t.tensor_type for t in reader.tensors}
    assert types["token_embd.weight"] == gguf.GGMLQuantizationType.F16
    assert types["blk.0.attn_q.weight"] == gguf.GGMLQuantizationType.F16
    assert types["blk.0.attn_q.bias"] == gguf.GGMLQuantizationType.F32
    assert types["position_embd.weight"] == gguf.GGMLQuantizationType.F32
    assert not any(name.startswith("pooler") for name in types)


def test_vocab_uses_the_phantom_space_form(reader: gguf.GGUFReader) -> None:
    tokens = reader.fields["tokenizer.ggml.tokens"].contents()
    assert len(tokens) == 30522
    assert tokens[101] == "[CLS]"  # control tokens unchanged
    assert tokens[1045] == "\u2581i"  # word starts get the marker
    assert tokens[2075] == "ing"  # '##ing' loses its '##'


def test_sidecar_records_source_and_converter(shared_cache: Path) -> None:
    source = default_embedding_source()
    data = _sidecar(shared_cache)
    assert data["converter_version"] == convert_bert.CONVERTER_VERSION
    assert data["source"]["size"] == source.stat().st_size
    assert data["source"]["mtime_ns"] == source.stat().st_mtime_ns
    assert len(data["source"]["sha256"]) == 64
    assert data["gguf_size"] == (shared_cache / DEFAULT_GGUF_NAME).stat().st_size


# --- caching --------------------------------------------------------------


def test_unchanged_source_is_not_converted_again(
    private_cache: Path, count_conversions: list[Path]
) -> None:
    before = _identity(private_cache / DEFAULT_GGUF_NAME)
    path = ensure_default_embedder_gguf(default_embedding_source(), private_cache)
    assert path == private_cache / DEFAULT_GGUF_NAME
    assert _identity(path) == before
    assert count_conversions == []


def test_touched_source_with_same_bytes_only_refreshes_the_sidecar(
    private_cache: Path, tmp_path: Path, count_conversions: list[Path]
) -> None:
    source = tmp_path / "model.zip"
    shutil.copyfile(default_embedding_source(), source)  # same bytes, new mtime
    before = _identity(private_cache / DEFAULT_GGUF_NAME)
    ensure_default_embedder_gguf(source, private_cache)
    assert count_conversions == []
    assert _identity(private_cache / DEFAULT_GGUF_NAME) == before
    assert _sidecar(private_cache)["source"]["mtime_ns"] == source.stat().st_mtime_ns


@pytest.mark.slow
@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda d: d["source"].update(size=1, sha256="0" * 64), id="changed-source"),
        pytest.param(lambda d: d.update(converter_version=0), id="older-converter"),
        pytest.param(lambda d: d.update(gguf_size=1), id="damaged-gguf"),
    ],
)
def test_stale_sidecar_triggers_a_reconversion(
    private_cache: Path, count_conversions: list[Path], change: Callable[[dict[str, Any]], None]
) -> None:
    _edit_sidecar(private_cache, change)
    before = _identity(private_cache / DEFAULT_GGUF_NAME)
    ensure_default_embedder_gguf(default_embedding_source(), private_cache)
    assert count_conversions == [private_cache / DEFAULT_GGUF_NAME]
    assert _identity(private_cache / DEFAULT_GGUF_NAME) != before
    assert _sidecar(private_cache)["converter_version"] == convert_bert.CONVERTER_VERSION


def test_garbage_sidecar_is_treated_as_absent(garbage_sidecar_reconverted: Reconversion) -> None:
    assert len(garbage_sidecar_reconverted.conversions) == 1
    sidecar = _sidecar(garbage_sidecar_reconverted.cache)
    assert sidecar["converter_version"] == convert_bert.CONVERTER_VERSION


# --- progress -------------------------------------------------------------


def test_a_conversion_reports_each_stage_and_tensor_up_to_done(
    garbage_sidecar_reconverted: Reconversion, reader: gguf.GGUFReader
) -> None:
    steps = garbage_sidecar_reconverted.steps
    fractions = [fraction for fraction, _ in steps]
    assert fractions[0] == 0.0 and fractions[-1] == 1.0
    assert all(a < b for a, b in itertools.pairwise(fractions))
    stages = [stage for _, stage in steps]
    reading = stages.count(READING)
    assert reading > 2  # inflating the weights, the longest stage, moves too
    tensors = len(reader.tensors)
    written = [f"{WRITING} {n}/{tensors}" for n in range(1, tensors + 1)]
    assert stages == [READING] * reading + written + [CHECKING, DONE]


def test_a_cached_model_reports_no_progress(private_cache: Path) -> None:
    steps: list[tuple[float, str]] = []
    ensure_default_embedder_gguf(
        default_embedding_source(), private_cache, lambda f, s: steps.append((f, s))
    )
    assert steps == []


def test_missing_source_raises(tmp_path: Path) -> None:
    with pytest.raises(ModelConversionError, match=r"nowhere\.zip"):
        ensure_default_embedder_gguf(tmp_path / "nowhere.zip", tmp_path / "models")


# --- failures leave nothing behind -----------------------------------------


def _zip_with(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def _real_members() -> dict[str, bytes]:
    with zipfile.ZipFile(default_embedding_source()) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


@pytest.mark.parametrize(
    "make_source",
    [
        pytest.param(lambda p: p.write_bytes(b"this is not a zip"), id="garbage"),
        pytest.param(lambda p: _zip_with(p, {"readme.txt": b"hello"}), id="no-model"),
        pytest.param(
            lambda p: _zip_with(p, {**_real_members(), "model.safetensors": b"\x00" * 64}),
            id="corrupt-weights",
        ),
        pytest.param(
            lambda p: _zip_with(p, {**_real_members(), "tokenizer.json": b"[]"}),
            id="corrupt-tokenizer",
        ),
    ],
)
def test_corrupt_source_raises_and_leaves_no_file(
    tmp_path: Path, make_source: Callable[[Path], object]
) -> None:
    source = tmp_path / "source" / "model.zip"
    source.parent.mkdir()
    make_source(source)
    out_dir = tmp_path / "out"
    with pytest.raises(ModelConversionError, match=r"model\.zip"):
        convert_minilm_to_gguf(source, out_dir / "model.gguf")
    assert _names(out_dir) == []


def test_the_folders_made_for_the_converted_model_are_private_whatever_the_umask(
    tmp_path: Path,
) -> None:
    source = tmp_path / "model.zip"
    source.write_bytes(b"this is not a zip")  # the folders are made before it is read
    out_dir = tmp_path / "home" / "models"
    previous = os.umask(0)
    try:
        with pytest.raises(ModelConversionError):
            convert_minilm_to_gguf(source, out_dir / "model.gguf")
    finally:
        os.umask(previous)

    assert [oct(p.stat().st_mode & 0o777) for p in (out_dir.parent, out_dir)] == ["0o700"] * 2


def test_failed_check_leaves_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A converter whose output tokenizes differently than expected must not install it.
    monkeypatch.setattr(convert_bert, "GOLDEN_IDS", (101, 1, 102))
    out_path = tmp_path / "model.gguf"
    steps: list[str] = []
    with pytest.raises(ModelConversionError, match="tokenizer gives"):
        convert_minilm_to_gguf(default_embedding_source(), out_path, lambda _, s: steps.append(s))
    assert _names(tmp_path) == []
    assert steps[-1] == CHECKING  # never said it was done


def test_failed_conversion_keeps_the_previous_file(private_cache: Path, tmp_path: Path) -> None:
    target = private_cache / DEFAULT_GGUF_NAME
    before = _identity(target)
    garbage = tmp_path / "garbage.zip"
    garbage.write_bytes(os.urandom(1024))
    with pytest.raises(ModelConversionError):
        convert_minilm_to_gguf(garbage, target)
    assert _identity(target) == before
    assert _names(private_cache) == [DEFAULT_GGUF_NAME, SIDECAR_NAME]


# --- what a killed conversion left goes at the next one -------------------

_CONVERSION = """
import os, signal, sys
from pathlib import Path
from models import convert_bert
from models.embedded import default_embedding_source

write = convert_bert._write_gguf

def write_then_die(*args):
    write(*args)  # the weights unpacked, the whole GGUF in its temporary file
    os.kill(os.getpid(), signal.SIGKILL)  # as a logout or a power cut would

if sys.argv[2] == "killed":
    convert_bert._write_gguf = write_then_die
convert_bert.ensure_default_embedder_gguf(default_embedding_source(), Path(sys.argv[1]))
"""


def _convert_in_a_child(models: Path, temporary: Path, how: str) -> int:
    """Convert into *models* in a child whose temporary folder is *temporary*."""
    done = subprocess.run(
        [sys.executable, "-c", _CONVERSION, str(models), how],
        cwd=Path(__file__).resolve().parents[3],
        env={**os.environ, "TMPDIR": str(temporary)},
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode in (0, -signal.SIGKILL), done.stderr
    return done.returncode


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="no SIGKILL")
def test_what_a_killed_conversion_left_goes_at_the_next_one(tmp_path: Path) -> None:
    # A kill ran neither the temporary file's nor the extraction folder's
    # cleanup, and nothing looked for them again: 46 MB hidden beside the
    # model and 91 MB in the temporary folder per killed first start (round 14).
    models, temporary = tmp_path / "models", tmp_path / "tmp"
    temporary.mkdir()

    assert _convert_in_a_child(models, temporary, "killed") == -signal.SIGKILL
    [part] = [p for p in models.iterdir() if p.name.endswith(".part")]
    assert part.stat().st_size > 40_000_000
    assert any(p.is_dir() for p in temporary.iterdir())

    assert _convert_in_a_child(models, temporary, "whole") == 0
    assert _names(models) == [DEFAULT_GGUF_NAME, SIDECAR_NAME]
    assert _names(temporary) == []


def test_a_conversion_unpacks_in_the_folder_it_is_given_and_leaves_it_empty(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    unpacking = tmp_path / "cache" / "preparing"
    seen: list[Path] = []
    write = convert_bert._write_gguf

    def watched(model_dir: Path, out_path: Path, report: Progress) -> None:
        seen.append(model_dir)
        write(model_dir, out_path, report)

    monkeypatch.setattr(convert_bert, "_write_gguf", watched)
    monkeypatch.setenv("TMPDIR", str(tmp_path / "not-used"))  # never the system's

    convert_minilm_to_gguf(default_embedding_source(), tmp_path / "model.gguf", None, unpacking)

    [model_dir] = seen
    assert model_dir.parent == unpacking
    assert _names(unpacking) == []
    assert oct(unpacking.stat().st_mode & 0o777) == "0o700"


def test_the_unpacked_weights_are_the_users_alone_whatever_the_umask(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Round 15: plain opens gave them the umask's bits (0666 under umask 000).
    modes: dict[str, str] = {}
    write = convert_bert._write_gguf

    def watched(model_dir: Path, out_path: Path, report: Progress) -> None:
        for path in model_dir.rglob("*"):
            if path.is_file():
                modes[path.name] = oct(path.stat().st_mode & 0o777)
        write(model_dir, out_path, report)

    monkeypatch.setattr(convert_bert, "_write_gguf", watched)
    before = os.umask(0)
    try:
        convert_minilm_to_gguf(default_embedding_source(), tmp_path / "m.gguf", None, tmp_path)
    finally:
        os.umask(before)

    assert "model.safetensors" in modes
    assert set(modes.values()) == {"0o600"}


def test_the_temporaries_of_a_live_conversion_elsewhere_are_left_alone(
    private_cache: Path, tmp_path: Path
) -> None:
    unpacking = tmp_path / "preparing"
    target = private_cache / DEFAULT_GGUF_NAME
    live_part = temporary_path(target)
    holder = create_locked(live_part)  # as another process's conversion holds it
    try:
        with working_folder(unpacking, convert_bert.UNPACKING_PREFIX) as live_folder:
            (private_cache / SIDECAR_NAME).unlink()  # so that it converts again

            ensure_default_embedder_gguf(default_embedding_source(), private_cache, None, unpacking)

            assert live_part.exists() and live_folder.is_dir()
    finally:
        os.close(holder)


def test_what_a_preparation_killed_beside_another_left_goes_once_the_model_is_ready(
    private_cache: Path, tmp_path: Path, count_conversions: list[Path]
) -> None:
    # Round 15: start B prepared the model while killed start A's files were
    # locked (rightly kept); every later start found the model ready and
    # never swept, so A's unpacked weights and its .part stayed for good.
    unpacking = tmp_path / "preparing"
    left_part = temporary_path(private_cache / DEFAULT_GGUF_NAME)
    os.close(create_locked(left_part))  # its lock went with the killed process
    with working_folder(unpacking, convert_bert.UNPACKING_PREFIX) as left_folder:
        (left_folder / "model.safetensors").write_bytes(b"weights")
    left_folder.mkdir()  # as the kill left it: the folder and its lock file, held by nobody
    (left_folder / "model.safetensors").write_bytes(b"weights")
    (unpacking / f"{left_folder.name}.lock").touch()

    ensure_default_embedder_gguf(default_embedding_source(), private_cache, None, unpacking)

    assert count_conversions == []  # ready: not prepared again
    assert not left_part.exists()
    assert _names(unpacking) == []
    assert _names(private_cache) == [DEFAULT_GGUF_NAME, SIDECAR_NAME]


# --- a full disk is said to be one -------------------------------------------


class _Usage(NamedTuple):
    total: int
    used: int
    free: int


def _full_under(monkeypatch: pytest.MonkeyPatch, full: Path) -> None:
    """The disk of every folder under *full* has no byte free; others have plenty."""

    def usage(folder: str | os.PathLike[str]) -> _Usage:
        free = 0 if Path(folder).is_relative_to(full) else 10**12
        return _Usage(10**12, 10**12 - free, free)

    monkeypatch.setattr(shutil, "disk_usage", usage)


def test_a_short_write_on_a_full_disk_says_the_disk_is_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # numpy's short write raises an OSError with no errno: the full disk was
    # called a corrupt package to reinstall (round 14).
    models = tmp_path / "models"

    def short_write(writer: gguf.GGUFWriter) -> None:
        raise OSError("589824 requested and 52464 written")

    monkeypatch.setattr(gguf.GGUFWriter, "write_tensors_to_file", short_write)
    _full_under(monkeypatch, models)

    with pytest.raises(NoRoomToPrepare) as caught:
        convert_minilm_to_gguf(default_embedding_source(), models / DEFAULT_GGUF_NAME)

    said = str(caught.value)
    assert caught.value.folder == models
    assert f"The disk holding {models} is full (0.0 MB free)" in said
    assert "Free about 140 MB" in said
    assert "corrupt" not in said and "reinstall" not in said
    assert _names(models) == []


def test_a_full_disk_where_the_weights_are_unpacked_names_that_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    unpacking = tmp_path / "cache" / "preparing"

    def no_space(*_args: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(convert_bert, "_inflate", no_space)
    _full_under(monkeypatch, unpacking)

    with pytest.raises(NoRoomToPrepare) as caught:
        ensure_default_embedder_gguf(
            default_embedding_source(), tmp_path / "models", None, unpacking
        )

    assert caught.value.folder == unpacking
    assert f"The disk holding {unpacking} is full (0.0 MB free)" in str(caught.value)
    assert _names(unpacking) == []
