"""History import benchmark: how fast a ChatGPT export goes in, against the
redaction it cannot skip, and whether its memory grows with the export; and
whether a Reverie archive's import grows with the archive.

    python -m tests.bench.transfer [--conversations 100] [--messages 10] [--json out.json]
    python -m tests.bench.transfer --archive 1000 10000 50000

A ChatGPT export (a zip, as the user downloads it) of generated
conversations is imported into a fresh data folder (without learning: the
harvest is the model's work, not the import's), in a child process per run
so each has its own peak memory.  Side by side in one run:

- **import / redaction alone**: the import's time over the time the
  redactor takes on the same messages (every message is redacted, as one
  typed in a chat is): what the importer adds beyond the work it must do.
- **peak memory, export twice as long**: the import's growth of resident
  memory for an export of N and of 2N conversations; an import that reads
  conversation by conversation grows by about the same.

Rounds alternate the sides; each figure is the median.

With ``--archive ROWS...``: for each count, a Reverie archive of a data
folder holding that many messages (of about 340 characters, in one
conversation) is imported into a fresh folder, in a child process of its
own, and the growth of resident memory during the import (``run``) is
printed; then the same archive is imported into the folder it was made
of (every message is there already: what a second import holds to find
them).  The messages are passed through as they are, not redacted: the
redactor's time is the first part's figure; this one is what the import
holds.  Not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from desktop.core.db import open_database
from desktop.core.privacy.redaction import Redacted, Redactor
from desktop.core.transfer.archive import export_archive
from desktop.core.transfer.archive_import import run
from desktop.core.transfer.imports import Imports
from desktop.core.transfer.progress import PlainState
from tests.unit.core.transfer.archive_world import folder
from tests.unit.core.transfer.exports import chatgpt, node, write_zip
from tests.unit.core.transfer.test_archive_round26 import _fill

WORDS = [
    "garden",
    "tulips",
    "autumn",
    "frost",
    "soil",
    "compost",
    "seeds",
    "spring",
    "water",
    "shade",
    "sun",
    "neighbour",
    "recipe",
    "oven",
    "flour",
    "butter",
    "sugar",
    "bake",
    "bread",
    "dough",
    "weekend",
    "trip",
    "train",
    "ticket",
    "hotel",
    "museum",
    "meeting",
    "project",
    "deadline",
    "report",
    "budget",
    "sister",
    "brother",
    "birthday",
    "present",
    "running",
    "knee",
    "doctor",
    "appointment",
    "book",
    "chapter",
    "novel",
    "piano",
    "lesson",
]


def _sentence(rng: random.Random) -> str:
    words = rng.choices(WORDS, k=rng.randint(8, 30))
    return " ".join(words).capitalize() + "."


def _messages(conversations: int, per: int, seed: int = 7) -> list[list[str]]:
    rng = random.Random(seed)
    return [
        [" ".join(_sentence(rng) for _ in range(rng.randint(1, 3))) for _ in range(per)]
        for _ in range(conversations)
    ]


def write_export(path: Path, texts: list[list[str]]) -> Path:
    items: list[object] = []
    for number, said in enumerate(texts):
        nodes = [node("root", None, parent=None)]
        parent = "root"
        for turn, text in enumerate(said):
            role = "user" if turn % 2 == 0 else "assistant"
            moment = 1_700_000_000.0 + 60 * turn
            nodes.append(node(f"n{turn}", role, [text], parent=parent, create_time=moment))
            parent = f"n{turn}"
        items.append(chatgpt(f"c{number}", f"Conversation {number}", nodes, parent))
    return write_zip(path, {"conversations.json": items})


class _PeakMemory:
    """The most resident memory grew by while inside, over what it was on
    entering (sampled every 5 ms: ru_maxrss keeps the warm-up's peak)."""

    def __init__(self) -> None:
        self.grew_kib = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, name="peak-memory")

    def __enter__(self) -> _PeakMemory:
        self._base = _resident_kib()
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        while not self._stop.wait(0.005):
            self.grew_kib = max(self.grew_kib, _resident_kib() - self._base)


def _resident_kib() -> float:
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * resource.getpagesize() / 1024


def _warm_up(redactor: Redactor) -> None:
    """Load the redactor's word lists (once per process) before timing."""
    redactor("my wifi password at the cabin is hunter2", after=["warm up"])
    redactor.text("The door code is 4821.")


def _import_once(export: Path) -> dict[str, float]:
    """Child: import *export* into a fresh folder; its time and memory growth."""
    with tempfile.TemporaryDirectory() as root:
        paths = folder(Path(root))
        database = open_database(paths.database_file)
        imports = Imports(database, paths, Redactor())
        _warm_up(Redactor())
        with _PeakMemory() as peak:
            start = time.perf_counter()
            outcome = imports.run(export, learn=False, state=PlainState())
            seconds = time.perf_counter() - start
        database.close()
    assert outcome.imported
    return {"seconds": seconds, "grew_kib": peak.grew_kib}


