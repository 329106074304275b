"""The MCP server (``groundsearch mcp``, stdio): ``find`` and ``chat`` tools, thin adapters over ``Engine``.

``find`` answers by query (over passages, whole documents, or records) or by ``similar_to`` an item id, with
filters and ``limit``/``offset`` paging. Every call returns both a Markdown rendering (what a model reads; cut at
10,000 characters so one call cannot flood a context window) and the same hits as structured content (what a
program reads), validated against the published output schema.

Tenancy: the tool sees one tenant — ``mcp.tenant`` (``GROUNDSEARCH_MCP_TENANT``, ``groundsearch mcp --tenant``),
the default tenant ``''`` unless set — and every tenant together only when ``mcp.all_tenants`` is set
explicitly. An item id of another tenant is unknown to it, also as a ``similar_to`` seed. Only published,
current items are searched: the tool has no include flags, since its caller is a model, not an editor.
"""

from __future__ import annotations

import functools
from typing import Annotated, Any, Literal

import anyio
from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel, Field

from ..engine import Engine, snippet
from ..errors import GroundsearchError, InvalidInput
from ..query.filters import MAX_FILTER_VALUES, build_filter
from ..scope import ALL_TENANTS_SCOPE, MCP_OWNER  # MCP_OWNER: its conversations are its own, never a key's
from ..settings import Settings
from ..types import MAX_COLLECTION_CHARS, MAX_ITEM_ID_CHARS, SearchRequest

__all__ = ["FindHit", "FindResult", "build_server", "render_markdown", "run_stdio", "tenant_scope"]

MARKDOWN_MAX_CHARS = 10_000
MAX_LIMIT = 50
# as far as /api/items/{id}/similar reaches: each neighbour asked for costs 4 vector candidates and a read of each
# candidate's vectors, so offset 10,000 was 0.35 s a call on a 3,000-item store (0.005 s for the first page)
SIMILAR_MAX = 100
Kind = Literal["chunks", "documents", "records"]


class FindHit(BaseModel):
    id: str = Field(description="evidence id (chunk id) for queries; the item id for similar_to")
    item_id: str
    collection: str
    title: str
    url: str | None = None
    date: str | None = None
    snippet: str
    heading_path: list[str] = []
    score: float
    fields: dict[str, Any] = {}
    likely_duplicate: bool | None = None


class FindResult(BaseModel):
    query: str | None
    similar_to: str | None
    kind: Kind
    offset: int
    limit: int
    has_more: bool
    next_offset: int | None
    answer: str | None = Field(default=None, description="the pipeline's cited prose, when it wrote one")
    request_id: str | None = Field(default=None, description="names this search for the `feedback` tool")
    results: list[FindHit]


def render_markdown(result: FindResult, max_chars: int = MARKDOWN_MAX_CHARS) -> str:
    """Hits as Markdown; cut on a line boundary at ``max_chars`` with a note saying how to see the rest."""
    head = f"similar to `{result.similar_to}`" if result.similar_to else f"“{result.query}”"
    lines = [f"## {len(result.results)} {result.kind} for {head} (from #{result.offset + 1})", ""]
    if result.answer:
        lines += [result.answer, ""]
    for n, hit in enumerate(result.results, start=result.offset + 1):
        title = f"[{hit.title}]({hit.url})" if hit.url else hit.title
        meta = " · ".join(x for x in (hit.collection, hit.date, f"score {hit.score:.3f}",
                                      "likely duplicate" if hit.likely_duplicate else None) if x)
        lines.append(f"{n}. **{title}** — `{hit.id}` ({meta})")
        if hit.heading_path:
            lines.append(f"   {' › '.join(hit.heading_path)}")
        lines.append(f"   {hit.snippet}")
    if result.has_more:
        lines += ["", f"More results: call again with offset={result.next_offset}."]
    text = "\n".join(lines)
    if len(text) <= max_chars:
        return text
    note = f"\n\n[truncated at {max_chars} characters; the structured content has every result]"
    cut = text.rfind("\n", 0, max_chars - len(note))
    return text[: cut if cut > 0 else max_chars - len(note)] + note


def _collections_of(settings: Settings, kind: Kind, asked: list[str] | None) -> tuple[str, ...] | None:
    if kind == "chunks":
        return tuple(asked) if asked else None
    if asked:
        return tuple(asked)  # the engine validates the names
    names = [c.name for c in settings.collections if c.kind == kind]
    if not names:
        raise InvalidInput(f"no {kind} collections are configured", details={"field": "kind"})
    return tuple(names)


