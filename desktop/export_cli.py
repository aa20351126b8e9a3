"""``reverie export FILE``: everything in Reverie written to one archive.

The archive (``desktop.core.transfer.archive``) holds the conversations,
memories with their history, tasks, skills, the dreams' records, the
background workers and the settings (never a secret: those stay in the
system keyring).  An existing file is left alone unless ``--force``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from desktop.cli_args import path_of
from desktop.core.base.errors import EnvironmentProblem
from desktop.core.base.paths import AppPaths
from desktop.core.db import Database, DiskFull, open_as_it_is, open_database
from desktop.core.transfer.archive import SUFFIX, ArchiveExists, check_target, export_archive
from desktop.core.transfer.imports import exported_text


def add_parser(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``export`` command."""
    export = subcommands.add_parser(
        "export", help="write everything (conversations, memories, settings...) to one file"
    )
    export.add_argument(
        "file",
        type=path_of("the path of the archive to write"),
        help=f"the archive to write (e.g. reverie{SUFFIX})",
    )
    export.add_argument("--force", action="store_true", help="replace the file if it exists")


def run(
    args: argparse.Namespace, paths: AppPaths, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    """Run ``reverie export FILE``; the exit status."""
    out, err = out or sys.stdout, err or sys.stderr
    target: Path = args.file
    if not paths.database_file.exists():
        print(f"Reverie: there is no Reverie data in {paths.data_dir} to export.", file=err)
        return 1
    try:  # before the database is opened (and migrated)
        check_target(paths, target, overwrite=args.force)
    except ArchiveExists as exists:
        print(f"Reverie: {exists} Use --force to replace it.", file=err)
        return 1
    except EnvironmentProblem as problem:
        print(f"Reverie: {problem}", file=err)
        return 1
    try:
        database = _opened(paths.database_file)
        try:
            summary = export_archive(database, paths, target, overwrite=args.force)
        finally:
            database.close()
    except EnvironmentProblem as problem:
        print(f"Reverie: {problem}", file=err)
        return 1
    except KeyboardInterrupt:  # Ctrl+C: the archive is written whole or not at all
        print(f"\nStopped; nothing was written to {target}.", file=err)
        return 130
    print(exported_text(summary), file=out)
    return 0


def _opened(path: Path) -> Database:
    """The database at *path*; on a full disk, where it cannot be opened to
    write (SQLite cannot make its log's index), as the file holds it: an
    export only reads, and may be what frees the space (to another disk)."""
    try:
        return open_database(path)
    except DiskFull as full:
        try:
            return open_as_it_is(path)
        except EnvironmentProblem:
            raise full from None
