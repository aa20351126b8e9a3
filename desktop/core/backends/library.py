"""The models Reverie can run on this machine, and where each one lives.

Three kinds: the embedded defaults (shipped in Python packages), the
catalog's recommended models (downloaded into the models folder), and GGUF
files the user added from anywhere (``models.added`` in the settings; they
stay where they are).  Each comes with what it needs in memory at the chosen
context, estimated from its GGUF header or, before a download, from the
catalog's numbers, and never by loading it.
"""

from __future__ import annotations

import errno
import logging
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from models.catalog import Catalog, CatalogEntry, UnknownModel
from models.convert_bert import DEFAULT_GGUF_NAME
from models.download import (
    Downloader,
    DownloadRequest,
    DownloadState,
    lock_path,
    part_path,
    sidecar_path,
)
from models.download_files import downloading_alone
from models.embedded import default_chat_model_path
from models.errors import DownloadFailed, ModelError, ModelFileInvalid, ModelUnavailable
from models.gguf_info import read_gguf_info
from models.memory_estimate import MemoryEstimate, estimate_embedder_memory, estimate_memory
from models.model_file import shown_path, unreadable_model_file

log = logging.getLogger(__name__)

EMBEDDED = "embedded"
ModelKind = Literal["chat", "embedding"]
Source = Literal["embedded", "catalog", "added"]

EMBEDDED_CHAT_NAME = "SmolLM2 135M Instruct (embedded)"
EMBEDDED_EMBEDDER_NAME = "all-MiniLM-L6-v2 (embedded)"


class NotDownloaded(ModelUnavailable):
    """A catalog model chosen for a role is not in the models folder yet."""


@dataclass(frozen=True)
class ModelOption:
    """One model the user may choose for a role."""

    ref: str
    """How a role names it (``Backend.model``): a catalog id, or the file's path;
    the embedded ones are ``"embedded"``."""
    name: str
    kind: ModelKind
    source: Source
    path: Path | None
    """The file, once it is on this machine."""
    size: int | None
    entry: CatalogEntry | None = None
    estimate: MemoryEstimate | None = None
    """Memory it needs at the chosen context (None: unknown)."""
    problem: str | None = None
    """Why it cannot be used (an added file gone or damaged)."""
    partial: int = 0
    """Bytes of an unfinished download kept to resume."""

    @property
    def installed(self) -> bool:
        return self.path is not None and self.problem is None


