"""The FastAPI app factory: ``create_app(engine, settings)`` wires routes, auth, limits, errors and the web page.

The app holds no retrieval logic and no module-level state: everything lives on the instance (``app.state.gs``),
so tests and workers can build as many independent apps as they like.
"""

from __future__ import annotations

import importlib.resources
import ipaddress
import logging
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ...engine import Engine
from ...errors import ConfigError
from ...settings import Settings
from .auth import KeyStore, keys_path
from .deps import ApiState
from .errors import BodyTooLarge, ErrorBody, error_response, install_error_handlers
from .ratelimit import RateLimiter
from .routes_curation import router as curation_router
from .routes_items import UPLOAD_MAX_BYTES
from .routes_chat import router as chat_router
from .routes_feedback import router as feedback_router
from .routes_items import router as items_router
from .routes_jobs import JobRunner
from .routes_jobs import router as jobs_router
from .routes_audit import router as audit_router
from .routes_search import router as search_router

__all__ = ["create_app", "uvicorn_config"]

log = logging.getLogger("groundsearch.api")

_ERRORS = {
    400: "invalid input (`VALIDATION_FAILED` with `details.fields`, or `INGEST_FAILED`)",
    401: "no or invalid API key (`UNAUTHENTICATED`)",
    403: "the key's role does not allow this (`FORBIDDEN`)",
    404: "not found (`NOT_FOUND`)",
    413: "body larger than the configured limit (`PAYLOAD_TOO_LARGE`)",
    429: "rate limit exceeded (`RATE_LIMITED`, with `Retry-After`)",
    500: "unexpected error; message redacted, `details.request_id` logged (`INTERNAL`)",
    503: "the embedder or store cannot run (`EMBEDDING_FAILED`, `STORE_UNAVAILABLE`); no partial results",
}


class BodyLimit:
    """Reject bodies over the limit before they reach the app: by ``Content-Length`` at once, and a chunked body
    as it streams (the app's ``receive`` raises :class:`BodyTooLarge` when the count passes the limit).

    Nothing is buffered here: the route's key, role and budget are checked before the app reads a byte
    (deps.AdmittedRoute). Buffering a chunked body here, up to 32 MiB for an upload, held it in memory before
    anyone knew who sent it. Uploads to ``/api/items`` get their own, larger limit.
    """

    def __init__(self, app: ASGIApp, max_bytes: int, upload_bytes: int) -> None:
        self.app, self.max_bytes, self.upload_bytes = app, max_bytes, upload_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        scope.setdefault("state", {})["request_id"] = uuid.uuid4().hex[:16]
        limit = self.upload_bytes if scope["path"] == "/api/items" else self.max_bytes
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            response = error_response(413, "PAYLOAD_TOO_LARGE", f"the request body exceeds {limit} bytes",
                                      {"max_bytes": limit})
            await response(scope, receive, send)
            return
        size = 0

        async def counted() -> Message:
            nonlocal size
            message = await receive()
            if message["type"] == "http.request":
                size += len(message.get("body", b""))
                if size > limit:
                    raise BodyTooLarge(limit)
            return message

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = message.setdefault("headers", [])
                if not any(k.lower() == b"x-request-id" for k, _ in headers):
                    headers.append((b"x-request-id", scope["state"]["request_id"].encode()))
            await send(message)

        await self.app(scope, counted, send_with_id)


def is_loopback_name(host: str) -> bool:
    """``localhost``, a name under ``.localhost`` (RFC 6761), or a loopback address (``127.0.0.0/8``, ``::1``)."""
    name = host.strip("[]").lower().rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _host_port(netloc: str, scheme: str) -> tuple[str, int | None]:
    parts = urlsplit(f"{scheme}://{netloc}")
    try:
        port = parts.port
    except ValueError:
        port = -1  # a malformed port matches nothing
    return (parts.hostname or "", port if port is not None else {"http": 80, "https": 443}.get(scheme))


def _same_origin(origin: str, host: str | None) -> bool:
    """Whether a browser's ``Origin`` names the server the request reached (its ``Host``); ``null`` never does."""
    parts = urlsplit(origin.strip())
    if host is None or parts.scheme not in ("http", "https"):
        return False
    return _host_port(parts.netloc, parts.scheme) == _host_port(host, parts.scheme)


def from_elsewhere(sec_fetch_site: str | None) -> bool:
    """Whether a browser marked the request as sent for a page of another origin (Fetch Metadata): any
    ``Sec-Fetch-Site`` but ``same-origin`` (the page itself) and ``none`` (a typed URL, a bookmark). ``same-site``
    counts: another port of localhost is another origin. Clients without a browser send no such header."""
    return sec_fetch_site is not None and sec_fetch_site.strip().lower() not in ("same-origin", "none")


def _followed_link(scope: Scope, headers: dict[bytes, str]) -> bool:
    """A top-level navigation to the page (a link from elsewhere): it shows the page, the API stays refused."""
    return (scope.get("method") == "GET" and headers.get(b"sec-fetch-mode", "").lower() == "navigate"
            and not str(scope.get("path", "")).startswith("/api"))


