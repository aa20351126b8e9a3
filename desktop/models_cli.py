"""``reverie models ...``: the model manager for scripts and headless machines.

``list`` (the catalog and the installed models, with sizes and memory
estimates), ``download ID``, ``add PATH``, ``estimate PATH [--context N]`` and
``use (ID | PATH | --server URL --model NAME) [--role ROLE]``, which writes the
settings the app reads (a running app keeps them when it saves its own
settings, and picks them up on its next start).  An API key for a server comes from
``REVERIE_API_KEY`` or, with ``--ask-key``, from a prompt, and goes only to
the system keyring; without either, none is used and nothing waits for input.
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from pydantic import ValidationError

from desktop.cli_args import not_blank, path_of
from desktop.core.backends.library import (
    EMBEDDED,
    ModelLibrary,
    ModelOption,
    catalog_estimate,
    file_ref,
    is_path,
    model_path,
)
from desktop.core.backends.roles import api_key_name, forget_unused_keys
from desktop.core.base.errors import EnvironmentProblem
from desktop.core.base.paths import AppPaths
from desktop.core.base.secrets import SecretStore, SecretsUnavailable
from desktop.core.base.settings import (
    Backend,
    ModelSettings,
    Settings,
    load_settings,
    save_settings,
)
from desktop.core.base.text import duration_text, size_text
from models.catalog import UnknownModel, load_catalog
from models.download import Downloader, DownloadProgress, DownloadState
from models.errors import DownloadPaused, ModelError
from models.gguf_file import check_loadable
from models.gguf_info import read_gguf_info
from models.memory_estimate import (
    MemoryEstimate,
    available_memory,
    estimate_embedder_memory,
    estimate_memory,
    fits,
)
from models.model_file import resolved_model_file, shown_path
from models.server_http import DIALECTS, api_key_problem

API_KEY_VARIABLE = "REVERIE_API_KEY"
ROLES = ("chat", "background", "embeddings")
_FIT_WORDS = {"fits": "fits", "tight": "tight: close the big apps first", "too_big": "too big"}


def add_parser(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``models`` command and its subcommands."""
    models = subcommands.add_parser("models", help="list, download, add and choose models")
    actions = models.add_subparsers(dest="action", required=True, metavar="ACTION")
    actions.add_parser("list", help="the catalog and the installed models")
    download = actions.add_parser("download", help="download a catalog model")
    download.add_argument("id", help="the catalog id (see: reverie models list)")
    add = actions.add_parser("add", help="add a GGUF file you have")
    add.add_argument("path", type=path_of("the path of a .gguf file"))
    estimate = actions.add_parser("estimate", help="the memory a model needs")
    estimate.add_argument(
        "path",
        type=not_blank("the path of a .gguf file, or a catalog id"),
        help="a .gguf file, or a catalog id",
    )
    estimate.add_argument("--context", type=_context, default=None, help="tokens of context")
    use = actions.add_parser("use", help="choose the model of a role")
    use.add_argument("model", nargs="?", help="a catalog id or a .gguf path")
    use.add_argument("--role", choices=ROLES, default="chat")
    use.add_argument("--server", metavar="URL", help="an OpenAI-compatible server's base URL")
    use.add_argument("--model", dest="server_model", metavar="NAME", help="the server's model")
    use.add_argument("--dialect", choices=DIALECTS, default="auto")
    use.add_argument("--ask-key", action="store_true", help="ask for the server's API key")