class ModelLibrary:
    """The models of one installation: its models folder and the catalog."""

    def __init__(self, models_dir: Path, catalog: Catalog) -> None:
        self.models_dir = models_dir
        self.catalog = catalog

    # -- where each model lives ----------------------------------------------
    def file_of(self, entry: CatalogEntry) -> Path:
        """Where a catalog model is (or will be, once downloaded)."""
        return self.models_dir / Path(entry.file).name

    def local_path(self, ref: str) -> Path:
        """The GGUF file a local backend names: a catalog model (which must
        be downloaded) or a path; ``ModelUnavailable`` says what is missing."""
        if is_path(ref):
            return model_path(ref)
        try:
            entry = self.catalog.get(ref)
        except UnknownModel as error:
            raise ModelUnavailable(
                f"{error}", "Choose a model on the Models page or give a .gguf file's path."
            ) from error
        path = self.file_of(entry)
        present, problem = _file_state(path)
        if problem is not None:
            raise ModelFileInvalid(problem)
        if not present:
            raise NotDownloaded(
                f"{entry.name} is not downloaded yet.",
                f"Download it on the Models page, or with: reverie models download {entry.id}",
            )
        return path

    def name_of(self, ref: str) -> str:
        """How the user knows the model *ref* names."""
        if is_path(ref):
            return Path(ref).name
        try:
            return self.catalog.get(ref).name
        except UnknownModel:
            return ref

    # -- what there is -------------------------------------------------------
    def options(self, added: Sequence[str], context: int) -> list[ModelOption]:
        """Every model there is to choose from: the embedded ones, the
        catalog's (downloaded or not) and the added files, with their memory
        estimates at *context* tokens."""
        found = [self._embedded_chat(context), self._embedded_embedder()]
        found += [self.catalog_option(entry, context) for entry in self.catalog.entries]
        # A file written twice (by hand: "/m//a.gguf" beside "/m/a.gguf", or
        # by a link and by itself) is one model, named as first written, and
        # read once: a list of one file ten thousand times is one header read.
        unique: dict[str, str] = {}
        for path in added:
            unique.setdefault(file_ref(path), path)
        return found + [self.added_option(Path(path), context) for path in unique.values()]

    def added_option(self, path: Path, context: int) -> ModelOption:
        """A GGUF file the user added, read from its header (a bad file says
        why); named as written (a link's name), its ref the file itself."""
        ref = file_ref(str(path))
        try:
            path = model_path(path)
            info = read_gguf_info(path)
        except (ModelUnavailable, ModelFileInvalid) as error:
            kind: ModelKind = "chat"
            name = shown_path(path.name)
            return ModelOption(ref, name, kind, "added", path, None, problem=str(error))
        estimate = (
            estimate_embedder_memory(info.tensor_bytes, info.shape)
            if info.is_embedding
            else estimate_memory(info.tensor_bytes, info.shape, context)
        )
        # The file's name: what the user chose, where metadata names are often
        # cryptic; with its escapes visible (a name is no terminal's command).
        kind = "embedding" if info.is_embedding else "chat"
        return ModelOption(
            ref, shown_path(path.name), kind, "added", path, info.file_size, estimate=estimate
        )

    def _embedded_chat(self, context: int) -> ModelOption:
        try:
            path = default_chat_model_path()
            info = read_gguf_info(path)
        except ModelError as error:
            return ModelOption(
                EMBEDDED, EMBEDDED_CHAT_NAME, "chat", "embedded", None, None, problem=str(error)
            )
        estimate = estimate_memory(info.tensor_bytes, info.shape, context)
        return ModelOption(
            EMBEDDED, EMBEDDED_CHAT_NAME, "chat", "embedded", path, info.file_size, None, estimate
        )

    def _embedded_embedder(self) -> ModelOption:
        """MiniLM, converted to GGUF in the models folder on the first start."""
        path = self.models_dir / DEFAULT_GGUF_NAME
        present, problem = _file_state(path)
        info = None
        if present:
            try:
                info = read_gguf_info(path)
            except ModelFileInvalid as error:
                problem = str(error)
        if info is None:
            return ModelOption(
                EMBEDDED,
                EMBEDDED_EMBEDDER_NAME,
                "embedding",
                "embedded",
                None,
                None,
                problem=problem,
            )
        estimate = estimate_embedder_memory(info.tensor_bytes, info.shape)
        return ModelOption(
            EMBEDDED,
            EMBEDDED_EMBEDDER_NAME,
            "embedding",
            "embedded",
            path,
            info.file_size,
            estimate=estimate,
        )

    def catalog_option(self, entry: CatalogEntry, context: int) -> ModelOption:
        """*entry* as a model to choose: installed once its file is in the
        models folder, whole (``_copy_problem``)."""
        path = self.file_of(entry)
        present, problem = _file_state(path)
        if present and problem is None:
            problem = _copy_problem(path, entry)
        return ModelOption(
            entry.id,
            entry.name,
            entry.kind,
            "catalog",
            path if present else None,
            entry.size,
            entry,
            catalog_estimate(entry, context),
            problem=problem,
            partial=_partial_size(part_path(path)),
        )

    # -- getting one ---------------------------------------------------------
    def download(
        self,
        entry: CatalogEntry,
        state: DownloadState,
        *,
        endpoint: str,
        downloader: Downloader,
    ) -> Path:
        """Download *entry* into the models folder (resuming a part kept
        from before), checked against its size and sha256; its path.  The
        downloader makes the folder, names what is in the way and removes a
        copy a check rejected before."""
        request = DownloadRequest(
            url=entry.download_url(endpoint),
            destination=self.file_of(entry),
            expected_size=entry.size,
            expected_sha256=entry.sha256,
        )
        return downloader.download(request, state)

    def discard_partial(self, entry: CatalogEntry) -> None:
        """Remove what a paused download of *entry* kept (its part and sidecar);
        ``DownloadFailed`` names what could not be removed, or that the
        download is under way (in a terminal, say): its part is not pulled
        from under it."""
        target = self.file_of(entry)
        with downloading_alone(lock_path(target), entry.name):
            for path in (part_path(target), sidecar_path(target)):
                try:
                    path.unlink(missing_ok=True)
                except OSError as error:
                    raise DownloadFailed(
                        f"{path} could not be removed: {error.strerror or error}.",
                        "Move it out of the models folder yourself; the download then starts over.",
                    ) from error


