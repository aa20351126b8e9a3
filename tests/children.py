"""Child processes the kill tests start, run up to a point, and kill."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop.core.db import Database

ROOT = Path(__file__).resolve().parents[1]
READY_S = 120.0
"""How long a child may take to import Reverie and say it is ready."""


def run_child(module: str, *arguments: object) -> subprocess.CompletedProcess[str]:
    """``python -m *module* *arguments*`` from the checkout, to its end or its kill."""
    return subprocess.run(
        [sys.executable, "-m", module, *map(str, arguments)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=READY_S,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def killed_in_copy(base: Path, copy: Path, module: str, *arguments: object, kill_at: str) -> None:
    """*base* copied to *copy* (its folder made), then *module* run over the
    copy with *arguments* and *kill_at* after it: it must die of SIGKILL there."""
    copy.parent.mkdir()
    shutil.copy(base, copy)
    killed = run_child(module, copy, *arguments, kill_at)
    assert killed.returncode == -signal.SIGKILL, f"statement {kill_at}: {killed.stderr}"


def start_ready(arguments: Sequence[str], what: str) -> subprocess.Popen[str]:
    """``python *arguments*`` from the checkout, once it printed "ready";
    an ``AssertionError`` naming *what* if it did not."""
    child = subprocess.Popen(
        [sys.executable, *arguments],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert child.stdout is not None
    ready = child.stdout.readline()
    if ready != "ready\n":
        child.kill()
        child.wait(READY_S)
        raise AssertionError(f"the {what} child did not start: {ready!r}")
    return child


class Statements:
    """The SQL statements this process sends its databases, once ``install``ed:
    counted, those sent inside a transaction and the COMMITs noted, and the
    process killed (SIGKILL, nothing cleaned up) just before the *kill_at*-th
    (never, with "0"), or just after it with "+" ("94+": once COMMIT returned,
    before the next statement), so a test chooses exactly where a piece of
    work dies."""

    def __init__(self, kill_at: str) -> None:
        self.kill_after = kill_at.endswith("+")
        self.kill_at = int(kill_at.removesuffix("+"))
        self.count = 0
        self.inside: list[int] = []
        """The statements sent inside a transaction (where a kill hurts most)."""
        self.commits: list[int] = []

    def install(self) -> None:
        # Every statement, BEGIN and COMMIT included, passes one of these two.
        for name in ("_execute", "_fetch"):
            setattr(Database, name, self._counting(getattr(Database, name)))

    def said(self) -> None:
        """Print the counts, a line each, for the test to read (``heard``)."""
        print(f"statements {self.count}", flush=True)
        print("in transactions", *self.inside, flush=True)
        print("commits", *self.commits, flush=True)

    def _counting(self, method: Callable[..., Any]) -> Callable[..., Any]:
        def counted(database: Database, sql: str, *args: Any, **kwargs: Any) -> Any:
            self.count += 1
            if database._in_transaction:
                self.inside.append(self.count)
            if sql == "COMMIT":
                self.commits.append(self.count)
            if self.count == self.kill_at and not self.kill_after:
                os.kill(os.getpid(), signal.SIGKILL)
            result = method(database, sql, *args, **kwargs)
            if self.count == self.kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
            return result

        return counted


@dataclass(frozen=True)
class Heard:
    """What a ``Statements`` child said of its statements."""

    count: int
    inside: list[int]
    commits: list[int]


def heard(stdout: str) -> Heard:
    """The counts a child's ``Statements.said`` printed last in *stdout*."""
    counted, inside, commits = stdout.splitlines()[-3:]
    return Heard(
        int(counted.split()[-1]),
        [int(n) for n in inside.split()[2:]],
        [int(n) for n in commits.split()[1:]],
    )