def tenant_scope(settings: Settings) -> str | None:
    """The tenant the tool is scoped to; ``None`` (every tenant) only when configured by name. The reserved scope
    ``*`` is no tenant: read as "every tenant", it saw nothing and kept its records among the operators'."""
    if not settings.mcp.all_tenants and settings.mcp.tenant == ALL_TENANTS_SCOPE:
        raise InvalidInput(f"mcp tenant {ALL_TENANTS_SCOPE!r} is reserved (the records of callers that read every "
                           "tenant); for every tenant use --all-tenants (mcp.all_tenants = true)",
                           details={"field": "mcp.tenant"})
    return None if settings.mcp.all_tenants else settings.mcp.tenant


def find(engine: Engine, *, query: str | None, similar_to: str | None, kind: Kind, collections: list[str] | None,
         filters: dict[str, str | list[str]] | None, limit: int, offset: int, tenant: str | None) -> FindResult:
    """The tool's work, synchronous and transport-free (the MCP handler runs it in a worker thread)."""
    if bool(query) == bool(similar_to):
        raise InvalidInput("give exactly one of 'query' or 'similar_to'", details={"field": "query"})
    limit = max(1, min(MAX_LIMIT, limit))
    common = dict(query=query, similar_to=similar_to, kind=kind, offset=offset, limit=limit)
    if similar_to:
        if offset + limit > SIMILAR_MAX:
            raise InvalidInput(f"similar_to pages reach the {SIMILAR_MAX} nearest items at most: offset + limit "
                               f"must be at most {SIMILAR_MAX}", details={"field": "offset", "max": SIMILAR_MAX})
        f = build_filter(engine.settings.collections, collections=_collections_of(engine.settings, kind, collections),
                         filters=filters, tenant=tenant)
        hits = engine.similar(similar_to, limit=offset + limit + 1, filter=f)
        page = hits[offset: offset + limit]
        has_more = len(hits) > offset + limit
        results = [FindHit(id=h.item.id, item_id=h.item.id, collection=h.item.collection, title=h.item.title,
                           url=h.item.url, date=h.item.date.isoformat() if h.item.date else None,
                           snippet=snippet(h.item.text), score=h.cosine, likely_duplicate=h.likely_duplicate,
                           fields=_plain(h.item.fields)) for h in page]
        return FindResult(**common, has_more=has_more, next_offset=offset + limit if has_more else None,
                          results=results)
    request = SearchRequest(query=query, limit=limit, offset=offset, filters=filters,
                            collections=_collections_of(engine.settings, kind, collections))
    response = engine.search(request, tenant=tenant, surface="mcp")
    hits = [FindHit(id=r.id, item_id=r.item_id, collection=r.collection, title=r.title, url=r.url,
                    date=r.date.isoformat() if r.date else None, snippet=r.snippet, heading_path=list(r.heading_path),
                    score=r.score, fields=dict(r.fields)) for r in response.results]
    if kind == "documents":
        # One entry per document: its best passage stands for it. Paging stays over passages, so a page may
        # hold fewer documents than ``limit`` — honest, and it never skips a document between pages.
        seen: set[str] = set()
        hits = [h for h in hits if not (h.item_id in seen or seen.add(h.item_id))]
    answer = response.prose.text if response.prose.sentences else None
    return FindResult(**common, has_more=response.has_more, answer=answer,
                      request_id=response.diagnostics.request_id, next_offset=offset + limit if response.has_more else None, results=hits)


def _plain(fields: Any) -> dict[str, Any]:
    return {k: (list(v) if isinstance(v, tuple) else v.isoformat() if hasattr(v, "isoformat") else v)
            for k, v in dict(fields).items()}


