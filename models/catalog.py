"""The catalog of recommended models: ``data/models_catalog.json``, loaded and checked.

Each entry names one GGUF file on the Hugging Face Hub (repository, file,
revision), what it weighs and its sha256 when known, its licence, and the
numbers the app needs before downloading it: the context length, the shape
that sizes the KV cache, and, for embedders, the dimension and the prefixes
the model card asks for.  Every fact in the shipped file comes from a public
source listed in the entry's ``sources``.

The file travels with the application (``data/`` in a checkout,
``desktop/_shipped/data`` inside a wheel).  A damaged file is refused whole
with a ``CatalogInvalid`` naming it, never half-loaded.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Annotated, Literal, Self
from urllib.parse import quote

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    model_validator,
)

from models.errors import ModelError
from models.gguf_info import ModelShape

CATALOG_FILE = "models_catalog.json"

# models/ never imports desktop/, so the shipped data folder is found the way
# desktop.core.base.paths.data_dir() finds it, relative to the installed packages.
_PACKAGES_ROOT = Path(__file__).resolve().parent.parent
_MAX_REPORTED_ERRORS = 5

ModelKind = Literal["chat", "embedding"]
NonEmpty = Annotated[str, StringConstraints(min_length=1)]
Sha256 = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
PositiveInt = Annotated[int, Field(gt=0)]


class CatalogInvalid(ModelError):
    """The catalog file is missing, unreadable, not JSON or not of the expected shape."""


class UnknownModel(ModelError):
    """No catalog entry has the asked-for id."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


class CatalogEntry(_Frozen):
    """One recommended model file and what is known about it."""

    id: Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9._-]*$")]
    name: NonEmpty
    kind: ModelKind
    repo: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*$")]
    # A path in the repository, each part a plain name: no control or
    # invisible character (a terminal runs one, a bidi override reorders the
    # name), no backslash (a folder's separator on Windows, not in the URL).
    file: Annotated[str, StringConstraints(pattern=r"^[^/\\\p{Cc}\p{Cf}][^\\\p{Cc}\p{Cf}]*\.gguf$")]
    revision: Annotated[str, StringConstraints(pattern=r"^[^\s]+$")]
    size: PositiveInt
    sha256: Sha256 | None
    license: NonEmpty
    license_url: Annotated[str, StringConstraints(pattern=r"^https://\S+$")]
    parameters: NonEmpty | None
    quantization: NonEmpty
    context_length: PositiveInt
    good_for: NonEmpty
    shape: ModelShape | None
    dimension: PositiveInt | None
    query_prefix: NonEmpty | None
    document_prefix: NonEmpty | None
    sources: Annotated[tuple[NonEmpty, ...], Field(min_length=1)]

    @model_validator(mode="after")
    def _fits_its_kind(self) -> Self:
        # The file name becomes a URL path and a local file name: no way out
        # of the repository or the models folder.
        if any(part in ("", ".", "..") for part in self.file.split("/")):
            raise ValueError(f"file {self.file!r} must be a plain path inside the repository")
        if self.kind == "embedding" and self.dimension is None:
            raise ValueError("an embedding model needs its dimension")
        if self.kind == "chat" and (
            self.dimension is not None
            or self.query_prefix is not None
            or self.document_prefix is not None
        ):
            raise ValueError("a chat model has no dimension or prefixes")
        return self

    def download_url(self, endpoint: str) -> str:
        """``{endpoint}/{repo}/resolve/{revision}/{file}``, every path part URL-quoted.

        *endpoint* is the Hub's base URL (``https://huggingface.co`` or a
        mirror); a trailing slash is ignored.  Folders inside the repository
        stay folders; the revision is one path segment, as the Hub expects.
        """
        owner, name = self.repo.split("/")
        path = "/".join(quote(part, safe="") for part in self.file.split("/"))
        return (
            f"{endpoint.rstrip('/')}/{quote(owner, safe='')}/{quote(name, safe='')}"
            f"/resolve/{quote(self.revision, safe='')}/{path}"
        )


class Catalog(_Frozen):
    """Every recommended model, in the order the file lists them."""

    version: Literal[1]
    models: Annotated[tuple[CatalogEntry, ...], Field(min_length=1)]

    @model_validator(mode="after")
    def _ids_are_unique(self) -> Self:
        for what, names in (
            ("model ids", [entry.id for entry in self.models]),
            # Each is downloaded into the one models folder by its name alone.
            ("file names", [Path(entry.file).name for entry in self.models]),
        ):
            counts = Counter(names)
            repeated = sorted(name for name, count in counts.items() if count > 1)
            if repeated:
                raise ValueError(f"{what} must be unique; repeated: {', '.join(repeated)}")
        return self

    @property
    def entries(self) -> tuple[CatalogEntry, ...]:
        return self.models

    def find(self, model_id: str) -> CatalogEntry | None:
        """The entry with *model_id*, if there is one."""
        return next((entry for entry in self.models if entry.id == model_id), None)

    def get(self, model_id: str) -> CatalogEntry:
        """The entry with *model_id*; ``UnknownModel`` lists the known ids otherwise."""
        if (entry := self.find(model_id)) is not None:
            return entry
        known = ", ".join(entry.id for entry in self.models)
        raise UnknownModel(f"No model {model_id!r} in the catalog; known models: {known}.")

    def chat_models(self) -> tuple[CatalogEntry, ...]:
        return tuple(entry for entry in self.models if entry.kind == "chat")

    def embedding_models(self) -> tuple[CatalogEntry, ...]:
        return tuple(entry for entry in self.models if entry.kind == "embedding")


def shipped_catalog_path(*, packages_root: Path = _PACKAGES_ROOT) -> Path:
    """The catalog shipped with Reverie: inside the wheel, else in the checkout.

    *packages_root* is the folder holding the ``models`` and ``desktop``
    packages (site-packages, or the checkout).
    """
    installed = packages_root / "desktop" / "_shipped" / "data" / CATALOG_FILE
    if installed.is_file():
        return installed
    return packages_root / "data" / CATALOG_FILE


def load_catalog(path: Path | None = None) -> Catalog:
    """Read and check the catalog at *path* (default: the shipped one)."""
    path = shipped_catalog_path() if path is None else path
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise CatalogInvalid(f"Cannot read the model catalog {path}: {error.strerror}.") from error
    try:
        return Catalog.model_validate_json(raw)
    except ValidationError as error:
        raise CatalogInvalid(f"The model catalog {path} is damaged: {_describe(error)}") from error


def _describe(error: ValidationError) -> str:
    """The first few problems, each as ``where: what``, on one line."""
    problems = error.errors(include_url=False, include_input=False)
    described = [
        f"{'.'.join(str(part) for part in problem['loc']) or 'file'}: {problem['msg']}"
        for problem in problems[:_MAX_REPORTED_ERRORS]
    ]
    more = len(problems) - _MAX_REPORTED_ERRORS
    if more > 0:
        described.append(f"and {more} more")
    return "; ".join(described) + "."
