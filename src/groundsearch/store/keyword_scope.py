"""Which documents' statistics a keyword search may score with: the partitions of the keyword index.

Why partitions: BM25 scores a chunk with collection statistics — the document count ``N``, the mean length and
each term's document frequency. Over one index of every tenant those counted other tenants' chunks and drafts,
so tenant B's score for a word it holds moved when tenant A uploaded drafts containing it (B learnt that some
other corpus holds the word), and a viewer's moved when an editor of its own tenant wrote a draft it may not
read. tantivy-py cannot be handed statistics (the Rust crate's ``Bm25StatisticsProvider`` is not exposed), so
the index is split instead: each chunk lives in exactly one partition, keyed by its item's tenant and
visibility class — ``public`` (published and archived, superseded or not: any role of the tenant may ask for
them) or ``draft`` (editors only) — and a search runs only on the partitions its filter may match:

* a tenant-scoped search reads its tenant's ``public`` partition, plus its ``draft`` one when the filter asks
  for drafts (the API lets only editors ask, ``Principal.read_filter``);
* an every-tenant search (local mode, the operator key) reads every ``public`` partition, and the ``draft``
  ones when asked.

One partition: tantivy scores with that partition's own statistics, the search is the single-index search it
always was (block-max WAND included), and a store holding one tenant and no drafts — one partition — ranks
exactly as the single index did. Several partitions: each term query is boosted by
``idf(N, df) / idf(N_p, df_p)``, so every hit carries the idf of the union of the partitions read (all of them
visible to the caller); the length normalisation stays each partition's own (its mean length). The pages are
merged by score. What is guaranteed either way: no statistic of a chunk the caller's filter cannot reach by
tenant and visibility enters a score or an order — the candidates are chosen inside the caller's partitions,
not chosen globally and rescored.

The partition of the default tenant's public chunks is the index's root directory, so single-tenant stores
keep the layout they had; every other partition is a subdirectory named by a hash of its tenant.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Sequence

from ..types import SearchFilter

__all__ = ["DRAFT", "PUBLIC", "ROOT", "bm25_idf", "idf_boosts", "partition_name", "partition_of", "visibility_of",
           "wanted_classes", "wanted_partitions"]

PUBLIC = "public"
DRAFT = "draft"
ROOT = ""  # the default tenant's public partition: the index directory itself
PREFIX = "t-"


def partition_name(tenant: str, visibility: str) -> str:
    """The partition (subdirectory name, ``ROOT`` for the default tenant's public chunks) of one class.

    A hash, not the tenant's name: tenant names are free text (``/``, ``..``, any length), a directory name is
    not; 128 bits keep two tenants from ever sharing statistics by collision."""
    if tenant == "" and visibility == PUBLIC:
        return ROOT
    digest = hashlib.sha256(tenant.encode("utf-8")).hexdigest()[:32]
    return f"{PREFIX}{digest}-{visibility}"


def partition_of(tenant: str, status: str) -> str:
    """The partition a chunk of an item with this tenant and status is indexed in."""
    return partition_name(tenant, DRAFT if status == "draft" else PUBLIC)


def visibility_of(name: str) -> str:
    return PUBLIC if name == ROOT else name.rsplit("-", 1)[-1]


def wanted_classes(f: SearchFilter) -> list[str]:
    """The visibility classes ``f``'s statuses may match (drafts only when it asks for them)."""
    return ([PUBLIC] if any(s != "draft" for s in f.statuses) else []) + ([DRAFT] if "draft" in f.statuses else [])


def wanted_partitions(f: SearchFilter, present: Iterable[str]) -> list[str]:
    """The partitions, among ``present``, whose chunks ``f`` may match by tenant and visibility (sorted)."""
    classes = wanted_classes(f)
    have = set(present)
    if f.tenant is not None:
        return sorted(n for n in (partition_name(f.tenant, c) for c in classes) if n in have)
    return sorted(n for n in have if visibility_of(n) in classes)


def bm25_idf(n_docs: float, df: float) -> float:
    """tantivy's BM25 idf (``tantivy::query::bm25``): ``ln(1 + (N - df + 0.5) / (df + 0.5))``."""
    return math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))


def idf_boosts(stats: Sequence[tuple[int, Sequence[int]]]) -> list[list[float]]:
    """Per partition and term, the factor that turns the partition's idf into the union's.

    ``stats`` holds, per partition, its document count as tantivy's BM25 counts it (deleted but unmerged
    documents included) and each query term's document frequency there. A term absent from a partition gets
    0 there (it matches nothing in it)."""
    n = sum(np for np, _ in stats)
    n_terms = len(stats[0][1]) if stats else 0
    df = [sum(dfs[t] for _, dfs in stats) for t in range(n_terms)]
    return [[bm25_idf(n, df[t]) / bm25_idf(np, dfs[t]) if dfs[t] > 0 else 0.0 for t in range(n_terms)]
            for np, dfs in stats]