def build_server(engine: Engine) -> MCPServer:
    tenant = tenant_scope(engine.settings)
    server = MCPServer(name="groundsearch", instructions=(
        "Search the user's knowledge base. Use `find` with a query (kind: chunks for passages, documents for whole "
        "documents, records for dated records) or with similar_to an item id; page with offset."))

    @server.tool(name="find", title="Find in the knowledge base")
    async def find_tool(
        query: Annotated[str | None, Field(description="what to look for (natural language or keywords)",
                                           max_length=2000)] = None,
        similar_to: Annotated[str | None, Field(description="an item id: find items similar to it instead",
                                                max_length=MAX_ITEM_ID_CHARS)] = None,
        kind: Annotated[Kind, Field(description="passages (chunks), whole documents, or records")] = "chunks",
        # the HTTP edge's bounds (stdio has no body limit): a name as long as a collection's, as many as a filter's
        collections: Annotated[list[Annotated[str, Field(max_length=MAX_COLLECTION_CHARS)]] | None, Field(
            description="restrict to these collections", max_length=MAX_FILTER_VALUES)] = None,
        filters: Annotated[dict[str, str | list[str]] | None, Field(
            description="field -> value or values; date_from / date_to take YYYY-MM-DD or YYYY-MM; review filters: "
                        "review_status (verified/unverified/flagged), overdue_review ('true'), "
                        "review_due_within_days (1-365), freshness (fresh/aging/stale)")] = None,
        limit: Annotated[int, Field(ge=1, le=MAX_LIMIT)] = 10,
        offset: Annotated[int, Field(ge=0, le=10_000)] = 0,
    ) -> Annotated[CallToolResult, FindResult]:
        """Search documents, records or passages by query, or find items similar to an item id.

        Returns Markdown (at most 10,000 characters) and the same results as structured content, with
        `has_more` and `next_offset` for paging.
        """
        try:
            result = await anyio.to_thread.run_sync(functools.partial(
                find, engine, query=query, similar_to=similar_to, kind=kind, collections=collections,
                filters=filters, limit=limit, offset=offset, tenant=tenant))
        except GroundsearchError as exc:
            return CallToolResult(content=[TextContent(type="text", text=f"error: {exc.message}")], is_error=True)
        return CallToolResult(content=[TextContent(type="text", text=render_markdown(result))],
                              structured_content=result.model_dump(mode="json"))

    @server.tool(name="feedback", title="Mark a source as useful or not")
    async def feedback_tool(
        request_id: Annotated[str, Field(description="`request_id` of a `find` result", max_length=64)],
        item_id: Annotated[str, Field(description="the `item_id` of one of its results", max_length=MAX_ITEM_ID_CHARS)],
        useful: Annotated[bool, Field(description="whether that source helped")],
    ) -> str:
        """Mark a source a `find` search returned as useful or not; marks gently lift useful items in the
        weighted ranking (at most 3 %, and only once an item has two marks)."""
        try:
            mark = await anyio.to_thread.run_sync(functools.partial(
                engine.add_feedback, request_id, item_id, useful, tenant=tenant, owner=MCP_OWNER))
        except GroundsearchError as exc:
            return f"error: {exc.message}"
        return f"recorded {'useful' if mark.useful else 'not useful'} for {mark.item_id} (feedback id {mark.id})"

    @server.tool(name="chat", title="Ask the grounded assistant")
    async def chat_tool(
        message: Annotated[str, Field(description="what to ask or tell the assistant", min_length=1, max_length=2000)],
        conversation_id: Annotated[str | None, Field(description="continue this conversation (from a previous "
                                                                 "answer); omitted: start a new one")] = None,
    ) -> CallToolResult:
        """One turn with the grounded assistant: a reply citing sources as [n], plus the discovery question or
        handoff it decided on; the structured content has the dossier and the audit trace."""
        from ..assistant.turn import fold_chat, run_turn
        from .chat_text import turn_lines

        try:
            answer = await anyio.to_thread.run_sync(lambda: fold_chat(run_turn(
                engine, message, conversation_id=conversation_id, tenant=tenant or "", search_tenant=tenant,
                owner=MCP_OWNER)))
        except GroundsearchError as exc:
            return CallToolResult(content=[TextContent(type="text", text=f"error: {exc.message}")], is_error=True)
        text = "\n".join(turn_lines(answer)) + f"\n\n(conversation_id: {answer['conversation_id']})"
        return CallToolResult(content=[TextContent(type="text", text=text[:MARKDOWN_MAX_CHARS])],
                              structured_content=_json_safe(answer))

    return server


def _json_safe(value: Any) -> Any:
    import json

    return json.loads(json.dumps(value, default=str))


def run_stdio(settings: Settings) -> None:
    """Open the engine and serve MCP over stdin/stdout until the client closes the pipe."""
    with Engine.open(settings, shared=True) as engine:  # beside a running `serve`, as the CLI does
        build_server(engine).run("stdio")