def catalog_estimate(entry: CatalogEntry, context: int) -> MemoryEstimate | None:
    """What a catalog model needs at *context* tokens, from the catalog's
    numbers (its file size stands for the weights); None without its shape."""
    if entry.shape is None:
        return None
    if entry.kind == "embedding":
        return estimate_embedder_memory(entry.size, entry.shape)
    return estimate_memory(entry.size, entry.shape, context)


def _file_state(path: Path) -> tuple[bool, str | None]:
    """Whether a regular file is at *path* in the models folder, and why that
    cannot be told (``pathlib``'s ``is_file()`` raises for a name too long for
    the file system, which a long models folder makes of every file in it)."""
    try:
        return stat.S_ISREG(path.stat().st_mode), None
    except OSError as error:
        if error.errno in (errno.ENOENT, errno.ENOTDIR):
            return False, None
        return False, str(unreadable_model_file(path, error))


def _copy_problem(path: Path, entry: CatalogEntry) -> str | None:
    """Why the file at *entry*'s place is no copy of it to use, or None.  A
    file of the catalog's size is the one a download checked; another (a
    copy cut short by a crash or a ``cp``, a file put there by hand) must
    at least be a GGUF llama.cpp can read, else it is said, and a download
    replaces it: it was "installed", and downloading it again said
    "already downloaded"."""
    try:
        if path.stat().st_size == entry.size:
            return None
        read_gguf_info(path)
    except OSError as error:
        return str(unreadable_model_file(path, error))
    except ModelFileInvalid as error:
        return str(error)
    return None


def _partial_size(part: Path) -> int:
    """How much a paused download kept at *part*: a link or anything but a
    regular file there is none (downloads never write through one)."""
    try:
        found = part.lstat()
    except OSError:
        return 0
    return found.st_size if stat.S_ISREG(found.st_mode) else 0


def model_path(ref: str | Path) -> Path:
    """The file a model path names, its ``~`` expanded; ``ModelUnavailable``
    if that ``~`` names a home this computer does not know."""
    try:
        return Path(ref).expanduser()
    except RuntimeError as error:  # pathlib's only word for "no such home"
        raise ModelUnavailable(
            f"{ref} is in the home folder of a user this computer does not know.",
            "Correct the name after ~, or give the file's full path.",
        ) from error


def file_ref(written: str) -> str:
    """The ref of the option for the file *written* names (an entry of
    ``models.added``, or a local role's model, as the settings hold it:
    ``~/a.gguf``, ``/m//a.gguf``, a link to it): the file itself, its
    links followed, so that each file is one model however it is named."""
    try:
        path = model_path(written)
    except ModelUnavailable:  # a ~user unknown here: the option's ref is as written
        return str(Path(written))
    try:
        return os.path.realpath(path)  # a link to nothing: where it leads
    except ValueError:  # a name the file system refuses: no file to follow
        return str(path)


def is_path(ref: str) -> bool:
    """Whether a role's model *ref* is a file's path rather than a catalog id
    (ids are lower-case words without slashes, and never end in .gguf)."""
    return "/" in ref or "\\" in ref or ref.startswith("~") or ref.lower().endswith(".gguf")