class _PassThrough(Redactor):
    """A redactor that changes nothing (``--archive`` measures the import's memory)."""

    def __call__(self, text: str, *, after: Iterable[str] = ()) -> Redacted:
        return Redacted(text, ())

    def text(self, text: str) -> str:
        return text


def _archive_of(root: Path, messages: int) -> Path:
    """A Reverie archive of a data folder holding *messages* messages."""
    paths = folder(root)
    database = open_database(paths.database_file)
    try:
        _fill(database, messages)
        return export_archive(database, paths, root / "all.reverie.zip").path
    finally:
        database.close()


def _archive_import_once(archive: Path, into: Path | None = None) -> dict[str, float]:
    """Child: import the Reverie *archive* into a fresh folder, or the
    folder *into* (the one it was made of: every row is there already);
    its time and memory growth."""
    with tempfile.TemporaryDirectory() as root:
        paths = folder(into or Path(root))
        database = open_database(paths.database_file)
        with _PeakMemory() as peak:
            start = time.perf_counter()
            result = run(archive, database, paths, PlainState(), redactor=_PassThrough())
            seconds = time.perf_counter() - start
        database.close()
    return {"seconds": seconds, "grew_kib": peak.grew_kib, "added": result.added("messages")}


def _archives(counts: list[int]) -> int:
    with tempfile.TemporaryDirectory() as root:
        for count in counts:
            archive = _archive_of(Path(root) / str(count), count)
            for mode in ("archive", "archive-again"):
                found = _child(mode, str(archive))
                print(
                    f"messages {count}, {mode}: imported {found['added']:.0f} "
                    f"in {found['seconds']:.1f} s, "
                    f"resident memory grew by {found['grew_kib'] / 1024:.1f} MiB",
                    flush=True,
                )
    return 0


def _redact_once(texts: list[list[str]]) -> float:
    redactor = Redactor()
    _warm_up(redactor)
    start = time.perf_counter()
    for said in texts:
        for turn, text in enumerate(said):
            if turn % 2 == 0:
                # as a typed message is: after the user's last and the last message
                redactor(text, after=said[max(0, turn - 2) : turn])
            else:
                redactor.text(text)
    return time.perf_counter() - start


def _child(mode: str, argument: str) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-m", "tests.bench.transfer", "--child", mode, argument],
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, float] = json.loads(done.stdout.splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--conversations", type=int, default=100)
    parser.add_argument("--messages", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--archive", type=int, nargs="+", metavar="ROWS")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.archive:
        return _archives(args.archive)
    if args.child:
        mode, argument = args.child
        if mode == "import":
            print(json.dumps(_import_once(Path(argument))))
        elif mode == "archive":
            print(json.dumps(_archive_import_once(Path(argument))))
        elif mode == "archive-again":  # into the folder it was made of, beside it
            print(json.dumps(_archive_import_once(Path(argument), Path(argument).parent)))
        else:
            texts = json.loads(Path(argument).read_text(encoding="utf-8"))
            print(json.dumps({"seconds": _redact_once(texts)}))
        return 0

    with tempfile.TemporaryDirectory() as root:
        folder_ = Path(root)
        small = _messages(args.conversations, args.messages)
        large = _messages(2 * args.conversations, args.messages, seed=8)
        exports = {
            "N": write_export(folder_ / "n.zip", small),
            "2N": write_export(folder_ / "2n.zip", large),
        }
        texts = folder_ / "texts.json"
        texts.write_text(json.dumps(small), encoding="utf-8")
        runs: dict[str, list[dict[str, float]]] = {"N": [], "2N": [], "redact": []}
        for _ in range(args.rounds):
            runs["N"].append(_child("import", str(exports["N"])))
            runs["redact"].append(_child("redact", str(texts)))
            runs["2N"].append(_child("import", str(exports["2N"])))

    def median(side: str, key: str) -> float:
        return statistics.median(run[key] for run in runs[side])

    messages = args.conversations * args.messages
    report: dict[str, Any] = {
        "conversations": args.conversations,
        "messages": messages,
        "import_s": median("N", "seconds"),
        "redact_s": median("redact", "seconds"),
        "import_2n_s": median("2N", "seconds"),
        "grew_kib": median("N", "grew_kib"),
        "grew_2n_kib": median("2N", "grew_kib"),
    }
    report["messages_per_s"] = messages / report["import_s"]
    report["import_over_redaction"] = report["import_s"] / report["redact_s"]
    report["time_2n_over_n"] = report["import_2n_s"] / report["import_s"]
    for key, value in report.items():
        print(f"{key}: {value:.3f}" if isinstance(value, float) else f"{key}: {value}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
