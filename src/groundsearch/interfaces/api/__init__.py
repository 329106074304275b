"""The HTTP API: ``create_app(engine, settings)`` returns a FastAPI app; ``groundsearch serve`` runs it."""

from .app import create_app

__all__ = ["create_app"]
