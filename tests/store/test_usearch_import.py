"""usearch is imported in one place only, ``store.vectors._hnsw_class``, which loads onnxruntime first.

With onnxruntime 1.31.1 and usearch 2.26.6, importing onnxruntime after ``usearch`` kills the interpreter with
SIGSEGV (inside onnxruntime's native module init), and the embedder loads onnxruntime lazily, so any other
import of usearch can crash a later embed in the same process. ``evaluation/bench_recall.py`` had its own
``from usearch.index import Index``: the full suite ran it, then test_bench's MiniLM engine, and segfaulted.
"""

from __future__ import annotations

import ast
from pathlib import Path

import groundsearch

SRC = Path(groundsearch.__file__).parent
ALLOWED = ("store/vectors.py", "_hnsw_class")


def _usearch_imports(tree: ast.AST, path: str) -> list[str]:
    found: list[str] = []

    def visit(node: ast.AST, where: str | None) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return  # annotations only: never run
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            where = node.name
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        if any(n == "usearch" or n.startswith("usearch.") for n in names) and (path, where) != ALLOWED:
            found.append(f"{path}:{node.lineno} in {where or 'module'}")
        for child in ast.iter_child_nodes(node):
            visit(child, where)

    visit(tree, None)
    return found


def test_usearch_is_imported_only_behind_the_onnxruntime_guard() -> None:
    found = []
    for file in sorted(SRC.rglob("*.py")):
        rel = file.relative_to(SRC).as_posix()
        found += _usearch_imports(ast.parse(file.read_text(encoding="utf-8")), rel)
    assert found == []


def test_the_check_sees_a_direct_import() -> None:
    tree = ast.parse("def bench():\n    from usearch.index import Index\n")
    assert _usearch_imports(tree, "evaluation/bench_recall.py") == ["evaluation/bench_recall.py:2 in bench"]
    guarded = ast.parse("def _hnsw_class():\n    import onnxruntime\n    from usearch.index import Index\n")
    assert _usearch_imports(guarded, "store/vectors.py") == []
