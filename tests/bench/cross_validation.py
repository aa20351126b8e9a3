"""Honest figures for tuned constants: each variant in-sample, and the choice cross-validated.

A constant chosen on the same questions it is scored on looks better than
it is.  So the questions are split into folds (LoCoMo: one conversation
left out at a time; LongMemEval: five folds), the best variant is chosen on
the other folds and scored on the one left out; the cross-validated figure
is the mean of those held-out scores over all questions.  Scoring uses the
benchmark's own scorer (``../shared/bench/score.py``), loaded from where it
lies, so the figures are the ones it prints.
"""

from __future__ import annotations

import importlib.util
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

LME_FOLDS = 5


@dataclass(frozen=True)
class Scored:
    """One question's metrics (``recall@10``, ``all@5``, ...) under each variant."""

    key: str
    group: str
    """Its fold: a LoCoMo conversation, or a LongMemEval fold number."""
    kind: str
    """Its category or question type."""
    metrics: dict[str, dict[str, float]]


def load_scorer(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_score", path)
    if spec is None or spec.loader is None:
        raise FileNotFoundError(path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def scored_locomo(
    scorer: ModuleType, data: list[dict[str, Any]], runs: dict[str, dict[str, list[str]]]
) -> list[Scored]:
    """*runs*: variant name -> run file contents."""
    scored: list[Scored] = []
    for sample in data:
        valid = {m["id"] for m in scorer.locomo_memories(sample)}
        for q in scorer.locomo_questions(sample, valid):
            if not q["evidence"]:
                continue
            metrics = {
                name: scorer.metrics_at(run.get(q["key"], []), q["evidence"], [5, 10, 20])
                for name, run in runs.items()
            }
            scored.append(Scored(q["key"], sample["sample_id"], str(q["category"]), metrics))
    return scored


def scored_longmemeval(
    scorer: ModuleType,
    data: list[dict[str, Any]],
    runs: dict[str, dict[str, list[str]]],
    all_roles: bool,
) -> list[Scored]:
    scored: list[Scored] = []
    for index, item in enumerate(data):
        if item["question_id"].endswith("_abs"):
            continue
        _, relevant, _ = scorer.lme_corpus(item, "turn", all_roles)
        if not relevant:
            continue
        metrics = {
            name: scorer.metrics_at(run.get(item["question_id"], []), relevant, [5, 10], True)
            for name, run in runs.items()
        }
        group = str(index % LME_FOLDS)
        scored.append(Scored(item["question_id"], group, item["question_type"], metrics))
    return scored


def _mean(items: Sequence[Scored], variant: str, metric: str) -> float:
    return sum(s.metrics[variant][metric] for s in items) / len(items) if items else 0.0


def cross_validated(
    items: Sequence[Scored], variants: Sequence[str], metric: str
) -> tuple[float, dict[str, str]]:
    """The held-out mean of *metric* when each fold's variant is the best
    on the other folds (ties: the earlier, simpler variant); and the
    variant chosen for each fold."""
    folds = sorted({s.group for s in items})
    held_out: list[float] = []
    chosen: dict[str, str] = {}
    for fold in folds:
        training = [s for s in items if s.group != fold]
        best = max(variants, key=lambda v: (_mean(training, v, metric), -variants.index(v)))
        chosen[fold] = best
        held_out += [s.metrics[best][metric] for s in items if s.group == fold]
    return sum(held_out) / len(held_out), chosen


def report(
    title: str,
    items: Sequence[Scored],
    variants: Sequence[str],
    metrics: Sequence[str],
    objective: str,
    product: str,
) -> str:
    """Per variant in-sample figures, the per-kind table of *product* (the
    constants in the code), and the cross-validated *objective*."""
    lines = [f"### {title}: {len(items)} questions", "", "in-sample, every variant:"]
    lines.append("| variant | " + " | ".join(metrics) + " |")
    for variant in variants:
        cells = " | ".join(f"{_mean(items, variant, m):.3f}" for m in metrics)
        lines.append(f"| {variant} | {cells} |")
    by_kind: dict[str, list[Scored]] = defaultdict(list)
    for item in items:
        by_kind[item.kind].append(item)
    lines += ["", f"the product's constants ({product}), by kind:"]
    lines.append("| kind | n | " + " | ".join(metrics) + " |")
    for kind in sorted(by_kind):
        cells = " | ".join(f"{_mean(by_kind[kind], product, m):.3f}" for m in metrics)
        lines.append(f"| {kind} | {len(by_kind[kind])} | {cells} |")
    figure, chosen = cross_validated(items, variants, objective)
    lines += [
        "",
        f"{objective}: in-sample with the product's constants "
        f"{_mean(items, product, objective):.3f}, best in-sample "
        f"{max(_mean(items, v, objective) for v in variants):.3f}, "
        f"cross-validated {figure:.3f}",
        f"chosen per fold: {chosen}",
    ]
    return "\n".join(lines)
