"""``reverie import FILE [--preview] [--without-learning]``: a Reverie
archive (``reverie export``), or conversation histories from other
assistants, for scripts and headless machines.

FILE is a Reverie archive, or a ChatGPT or Claude data export: the .zip it
came in, the folder it was unpacked into, or its ``conversations.json``.  ``--preview`` says
what would be added, what is already there and what would be skipped, and
imports nothing; ``--without-learning`` imports the conversations without
Reverie learning memories from them.  Progress is printed as it goes; Ctrl+C
stops between two conversations, keeping those imported.

Exit status: 0 when something was imported (with ``--preview``: would be),
1 when nothing was (the file refused, everything already there or empty),
2 for a usage error (argparse's).
"""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path
from typing import TextIO

from desktop.cli_args import path_of
from desktop.core.base.errors import EnvironmentProblem
from desktop.core.base.paths import AppPaths
from desktop.core.db import ConversationStore, open_database
from desktop.core.privacy.redaction import Redactor
from desktop.core.transfer.foreign import ExportRefused, counted
from desktop.core.transfer.history import (
    HistoryImporter,
    ImportPreview,
    ImportResult,
    Skipped,
)
from desktop.core.transfer.imports import Imports, is_archive
from desktop.core.transfer.progress import PlainState
from models.model_file import shown_path, shown_text

PROGRESS_STEPS = 20
"""About how many progress lines an import prints.  Every text of the
export printed goes through ``shown_text``: a title holding ESC sequences
must not drive the terminal."""


def add_parser(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``import`` command."""
    command = subcommands.add_parser(
        "import", help="import a Reverie archive, or conversations from a ChatGPT or Claude export"
    )
    command.add_argument(
        "file",
        type=path_of("the path of an export"),
        help="a Reverie archive, or the export's .zip, its folder or its conversations.json",
    )
    command.add_argument(
        "--preview", action="store_true", help="say what would be imported; import nothing"
    )
    command.add_argument(
        "--without-learning",
        action="store_true",
        help="keep the conversations without Reverie learning memories from them",
    )


def run(args: argparse.Namespace, paths: AppPaths, out: TextIO | None = None) -> int:
    """Run ``reverie import`` (printing to *out*, default stdout); the exit status."""
    out = out or sys.stdout
    try:
        paths.ensure()
        database = open_database(paths.database_file)
    except (EnvironmentProblem, OSError) as error:
        print(f"Reverie: conversations are unavailable: {error}", file=sys.stderr)
        return 1
    with database:
        if is_archive(args.file):
            return _import_archive(Imports(database, paths, Redactor()), args, out)
        importer = HistoryImporter(ConversationStore(database), Redactor())
        try:
            if args.preview:
                preview = importer.preview(args.file)
                _print_preview(preview, out)
                return 0 if preview.new else 1
            result = _run_stoppable(importer, args.file, not args.without_learning, out)
        except ExportRefused as error:
            print(f"Reverie: {shown_text(str(error), limit=sys.maxsize)}", file=sys.stderr)
            return 1
    _print_result(result, out)
    return 0 if result.succeeded else 1


def _import_archive(imports: Imports, args: argparse.Namespace, out: TextIO) -> int:
    """A Reverie archive: all of it goes in, or nothing does (Ctrl+C too)."""
    try:
        if args.preview:
            plan = imports.preview(args.file)
            lines, added = plan.lines, plan.adds
        else:
            state = PlainState(_ProgressPrinter(out, "rows"))
            outcome = imports.run(args.file, learn=True, state=state)
            lines, added = outcome.lines, outcome.imported
    except EnvironmentProblem as error:
        print(f"Reverie: {shown_text(str(error), limit=sys.maxsize)}", file=sys.stderr)
        return 1
    for line in lines:
        print(shown_text(line, limit=sys.maxsize), file=out)
    return 0 if added else 1


def _run_stoppable(importer: HistoryImporter, path: Path, learn: bool, out: TextIO) -> ImportResult:
    """The import, on a thread of its own so that Ctrl+C here cancels it
    between two conversations instead of breaking into one."""
    printer = _ProgressPrinter(out)
    state = PlainState(printer)
    outcome: list[ImportResult | BaseException] = []

    def work() -> None:
        try:
            outcome.append(importer.run(path, learn, state))
        except BaseException as error:  # handed to the main thread, raised there
            outcome.append(error)

    worker = threading.Thread(target=work, name="import")
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.2)
    except KeyboardInterrupt:
        print("Stopping after the conversation being imported...", file=out, flush=True)
        state.cancel()
        worker.join()
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return outcome[0]


class _ProgressPrinter:
    def __init__(self, out: TextIO, unit: str = "conversations") -> None:
        self._out = out
        self._unit = unit
        self._printed = -1

    def __call__(self, done: int, total: int) -> None:
        step = max(1, total // PROGRESS_STEPS)
        if done != self._printed and (done % step == 0 or done == total):
            self._printed = done
            print(f"Imported {done} of {total} {self._unit}", file=self._out, flush=True)


def _print_preview(preview: ImportPreview, out: TextIO) -> None:
    print(f"{shown_path(preview.path)} is a {preview.source_name} export.", file=out)
    conversations = counted(len(preview.new), "conversation", "conversations")
    messages = counted(preview.new_messages, "message", "messages")
    print(f"Would import {conversations} ({messages}).", file=out)
    for planned in preview.new:
        print(_added(planned.title, planned.messages, planned.left_out), file=out)
    _print_skipped("Already there", preview.already, out)
    _print_skipped("Would skip", preview.skipped, out)


def _print_result(result: ImportResult, out: TextIO) -> None:
    for imported in result.imported:
        print(_added(imported.title, imported.messages, imported.left_out), file=out)
    _print_skipped("Skipped", result.skipped, out)
    _print_skipped("Failed", result.failed, out)
    print(result.summary(), file=out)
    if not result.succeeded:
        print("Nothing was imported.", file=out)


def _added(title: str, messages: int, left_out: tuple[str, ...]) -> str:
    """ "  + Tomatoes (2 messages; left out: 1 attachment)": a conversation added."""
    left = f"; left out: {', '.join(left_out)}" if left_out else ""
    return f"  + {shown_text(title)} ({counted(messages, 'message', 'messages')}{left})"


def _print_skipped(heading: str, skipped: tuple[Skipped, ...], out: TextIO) -> None:
    if skipped:
        print(f"{heading}: {len(skipped)}", file=out)
    for item in skipped:
        title = shown_text(item.title) or "(untitled)"
        print(f"  - {title}: {shown_text(item.reason, limit=sys.maxsize)}", file=out)
