"""Hand-built evidence for the pure answer stages (the pipeline tests use a real store instead)."""

from __future__ import annotations

import datetime as dt

from groundsearch.types import Chunk, CollectionSpec, EvidenceHit, FieldSpec, Item, LegScore

RELEASES = CollectionSpec(
    name="releases", kind="records", description="Releases",
    fields=(FieldSpec("id"), FieldSpec("date", "date"), FieldSpec("product"), FieldSpec("version"),
            FieldSpec("summary", "text"), FieldSpec("url", "url")),
    title_template="{product} {version}", id_field="id", date_field="date", url_field="url",
    table_columns=("date", "product", "version", "summary"),
)
PAPERS = CollectionSpec(
    name="papers", kind="records", description="Papers",
    fields=(FieldSpec("id"), FieldSpec("date", "date"), FieldSpec("title", "text"), FieldSpec("authors", "list"),
            FieldSpec("venue"), FieldSpec("url", "url", label="Link")),
    id_field="id", date_field="date", url_field="url", table_columns=("date", "title", "authors", "venue", "url"),
)
DOCS = CollectionSpec(name="docs", kind="documents")
SPECS = {s.name: s for s in (RELEASES, PAPERS, DOCS)}


def release(n: int, product: str, version: str, summary: str, month: int, entities: tuple[str, ...] = (),
            cosine: float = 0.5) -> EvidenceHit:
    date = dt.date(2026, month, 1)
    item = Item(id=f"releases:r{n}", collection="releases", title=f"{product} {version}", text=summary,
                url=f"https://pypi.org/project/{product}/{version}/", date=date,
                fields={"id": f"r{n}", "date": date, "product": product, "version": version, "summary": summary,
                        "url": f"https://pypi.org/project/{product}/{version}/"})
    chunk = Chunk(id=f"releases:r{n}#0", item_id=item.id, position=0, text=f"{product} {version}\n\n{summary}",
                  entities=(product.casefold(), *entities))
    return EvidenceHit(chunk=chunk, item=item, score=1 / (60 + n), legs=(LegScore("vector", n, cosine),))


def paper(n: int, title: str, authors: tuple[str, ...], venue: str, month: int,
          entities: tuple[str, ...] = ()) -> EvidenceHit:
    date = dt.date(2025, month, 1)
    item = Item(id=f"papers:p{n}", collection="papers", title=title, text=title, url=f"https://arxiv.org/abs/{n}",
                date=date, fields={"id": f"p{n}", "date": date, "title": title, "authors": authors, "venue": venue,
                                   "url": f"https://arxiv.org/abs/{n}"})
    chunk = Chunk(id=f"papers:p{n}#0", item_id=item.id, position=0, text=title,
                  entities=(*(a.casefold() for a in authors), venue.casefold(), *entities))
    return EvidenceHit(chunk=chunk, item=item, score=1 / (60 + n), legs=(LegScore("keyword", n, 3.0),))


def doc(n: int, text: str, heading: tuple[str, ...] = ("Guide",), entities: tuple[str, ...] = ()) -> EvidenceHit:
    item = Item(id="docs:guide", collection="docs", title="Guide", text=text, url=None)
    chunk = Chunk(id=f"docs:guide#{n}", item_id=item.id, position=n, text=text, heading_path=heading,
                  entities=entities)
    return EvidenceHit(chunk=chunk, item=item, score=1 / (60 + n), legs=(LegScore("vector", n, 0.6),))
