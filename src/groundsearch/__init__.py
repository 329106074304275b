"""groundsearch: one front door for searching a mixed knowledge base, answering in the shape asked.

The public surface is deliberately small; everything not listed in ``__all__`` is internal.
"""

from .engine import Engine
from .errors import GroundsearchError
from .settings import Settings, load_settings
from .types import Intent, SearchRequest, SearchResponse

__all__ = ["Engine", "GroundsearchError", "Intent", "SearchRequest", "SearchResponse", "Settings", "load_settings"]
