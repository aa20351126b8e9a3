"""Dream changes to skills, round after round, until this process is killed
(for ``test_skill_change_kills``):

    python -m tests.unit.core.dreaming.skill_change_child HOME FIRST_ROUND

Each round *n* makes the skills ``tea n`` and ``coffee n``; a pass leaves a
rewrite of ``tea n`` pending, which is approved, then undone; a second pass
merges ``coffee n`` into ``tea n`` (rewrite and retire, applied at once),
which is undone; then ``tea n`` is renamed.  ``ready`` goes to stdout once
the first round is done.
"""

from __future__ import annotations

import sys
from pathlib import Path

from desktop.core.db import DreamStore
from desktop.core.dreaming.proposals import Proposal
from tests.skill_worlds import World, open_world

ROUNDS = 10_000


def tea(n: int) -> str:
    return (
        f"How to brew tea number {n}\n"
        + "Boil the water, then wait. " * 20
        + (f"\nSteep for {n} minutes at 90 degrees with /usr/bin/teapot.\n")
    )


def short_tea(n: int) -> str:
    return f"How to brew tea number {n}\nBoil the water, then wait.\n"


def coffee(n: int) -> str:
    return f"How to make coffee number {n}\n1. Grind 18 g of beans.\n2. Brew.\n"


def merged(n: int) -> str:
    return tea(n) + "Coffee too: grind 18 g of beans, then brew.\n"


def one_round(world: World, n: int) -> None:
    dreams = DreamStore(world.database)
    tea_id = world.skills.create(f"tea {n}", tea(n)).id
    coffee_id = world.skills.create(f"coffee {n}", coffee(n)).id
    run = dreams.start("manual")
    condensed = {"skill": tea_id, "text": short_tea(n), "waits": "it leaves out a number"}
    world.book.apply_pass(
        run.id,
        "skills",
        [Proposal("skill_rewrite", "Condensed.", condensed, needs_approval=True)],
        None,
    )
    [change] = dreams.changes(run.id)
    world.book.approve(change.id)
    world.book.revert(change.id)
    run = dreams.start("manual")
    world.book.apply_pass(
        run.id,
        "skills",
        [
            Proposal("skill_rewrite", "Merged.", {"skill": tea_id, "text": merged(n)}),
            Proposal("skill_retire", "Retired.", {"skill": coffee_id, "into": tea_id}),
        ],
        None,
    )
    world.book.revert_run(run.id)
    world.skills.rename(tea_id, f"green tea {n}")


def main(home: Path, first: int) -> None:
    world = open_world(home)
    for n in range(first, first + ROUNDS):
        one_round(world, n)
        if n == first:
            print("ready", flush=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]))
