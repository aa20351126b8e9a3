"""The tree's layering: no import circles anywhere in the application or the
model layer (import-linter's contracts say which room may use which; a
circle inside one room is this test's to find)."""

from __future__ import annotations

from collections.abc import Iterable

import grimp
import pytest

PACKAGES = ("desktop", "models")


def circles(graph: grimp.ImportGraph, modules: Iterable[str]) -> list[list[str]]:
    """The groups of modules in *modules* that import each other in a circle,
    directly or through others (Tarjan's strongly connected components, kept
    iterative: a long chain must not hit Python's recursion limit)."""
    modules = sorted(modules)
    inside = set(modules)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in modules:
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root) & inside)))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            module, imported = work[-1]
            step = next(imported, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    below = graph.find_modules_directly_imported_by(step) & inside
                    work.append((step, iter(sorted(below))))
                elif step in on_stack:
                    low[module] = min(low[module], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[module])
            if low[module] == index[module]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == module:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_the_finder_finds_a_circle_through_a_third_module() -> None:
    graph = grimp.ImportGraph()
    for importer, imported in (("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")):
        graph.add_import(importer=importer, imported=imported)

    assert circles(graph, graph.modules) == [["a", "b", "c"]]


@pytest.mark.timeout(300)
def test_no_module_of_the_app_or_the_model_layer_imports_itself_round_about() -> None:
    graph = grimp.build_graph(*PACKAGES)
    ours = {m for m in graph.modules if m.split(".")[0] in PACKAGES}

    assert circles(graph, ours) == []
