"""Files and folders → items, chunks, entities and vectors in a :class:`~groundsearch.store.base.Store`.

Entry point: :func:`ingest_paths` (see :mod:`.pipeline`). Loaders (:mod:`.documents`, :mod:`.records`)
and chunking (:mod:`.chunking`) are pure parsers, usable on their own.
"""

from .pipeline import IngestProgress, IngestReport, ingest_paths

__all__ = ["IngestProgress", "IngestReport", "ingest_paths"]
