"""A small dossier shaped like chat's: two sources about the demo corpus's search engine."""

from groundsearch.answer.auditor import Constraints

SOURCES = {
    "s1": "Acme Search uses Tantivy for keyword retrieval. In 2024 Acme Search cut query latency by 40% "
          "after moving to impact-ordered postings. https://acme.example/docs/latency",
    "s2": "The Initech team wrote: \"hybrid retrieval beats keyword search on every benchmark we ran\". "
          "Initech serves 1200 customers. https://initech.example/blog/hybrid",
}

CONSTRAINTS = Constraints(
    supported_entities=("Acme Search", "Tantivy", "Initech"),
    source_urls=("https://acme.example/docs/latency", "https://initech.example/blog/hybrid"),
    canonical_urls={"Acme Search": "https://acme.example/docs/latency", "Initech": "https://initech.example/blog/hybrid"},
    sources=SOURCES,
)
