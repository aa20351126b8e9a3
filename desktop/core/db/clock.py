"""The clock the stores read: a callable returning unix seconds, injectable in tests."""

from __future__ import annotations

import time
from collections.abc import Callable

Clock = Callable[[], float]

system_clock: Clock = time.time
