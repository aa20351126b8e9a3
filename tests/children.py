"""Child processes the kill tests start, run up to a point, and kill."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
READY_S = 120.0
"""How long a child may take to import Reverie and say it is ready."""


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
