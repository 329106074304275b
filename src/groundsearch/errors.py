"""One exception tree for groundsearch.

::

    GroundsearchError
    ├── ConfigError                 bad settings or collection config (names the key)
    ├── InvalidInput                the caller's request is wrong; maps to HTTP 400
    │   ├── InvalidQuery            empty / whitespace-only / over-long query text
    │   ├── InvalidFilter           unknown field, bad date, bad value in a filter
    │   └── UnknownCollection       a collection that is not configured
    ├── IngestError                 a file or record could not be loaded (names file and reason)
    │   └── IngestStopped           a run cancelled or over its time budget stopped at a checkpoint
    ├── NotFound                    an item id that does not exist; HTTP 404
    ├── AuthError                   HTTP 401 (``Unauthenticated``) / 403 (``Forbidden``)
    │   ├── Unauthenticated
    │   └── Forbidden
    ├── RateLimited                 HTTP 429, carries ``retry_after`` seconds
    ├── ModelError                  a model could not be loaded or run
    │   ├── ModelFileMismatch       a bundled model file's SHA-256 differs from the recorded one
    │   ├── EmbeddingFailed         the embedder cannot run; HTTP 503, never partial results
    │   └── LLMError                an LLM call failed (timeout, invalid output, unreachable)
    └── StoreError                  the store cannot serve (corrupt database, unreachable server)
        ├── SchemaTooNew            the database was migrated by a newer groundsearch
        ├── StoreUnavailable        connection refused, extension missing, …
        └── IndexUnavailable        a derived index (keyword, vectors) is damaged or being rebuilt; search
                                    answers from the other leg and says so

Messages are fixed and actionable: they say what was wrong and what to do. Interfaces map this tree to
their own vocabulary once (HTTP codes in the API, exit codes in the CLI) and nowhere else.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "AuthError",
    "ConfigError",
    "EmbeddingFailed",
    "Forbidden",
    "GroundsearchError",
    "IndexUnavailable",
    "IngestError",
    "IngestStopped",
    "InvalidFilter",
    "InvalidInput",
    "InvalidQuery",
    "LLMError",
    "ModelError",
    "ModelFileMismatch",
    "NotFound",
    "RateLimited",
    "SchemaTooNew",
    "StoreError",
    "StoreUnavailable",
    "Unauthenticated",
    "UnknownCollection",
]


class GroundsearchError(Exception):
    """Base of every error groundsearch raises on purpose.

    ``code`` is a stable machine-readable name (used by the HTTP error body); ``details`` carries
    structured context such as the offending field.
    """

    code = "INTERNAL"

    def __init__(self, message: str, *, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details: dict[str, Any] = dict(details or {})


class ConfigError(GroundsearchError):
    code = "CONFIG_INVALID"


class InvalidInput(GroundsearchError):
    code = "VALIDATION_FAILED"


class InvalidQuery(InvalidInput):
    pass


class InvalidFilter(InvalidInput):
    pass


class UnknownCollection(InvalidInput):
    pass


class IngestError(GroundsearchError):
    code = "INGEST_FAILED"


class IngestStopped(IngestError):
    """An ingest run stopped at a checkpoint (cancelled, or over its time budget); the file in flight is not written."""

    code = "INGEST_STOPPED"


class NotFound(GroundsearchError):
    code = "NOT_FOUND"


class AuthError(GroundsearchError):
    code = "UNAUTHENTICATED"


class Unauthenticated(AuthError):
    code = "UNAUTHENTICATED"


class Forbidden(AuthError):
    code = "FORBIDDEN"


class RateLimited(GroundsearchError):
    code = "RATE_LIMITED"

    def __init__(self, message: str, *, retry_after: float, details: dict[str, Any] | None = None) -> None:
        super().__init__(message, details=details)
        self.retry_after = retry_after


class ModelError(GroundsearchError):
    code = "MODEL_FAILED"


class ModelFileMismatch(ModelError):
    code = "MODEL_FILE_MISMATCH"


class EmbeddingFailed(ModelError):
    code = "EMBEDDING_FAILED"


class LLMError(ModelError):
    code = "LLM_FAILED"


class StoreError(GroundsearchError):
    code = "STORE_FAILED"


class SchemaTooNew(StoreError):
    code = "SCHEMA_TOO_NEW"


class StoreUnavailable(StoreError):
    code = "STORE_UNAVAILABLE"


class IndexUnavailable(StoreError):
    code = "INDEX_UNAVAILABLE"