class LocalOnly:
    """Local mode's guard against the browser as a confused deputy (tests/security/test_local_cross_site.py).

    Local mode trusts whoever reaches the port, and a browser reaches it on behalf of every page it shows. A page
    of another origin may POST ``multipart/form-data`` without a CORS preflight: the answer stays opaque to it,
    but the upload was ingested (a planted page, or a known file name replaced). And a page whose domain
    re-resolves to 127.0.0.1 (DNS rebinding) is same-origin with the server and reads everything. So a request
    whose ``Origin`` is not the server's own is refused, and, bound to loopback, so is one whose ``Host`` is not a
    loopback name. Non-browser clients send no ``Origin``; the web page's own requests carry its origin.

    A page's no-cors GETs (``<img src>``, ``<script src>``, prefetch) carry no ``Origin`` at all, so that check
    alone let another page run searches as the trusted user. Browsers mark every request with Fetch Metadata:
    ``Sec-Fetch-Site`` other than ``same-origin`` (the page itself, its EventSource) or ``none`` (a typed URL, a
    bookmark) is refused too — ``same-site`` included, since another port of localhost is another origin — but for
    a link followed to the web page itself (a top-level GET navigation outside ``/api``), which runs nothing: the
    page it serves then fills a ``?q=`` in without searching (``_mount_web``).
    """

    def __init__(self, app: ASGIApp, *, loopback: bool) -> None:
        self.app, self.loopback = app, loopback

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = {k.lower(): v.decode("latin-1") for k, v in scope["headers"]}
            host, origin = headers.get(b"host"), headers.get(b"origin")
            site = headers.get(b"sec-fetch-site")
            refused = None
            if host is not None and self.loopback and not is_loopback_name(_host_port(host, "http")[0]):
                refused = f"this local-mode server answers to localhost names only, not {host!r}"
            elif origin is not None and not _same_origin(origin, host):
                refused = "a page of another origin may not use this local-mode server"
            elif from_elsewhere(site) and not _followed_link(scope, headers):
                refused = "a page of another origin may not use this local-mode server"
            if refused is not None:
                response = error_response(403, "FORBIDDEN", refused, {"reason": "cross-site"})
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


class NoFraming:
    """Every response forbids being shown in another page's frame (``X-Frame-Options``, CSP ``frame-ancestors``).

    A framed page's own requests are same-origin, so neither the Origin nor the Fetch Metadata check sees them: a
    page of another site could frame the web page (``/?q=`` runs a search; in local mode it is the trusted user,
    with keys the page sends the key it keeps) and trick clicks into uploads or deletes. The page frames nothing.
    """

    HEADERS = ((b"x-frame-options", b"DENY"), (b"content-security-policy", b"frame-ancestors 'none'"))

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def framed(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _ in message.get("headers", [])}
                message["headers"] = [*message.get("headers", []),
                                      *((k, v) for k, v in self.HEADERS if k not in present)]
            await send(message)

        await self.app(scope, receive, framed)


def _web_dir() -> Path:
    return Path(__file__).resolve().parent.parent / "web"


def _plotly_js() -> Path | None:
    """The charting library comes from the pinned ``plotly`` wheel's package data, not from this repository."""
    try:
        path = Path(str(importlib.resources.files("plotly") / "package_data" / "plotly.min.js"))
    except ModuleNotFoundError:
        return None
    return path if path.is_file() else None


def create_app(engine: Engine, settings: Settings | None = None, *, keys: KeyStore | None = None) -> FastAPI:
    """Build the HTTP app over an open ``engine``. The caller owns the engine and closes it.

    ``settings`` defaults to ``engine.settings``. With ``settings.api.local_mode`` false, API keys are read from
    ``keys`` or the keys file (``api.keys_file``, default ``<data_dir>/api-keys.json``).
    """
    settings = settings or engine.settings
    # sse-starlette logs every event it sends at DEBUG, i.e. every user's results and source text; an operator
    # turning the root logger up to DEBUG must not copy them into log files (tests/security/test_logs.py).
    logging.getLogger("sse_starlette").setLevel(max(logging.INFO, logging.getLogger("sse_starlette").level))
    if not settings.api.local_mode:
        keys = keys or KeyStore(keys_path(settings))
    else:
        keys = None
    app = FastAPI(
        docs_url=None,  # served by _mount_docs from packaged assets: FastAPI's default pages load from a CDN
        redoc_url=None,  # the same CDN problem; /docs covers it
        title="groundsearch",
        summary="Search a mixed knowledge base and answer in the shape asked, grounded in stored evidence.",
        version=_version(),
        responses={code: {"model": ErrorBody, "description": text} for code, text in _ERRORS.items()},
    )
    app.state.gs = ApiState(engine=engine, settings=settings, keys=keys, limiter=RateLimiter(settings))
    install_error_handlers(app)
    app.include_router(search_router)
    app.include_router(curation_router)
    app.include_router(audit_router)
    app.include_router(items_router)
    app.include_router(jobs_router)
    app.include_router(chat_router)
    app.include_router(feedback_router)
    app.state.jobs = JobRunner(engine, settings)
    _mount_web(app)
    _mount_docs(app)
    _publish_openapi_without_422(app)
    app.add_middleware(BodyLimit, max_bytes=settings.api.max_body_bytes,
                       upload_bytes=max(UPLOAD_MAX_BYTES, settings.api.max_body_bytes))
    if settings.api.local_mode:  # with keys, a page has no credential to send: a key is never ambient
        app.add_middleware(LocalOnly, loopback=is_loopback_name(settings.api.host))
    app.add_middleware(NoFraming)  # outermost: the refusals above carry the headers too
    return app


