"""The one place the exception tree becomes HTTP: status codes and the ``{error: {code, message, details}}`` body.

Every error response the API sends goes through :func:`error_response`, so clients parse one shape. Unexpected
exceptions become a 500 whose message is redacted (internals never leak) but carries the request id that was
logged with the traceback, so an operator can find it. That includes a Rust panic (pyo3's ``PanicException``
derives from ``BaseException``, which Starlette's handlers never see): :class:`PanicGuard` turns it into the
same 500 instead of letting uvicorn answer with a plain-text body.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ...errors import (
    AuthError,
    EmbeddingFailed,
    Forbidden,
    GroundsearchError,
    IngestError,
    InvalidInput,
    NotFound,
    RateLimited,
    StoreUnavailable,
)
from ...store.index_check import is_panic

__all__ = ["BodyTooLarge", "ErrorBody", "ErrorDetail", "PanicGuard", "error_response", "install_error_handlers",
           "status_for"]

log = logging.getLogger("groundsearch.api")


class ErrorDetail(BaseModel):
    code: str
    message: str
    details: dict[str, Any] = {}


class ErrorBody(BaseModel):
    """Every non-2xx JSON response has this shape."""

    error: ErrorDetail


_HTTP_CODES = {400: "VALIDATION_FAILED", 401: "UNAUTHENTICATED", 403: "FORBIDDEN", 404: "NOT_FOUND",
               405: "METHOD_NOT_ALLOWED", 413: "PAYLOAD_TOO_LARGE", 415: "UNSUPPORTED_MEDIA_TYPE",
               429: "RATE_LIMITED", 503: "UNAVAILABLE"}


class BodyTooLarge(StarletteHTTPException):
    """Raised by the body limit's ``receive`` the moment a streamed body passes the limit. An HTTP exception, so
    FastAPI's body reader passes it on (it turns any other failure into its generic 400)."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the request body exceeds {limit} bytes")
        self.details = {"max_bytes": limit}


def status_for(exc: GroundsearchError) -> int:
    if isinstance(exc, (InvalidInput, IngestError)):
        return 400
    if isinstance(exc, Forbidden):
        return 403
    if isinstance(exc, AuthError):
        return 401
    if isinstance(exc, NotFound):
        return 404
    if isinstance(exc, RateLimited):
        return 429
    if isinstance(exc, (EmbeddingFailed, StoreUnavailable)):
        return 503
    return 500


def error_response(status: int, code: str, message: str, details: dict[str, Any] | None = None,
                   headers: dict[str, str] | None = None) -> JSONResponse:
    body = ErrorBody(error=ErrorDetail(code=code, message=message, details=details or {}))
    return JSONResponse(body.model_dump(mode="json"), status_code=status, headers=headers)


def request_id(request: Request) -> str:
    return getattr(request.state, "request_id", "-")


def _jsonable(value: Any) -> Any:
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return repr(value)


# Pydantic puts the union member it tried into the location ("filters.product.constrained-str"); clients want
# the field path only.
_UNION_TAG = re.compile(r"^(constrained-)?(str|int|float|bool|list|dict|tuple|none)(\[.*\])?$|^function-\w+\[.*\]$")


def validation_details(errors: Any) -> dict[str, Any]:
    """Pydantic/FastAPI errors → ``{"fields": [{field, message, type}]}`` naming each offending field once."""
    fields: list[dict[str, str]] = []
    seen: set[str] = set()
    for e in errors:
        field = ".".join(str(p) for p in e.get("loc", ()) if not _UNION_TAG.match(str(p)))
        if field in seen:
            continue
        seen.add(field)
        fields.append({"field": field, "message": e.get("msg", "invalid"), "type": e.get("type", "")})
    return {"fields": fields}


def _causes(exc: BaseException) -> list[BaseException]:
    chain: list[BaseException] = []
    while exc is not None and exc not in chain and len(chain) < 8:
        chain.append(exc)
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return chain


def body_error(exc: BaseException) -> tuple[str, dict[str, Any]]:
    """The specific reason behind FastAPI's generic "error parsing the body" 400, found in its exception chain:
    a client fixes a too-deep document, an over-long file name and broken UTF-8 in different ways."""
    chain = _causes(exc)
    names = {type(e).__name__ for e in chain}
    text = " ".join(str(e) for e in chain)
    if "RecursionError" in names:
        return ("the JSON body is nested too deeply to parse; keep objects and arrays under 100 levels",
                {"fields": [{"field": "body", "message": "nested too deeply", "type": "json_too_deep"}]})
    if "Maximum header size exceeded" in text:
        return ("a part header of the upload is too long: most often a file name of thousands of characters; "
                "a file name may have at most 255 characters", {"field": "file", "max_name_chars": 255})
    if "MultiPartException" in names or "FormParserError" in names:
        reason = next((str(e) for e in chain if type(e).__name__ == "MultiPartException"), "malformed")
        return (f"the upload is not valid multipart/form-data: {reason}", {"field": "file"})
    return ("the request body is not valid UTF-8 JSON", {"fields": [
        {"field": "body", "message": "cannot be decoded as UTF-8 JSON", "type": "body_decode"}]})


def internal_error(rid: str) -> JSONResponse:
    return error_response(500, "INTERNAL", f"internal error; quote request id {rid} to the operator",
                          {"request_id": rid}, headers={"X-Request-ID": rid})


class PanicGuard:
    """Answer a panic that escaped a handler with the documented 500 (before any byte of the response was
    sent; a stream reports its own failure as an ``error`` event, see ``sse.py``)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracking)
        except BaseException as exc:
            if not is_panic(exc) or started:
                raise
            rid = scope.get("state", {}).get("request_id", "-")
            log.error("panic in %s %s (request id %s)", scope.get("method"), scope.get("path"), rid, exc_info=exc)
            await internal_error(rid)(scope, receive, send)


def install_error_handlers(app: Any) -> None:
    async def on_domain(request: Request, exc: GroundsearchError) -> JSONResponse:
        status = status_for(exc)
        if status == 500:
            return await on_unexpected(request, exc)
        headers = None
        if isinstance(exc, RateLimited):
            headers = {"Retry-After": str(max(1, int(exc.retry_after + 0.999)))}
        code = "VALIDATION_FAILED" if isinstance(exc, InvalidInput) else exc.code
        return error_response(status, code, exc.message, _jsonable(exc.details), headers)

    async def on_validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        return error_response(400, "VALIDATION_FAILED", "the request is invalid; see details.fields",
                              _jsonable(validation_details(exc.errors())))

    async def on_http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = _HTTP_CODES.get(exc.status_code, "HTTP_ERROR")
        message = exc.detail if isinstance(exc.detail, str) else code.lower().replace("_", " ")
        details: dict[str, Any] = dict(exc.details) if isinstance(exc, BodyTooLarge) else {}
        if exc.status_code == 400:  # FastAPI's body parser: it turns every parse failure into one bare 400
            message, details = body_error(exc)
        return error_response(exc.status_code, code, message, details, headers=getattr(exc, "headers", None))

    async def on_unexpected(request: Request, exc: Exception) -> JSONResponse:
        rid = request_id(request)
        log.error("unhandled error in %s %s (request id %s)", request.method, request.url.path, rid, exc_info=exc)
        # Sent by Starlette's outermost middleware, past the one that stamps ids: set the header here too.
        return internal_error(rid)

    app.add_exception_handler(GroundsearchError, on_domain)
    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(StarletteHTTPException, on_http)
    app.add_exception_handler(Exception, on_unexpected)
    app.add_middleware(PanicGuard)  # inside BodyLimit (added later, so outer), which stamps the request id
