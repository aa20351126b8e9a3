"""How many secrets stated by situation (no word naming a credential) stay
in what Reverie stores, family by family, and how many everyday sentences
of the same look it changes.

    python -m tests.bench.secret_situations [--trials 300] [--seed 0]

Each trial is drawn by ``tests.secret_situations.build`` and redacted as the
chat stores a message (a ``Redactor``, read after the message before it);
a leak is a value still whole in what is stored.  Not a test: it asserts
nothing (the property tests in ``tests/unit/core/privacy`` do).
"""

from __future__ import annotations

import argparse
import random

from desktop.core.privacy.redaction import Redactor
from tests.secret_situations import FAMILIES, NEGATIVES, build, everyday


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--show", type=int, default=0, help="leaks to print per family")
    args = parser.parse_args()
    total = leaked = 0
    for family in FAMILIES:
        rng = random.Random(f"{args.seed}-{family}")
        leaks = []
        for _ in range(args.trials):
            trial = build(family, rng)
            stored = Redactor()(trial.text, after=list(trial.after)).text
            if any(value in stored for value in trial.values):
                leaks.append(trial.text)
        total += args.trials
        leaked += len(leaks)
        rate = 100 * len(leaks) / args.trials
        print(f"{family:18} {len(leaks):4}/{args.trials} leaks ({rate:.1f}%)")
        for text in leaks[: args.show]:
            print("    ", repr(text))
    rng = random.Random(f"{args.seed}-everyday")
    drawn = [everyday(rng) for _ in range(args.trials)]
    touched = [text for text in drawn if Redactor()(text).text != text]
    print(f"everyday sentences changed: {len(touched)}/{len(drawn)}")
    changed = [text for text in NEGATIVES if Redactor()(text).text != text]
    print(f"{'all':18} {leaked:4}/{total} leaks ({100 * leaked / total:.1f}%)")
    print(f"negatives changed: {len(changed)}/{len(NEGATIVES)}")
    for text in changed:
        print("    ", repr(text))


if __name__ == "__main__":
    main()