def _mount_web(app: FastAPI) -> None:
    web = _web_dir()
    if not (web / "index.html").is_file():
        raise ConfigError(f"the web page is missing from the installation ({web}); reinstall groundsearch")

    @app.get("/", include_in_schema=False)
    def index(request: Request) -> HTMLResponse:
        """The page. Opened by a link from another site it is marked ``data-arrived="elsewhere"``, and its script
        then only fills ``?q=`` into the box: a link on any page could otherwise make the user's server run a
        search — as the trusted user in local mode, with the key the page keeps otherwise — spending its budget
        and adding the linker's words to the user's popular topics (tests/security/test_local_cross_site.py)."""
        html = (web / "index.html").read_text(encoding="utf-8")
        if from_elsewhere(request.headers.get("sec-fetch-site")):
            html = html.replace("<html ", '<html data-arrived="elsewhere" ', 1)
        return HTMLResponse(html, headers={"Cache-Control": "no-cache", "Vary": "Sec-Fetch-Site"})

    plotly = _plotly_js()
    if plotly is not None:
        @app.get("/static/vendor/plotly.min.js", include_in_schema=False)
        def plotly_js() -> FileResponse:
            return FileResponse(plotly, media_type="text/javascript",
                                headers={"Cache-Control": "public, max-age=86400"})

    app.mount("/static", StaticFiles(directory=web / "static"), name="static")


def _docs_assets() -> Path | None:
    """Swagger UI 5 as files of the pinned ``fastapi-offline`` wheel (only its assets are used). Its ReDoc build is
    not served: it loads a logo from redoc.ly's CDN."""
    try:
        path = Path(str(importlib.resources.files("fastapi_offline") / "static"))
    except ModuleNotFoundError:
        return None
    return path if (path / "swagger-ui-bundle.js").is_file() else None


def _mount_docs(app: FastAPI) -> None:
    """``/docs`` (Swagger UI) with every asset served by this app, so it works air-gapped."""
    from fastapi.openapi.docs import get_swagger_ui_html
    from fastapi.responses import HTMLResponse

    assets = _docs_assets()
    if assets is None:
        return
    app.mount("/docs/assets", StaticFiles(directory=assets), name="docs-assets")  # not under /static (matched first)
    openapi_url = app.openapi_url or "/openapi.json"

    @app.get("/docs", include_in_schema=False)
    def swagger_ui() -> HTMLResponse:
        return get_swagger_ui_html(openapi_url=openapi_url, title="groundsearch API",
                                   swagger_js_url="/docs/assets/swagger-ui-bundle.js",
                                   swagger_css_url="/docs/assets/swagger-ui.css",
                                   swagger_favicon_url="/docs/assets/favicon.png")


def _publish_openapi_without_422(app: FastAPI) -> None:
    """Validation errors are 400s here, so drop FastAPI's default 422 entries from the published document."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = build()
            for path in schema.get("paths", {}).values():
                for op in path.values():
                    op.get("responses", {}).pop("422", None)
            schemas = schema.get("components", {}).get("schemas", {})
            schemas.pop("HTTPValidationError", None)
            schemas.pop("ValidationError", None)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("groundsearch")
    except PackageNotFoundError:
        return "0"


def uvicorn_config(app: ASGIApp, settings: Settings, **options: Any) -> Any:
    """The uvicorn configuration ``groundsearch serve`` runs ``app`` with.

    uvicorn believes ``X-Forwarded-For`` from 127.0.0.1 unless told otherwise, so on loopback any client could name
    itself anyone and dodge the per-client rate limit. Forwarding headers count only when ``api.trusted_proxies``
    names the proxies that set them; otherwise the TCP peer is the client.
    """
    import uvicorn

    trusted = list(settings.api.trusted_proxies)
    config = uvicorn.Config(app, proxy_headers=bool(trusted), forwarded_allow_ips=trusted or None,
                            log_level="warning", **options)
    access = logging.getLogger("uvicorn.access")  # configured by Config() above; the filter must come after
    if not any(isinstance(f, PathOnly) for f in access.filters):
        access.addFilter(PathOnly())
    return config


class PathOnly(logging.Filter):
    """uvicorn's access log prints each request line with its query string, and ``GET /api/search?q=…`` carries
    what the user typed: keep the path, drop the query (docs/operations.md: no raw query text in logs)."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str) and "?" in args[2]:
            record.args = (*args[:2], args[2].split("?", 1)[0] + "?…", *args[3:])
        return True
