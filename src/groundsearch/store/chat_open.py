"""Opening the ``ConversationStore`` that goes with a configuration (apart from ``chat_base``, which both backends
import)."""

from __future__ import annotations

from ..settings import Settings
from .chat_base import ConversationStore

__all__ = ["open_conversations"]


def open_conversations(settings: Settings) -> ConversationStore:
    """Postgres when ``database_url`` is set, else the embedded store's SQLite file. Opening it touches no item
    index, so the purge can run beside a serving process."""
    if settings.database_url:
        from .pg_chat import PgConversationStore

        return PgConversationStore.open(settings.database_url)
    from .sqlite_chat import SQLiteConversationStore

    return SQLiteConversationStore.open(settings.data_dir / "store" / "store.sqlite3")