def _context(text: str) -> int:
    """A ``--context`` value: the bounds of ``models.context_length``."""
    bounds = ModelSettings.model_fields["context_length"].metadata
    low = next(b.ge for b in bounds if hasattr(b, "ge"))
    high = next(b.le for b in bounds if hasattr(b, "le"))
    try:
        value = int(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of tokens") from error
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(f"a context is from {low} to {high} tokens")
    return value


def run(args: argparse.Namespace, paths: AppPaths, out: TextIO | None = None) -> int:
    """Run ``reverie models ACTION`` (printing to *out*, default stdout); the exit status."""
    out = out or sys.stdout
    settings, problem = load_settings(paths.settings_file)
    if problem is not None:
        print(f"problem: {problem}", file=sys.stderr)
    library = ModelLibrary(paths.models_dir, load_catalog())
    commands: dict[str, Callable[[], int]] = {
        "list": lambda: _list(library, settings, out),
        "download": lambda: _download(library, settings, args.id, out),
        "add": lambda: _add(library, settings, args.path, paths, out),
        "estimate": lambda: _estimate(
            library, args.path, args.context or settings.models.context_length, out
        ),
        "use": lambda: _use(args, library, settings, paths, out),
    }
    try:
        return commands[args.action]()
    except (ModelError, EnvironmentProblem) as error:
        print(f"reverie: {error}", file=sys.stderr)
        return 1


# -- list --------------------------------------------------------------------
def _list(library: ModelLibrary, settings: Settings, out: TextIO) -> int:
    context = settings.models.context_length
    available = available_memory()
    print(f"Memory available now: {size_text(available)}; estimates at {context} tokens.", file=out)
    in_use = _roles_using(settings)
    # A file a role uses is listed though never added (``use PATH`` does not add it).
    files = [*settings.models.added, *(ref for _, ref in in_use if is_path(ref))]
    for kind in ("chat", "embedding"):
        print(f"\n{kind.capitalize()} models:", file=out)
        for option in library.options(files, context):
            if option.kind == kind:
                roles = in_use.get((kind, option.ref), "")
                print(_row(option, available, roles), file=out)
    return 0


def _row(option: ModelOption, available: int, roles: str) -> str:
    state = (
        f"problem: {option.problem}"
        if option.problem
        else "installed"
        if option.installed
        else "made from its package on the first start"
        if option.source == "embedded"
        else f"{size_text(option.partial)} downloaded, resumable"
        if option.partial
        else "not downloaded"
    )
    size = size_text(option.size) if option.size else "?"
    need = _need(option.estimate, available)
    used = f"  [{roles}]" if roles else ""
    return f"  {shown_path(option.ref):<28} {option.name:<36} {size:>9}  {need:<30} {state}{used}"


def _need(estimate: MemoryEstimate | None, available: int) -> str:
    if estimate is None:
        return "needs: unknown"
    return f"needs {size_text(estimate.total)} ({_FIT_WORDS[fits(estimate, available)]})"


def _roles_using(settings: Settings) -> dict[tuple[str, str], str]:
    """Which roles use each local model, by its kind and ref (the embedded
    ones: "embedded"; a file: its option's ``file_ref``)."""
    used: dict[tuple[str, str], list[str]] = {}
    models = settings.models
    for role, kind, backends in (
        ("chat", "chat", models.chat),
        ("background", "chat", models.background or models.chat),
        ("embeddings", "embedding", (models.embeddings,)),
    ):
        for backend in backends:
            if backend.kind == "server":
                continue
            ref = file_ref(backend.model) if is_path(backend.model) else backend.model or EMBEDDED
            used.setdefault((kind, ref), []).append(role)
    return {key: ", ".join(roles) for key, roles in used.items()}


# -- download ------------------------------------------------------------------
def _download(library: ModelLibrary, settings: Settings, model_id: str, out: TextIO) -> int:
    entry = library.catalog.get(model_id)
    target = library.file_of(entry)
    if library.catalog_option(entry, settings.models.context_length).installed:
        print(f"{entry.name} is already downloaded: {target}", file=out)
        return 0
    print(f"Downloading {entry.name} ({size_text(entry.size)}) to {target}", file=out)
    state = DownloadState(lambda progress: _progress(progress, out))
    downloader = Downloader()
    try:
        path = library.download(
            entry, state, endpoint=settings.models.hub_endpoint, downloader=downloader
        )
    except KeyboardInterrupt:
        # Ctrl+C lands here on the main thread: the part is kept to resume.
        print("\nStopped; run the same command again to resume.", file=out)
        return 130
    except DownloadPaused:
        print("\nPaused; run the same command again to resume.", file=out)
        return 130
    finally:
        downloader.close()
    print(f"\nDone, checked: {path}", file=out)
    return 0


def _progress(progress: DownloadProgress, out: TextIO) -> None:
    done = f"{size_text(progress.received)}"
    if progress.total:
        done += f" of {size_text(progress.total)} ({100 * progress.received / progress.total:.0f}%)"
    speed = f", {size_text(int(progress.bytes_per_second))}/s" if progress.bytes_per_second else ""
    left = f", {duration_text(progress.seconds_left)} left" if progress.seconds_left else ""
    out.write(f"\r  {done}{speed}{left}   ")
    out.flush()


# -- add and estimate -------------------------------------------------------------
def _add(
    library: ModelLibrary, settings: Settings, path: Path, paths: AppPaths, out: TextIO
) -> int:
    path = resolved_model_file(model_path(path))
    _backend(kind="local", model=str(path))  # what ``use`` takes, ``add`` takes
    option = library.added_option(path, settings.models.context_length)
    if option.problem is not None:
        print(f"reverie: {option.problem}", file=sys.stderr)
        return 1
    check_loadable(path)
    shown = shown_path(path)  # a name holding escapes is not a terminal's command
    if any(file_ref(listed) == option.ref for listed in settings.models.added):
        print(f"Already on the list: {option.name} ({option.kind} model): {shown}", file=out)
    else:
        models = settings.models.model_copy(update={"added": (*settings.models.added, str(path))})
        # since: over the file as it is now (another command or the app may have written it)
        save_settings(
            settings.model_copy(update={"models": models}), paths.settings_file, since=settings
        )
        print(f"Added {option.name} ({option.kind} model): {shown}", file=out)
    print(f"  {_need(option.estimate, available_memory())}", file=out)
    print(f"  Use it with: reverie models use {shown}", file=out)
    return 0


def _estimate(library: ModelLibrary, ref: str, context: int, out: TextIO) -> int:
    entry = None if is_path(ref) else library.catalog.find(ref)
    if entry is not None:  # before it is downloaded: from the catalog's numbers
        estimate = catalog_estimate(entry, context)
        if estimate is None:
            raise _UsageError(f"the catalog has no shape for {entry.name} to estimate from")
        print(f"{entry.name}: {entry.kind} model from the catalog ({entry.quantization})", file=out)
        return _print_estimate(estimate, out)
    path = model_path(ref)
    info = read_gguf_info(path)  # its texts come with escapes made visible
    name = shown_path(path.name)
    if info.is_embedding:
        estimate = estimate_embedder_memory(info.tensor_bytes, info.shape)
        print(f"{name}: an embedding model ({info.architecture}, {info.quantization})", file=out)
    else:
        estimate = estimate_memory(info.tensor_bytes, info.shape, context)
        print(
            f"{name}: a chat model ({info.architecture}, {info.size_label}, "
            f"{info.quantization}), trained for {info.context_length} tokens",
            file=out,
        )
    return _print_estimate(estimate, out)


def _print_estimate(estimate: MemoryEstimate, out: TextIO) -> int:
    print(f"  weights        {size_text(estimate.weights):>10}", file=out)
    print(
        f"  KV cache       {size_text(estimate.kv_cache):>10}  ({estimate.context} tokens)",
        file=out,
    )
    print(f"  compute        {size_text(estimate.compute + estimate.overhead):>10}", file=out)
    print(f"  total          {size_text(estimate.total):>10}", file=out)
    available = available_memory()
    verdict = _FIT_WORDS[fits(estimate, available)]
    print(f"  available now  {size_text(available):>10}  ({verdict})", file=out)
    return 0


# -- use -----------------------------------------------------------------------------
def _use(
    args: argparse.Namespace,
    library: ModelLibrary,
    settings: Settings,
    paths: AppPaths,
    out: TextIO,
) -> int:
    backend = _chosen_backend(args, library, settings)
    if backend.kind == "server":
        _store_key(backend.url, args.ask_key)
    models = settings.models
    update: dict[str, object] = (
        {"embeddings": backend} if args.role == "embeddings" else {args.role: (backend,)}
    )
    written = save_settings(
        settings.model_copy(update={"models": models.model_copy(update=update)}),
        paths.settings_file,
        since=settings,  # only this role is written over the file as it is now
    )
    print(f"The {args.role} role now uses {_describe(backend, library)}.", file=out)
    try:
        forget_unused_keys(SecretStore(), models, written.models)  # a key kept for nothing goes
    except SecretsUnavailable as error:  # the role is switched all the same
        print(f"note: an API key no role uses stays: {error}", file=sys.stderr)
    return 0


def _backend(**fields: Any) -> Backend:
    """A role's backend of *fields*, or ``_UsageError`` saying why it cannot be one."""
    try:
        return Backend(**fields)
    except ValidationError as error:
        reason = str(error.errors(include_url=False)[0]["msg"]).removeprefix("Value error, ")
        raise _UsageError(reason) from error


def _chosen_backend(args: argparse.Namespace, library: ModelLibrary, settings: Settings) -> Backend:
    kind = "embedding" if args.role == "embeddings" else "chat"
    if args.server or args.server_model:
        if args.model or not (args.server and args.server_model):
            raise _UsageError("give either a model, or --server URL with --model NAME")
        return _backend(
            kind="server", url=args.server, model=args.server_model, dialect=args.dialect
        )
    if not args.model:
        raise _UsageError("give a catalog id, a .gguf path, or --server URL --model NAME")
    if args.model == EMBEDDED:
        return Backend()
    if is_path(args.model):
        path = resolved_model_file(model_path(args.model))
        option = library.added_option(path, settings.models.context_length)
        if option.problem is not None:
            raise _UsageError(option.problem)
        check_loadable(path)
        _check_kind(option.kind, kind, option.name)
        return _backend(kind="local", model=str(path))
    try:
        entry = library.catalog.get(args.model)
    except UnknownModel as error:
        raise _UsageError(str(error)) from error
    _check_kind(entry.kind, kind, entry.name)
    if not library.catalog_option(entry, settings.models.context_length).installed:
        print(
            f"note: {entry.name} is not downloaded yet: reverie models download {entry.id}",
            file=sys.stderr,
        )
    return Backend(kind="local", model=entry.id)


def _check_kind(found: str, wanted: str, name: str) -> None:
    if found != wanted:
        raise _UsageError(
            f"{name} is {'an' if found == 'embedding' else 'a'} {found} model, "
            f"not {'an' if wanted == 'embedding' else 'a'} {wanted} model"
        )


def _store_key(url: str, ask: bool) -> None:
    """The server's API key from the environment or a prompt, into the keyring;
    a key that cannot be one is refused here, never quoted."""
    key, where = os.environ.get(API_KEY_VARIABLE, ""), f"in {API_KEY_VARIABLE}"
    if not key and ask:
        if sys.stdin is None or not sys.stdin.isatty():  # it would echo, or wait for nothing
            raise _UsageError(f"no terminal to ask for the key on: set {API_KEY_VARIABLE}")
        key, where = getpass.getpass(f"API key for {url}: "), "typed"
    key = key.strip()
    if problem := api_key_problem(key):
        raise _UsageError(f"the API key {where} {problem}: give it again as plain text")
    if key:
        SecretStore().set(api_key_name(url), key)


def _describe(backend: Backend, library: ModelLibrary) -> str:
    if backend.kind == "server":
        return f"{backend.model} at {backend.url}"
    if backend.kind == "embedded":
        return "the embedded model"
    return library.name_of(backend.model)


class _UsageError(ModelError):
    """The command line asks for something that cannot be done."""
