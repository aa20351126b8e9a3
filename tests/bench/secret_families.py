"""How many of round 21's secrets (several in one message, a password
changed, a list or a table, a code said alone, one split across messages)
stay in what Reverie stores, family by family and half by half, and how
many everyday sentences of the same look it changes.

    python -m tests.bench.secret_families [--draws 20] [--seed 0] [--show 5]

Each trial is drawn by ``tests.secret_families.trials`` and redacted as the
chat stores a message (a ``Redactor``, read after the messages before it);
a miss is a value still standing whole in what is stored.  ``--show`` prints
the misses of the half rules may be written on ("in"), never the held-out
half's.  Not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import re

from desktop.core.privacy.redaction import Redactor
from tests.secret_families import FAMILIES, Trial, negatives, trials


def missed(trial: Trial) -> list[str]:
    """The values of *trial* still standing whole once it is stored."""
    stored = Redactor()(trial.text, after=list(trial.after)).text
    return [v for v in trial.values if re.search(rf"(?<!\w){re.escape(v)}(?!\w)", stored)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--draws", type=int, default=20, help="trials per template")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--show", type=int, default=0, help="held-in misses to print per family")
    args = parser.parse_args()
    totals = {"in": [0, 0], "out": [0, 0]}
    flagged = {"in": [0, 0], "out": [0, 0]}
    for family in FAMILIES:
        counts = {"in": [0, 0], "out": [0, 0]}
        shown: list[str] = []
        for trial in trials(family, args.draws, args.seed):
            lost = missed(trial)
            counts[trial.half][0] += len(lost)
            counts[trial.half][1] += len(trial.values)
            if lost and trial.half == "in" and len(shown) < args.show:
                shown.append(f"{trial.after!r} {trial.text!r} -> {lost}")
        changed = {"in": [0, 0], "out": [0, 0]}
        for half, text, after in negatives(family):
            if Redactor()(text, after=list(after)).text != text:
                changed[half][0] += 1
                if half == "in":
                    shown.append(f"NEGATIVE CHANGED {after!r} {text!r}")
            changed[half][1] += 1
        for half in ("in", "out"):
            for total, part in ((totals, counts), (flagged, changed)):
                total[half][0] += part[half][0]
                total[half][1] += part[half][1]
        print(f"{family:8} {_rates(counts)}   negatives changed {_rates(changed, False)}")
        for line in shown:
            print("    ", line)
    print(f"{'all':8} {_rates(totals)}   negatives changed {_rates(flagged, False)}")


def _rates(counts: dict[str, list[int]], percent: bool = True) -> str:
    parts = []
    for half in ("in", "out"):
        part, whole = counts[half]
        rate = f" ({100 * part / whole:4.1f}%)" if percent and whole else ""
        parts.append(f"{half} {part:4}/{whole:<4}{rate}")
    return "  ".join(parts)


if __name__ == "__main__":
    main()
