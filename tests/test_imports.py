"""CI check: the package has no import cycles, lazy (function-level) and type-checking imports included.

A cycle is how a god object grows: the engine built the answer pipeline, which reached back into the
engine for its presenters (issue 12). Modules import downwards — interfaces → engine → orchestrate →
query / answer / store / models → types — and this test fails, naming the cycle, when one points back up.
"""

from __future__ import annotations

import ast
from pathlib import Path

import groundsearch

ROOT = Path(groundsearch.__file__).parent
PACKAGE = "groundsearch"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """Every groundsearch module ``path`` imports, anywhere in its body; ``from pkg import sub`` counts
    as importing the submodule when ``sub`` is one."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.split(".")[0] == PACKAGE)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != PACKAGE:
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                out.add(sub if sub in modules else target)
    return {m for m in out if m in modules and m != name}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def package_graph() -> dict[str, set[str]]:
    files = sorted(ROOT.rglob("*.py"))
    modules = {module_name(p) for p in files}
    # a package's __init__ re-exporting its children is not a cycle with them: only edges out of children count
    graph = {module_name(p): imports_of(p, modules) for p in files}
    for name, deps in graph.items():
        graph[name] = {d for d in deps if not name.startswith(d + ".")}
    return graph


def test_no_import_cycles() -> None:
    cycle = find_cycle(package_graph())
    assert cycle is None, "import cycle: " + " → ".join(cycle or [])


def test_the_checker_finds_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_engine_and_orchestrator_do_not_import_each_other() -> None:
    graph = package_graph()
    assert "groundsearch.orchestrate" in graph["groundsearch.engine"]
    assert "groundsearch.engine" not in graph["groundsearch.orchestrate"]
