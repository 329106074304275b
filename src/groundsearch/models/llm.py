"""LLM providers: one OpenAI-compatible chat client over httpx, and llama-cpp-python in process.

The one client covers Groq (selected by ``GROQ_API_KEY`` in settings), OpenAI, Ollama, vLLM and
llama.cpp servers. They differ in one way that matters here — how structured output is asked for:

* ``openai`` dialect (OpenAI, Groq, vLLM, Ollama):
  ``response_format = {"type": "json_schema", "json_schema": {"name", "strict": true, "schema"}}``;
* ``llamacpp`` dialect (llama-cpp-python's server and in-process ``Llama``):
  ``response_format = {"type": "json_object", "schema": …}``. Its server answers the OpenAI form with
  HTTP 500, and in process the OpenAI form is silently ignored (``../shared/MODELS.md``).

``dialect = "auto"`` asks the server's ``/models`` once: llama-cpp-python marks its models
``owned_by: "me"``. Every failure — timeout, HTTP error, unreachable — is an :class:`LLMError` whose
``details["kind"]`` is ``timeout`` / ``http`` / ``unreachable`` / ``budget`` so callers can degrade.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import httpx

from ..errors import ConfigError, LLMError
from ..settings import LLMSettings
from . import metering
from .base import LLM, ChatMessage, Completion
from .tool_calls import calls_from_message, message_dict
from .watchdog import StallWatchdog

__all__ = [
    "FallbackLLM",
    "LlamaCppLLM",
    "OpenAICompatLLM",
    "TokenBudget",
    "build_llm",
    "llm_chain",
    "load_prompt",
    "models_of",
    "response_format",
]

Dialect = Literal["openai", "llamacpp"]
# llama-cpp-python's server reports this owner for its models; no other server we know of does.
_LLAMACPP_OWNER = "me"


def response_format(dialect: Dialect, schema: dict[str, Any], name: str = "output") -> dict[str, Any]:
    """The ``response_format`` body that makes ``dialect``'s endpoint decode under ``schema``."""
    if dialect == "openai":
        return {"type": "json_schema", "json_schema": {"name": name, "strict": True, "schema": schema}}
    return {"type": "json_object", "schema": schema}


def load_prompt(name: str, version: str = "v1") -> str:
    """The text of ``models/prompts/<version>/<name>.txt`` (package data, selectable by settings)."""
    if not name.replace("_", "").isalnum() or not version.replace(".", "").replace("_", "").isalnum():
        raise ConfigError(f"prompt name/version must be plain identifiers, got {name!r} / {version!r}")
    path = resources.files("groundsearch.models") / "prompts" / version / f"{name}.txt"
    if not path.is_file():
        raise ConfigError(
            f"prompt {name!r} version {version!r} does not exist (looked for models/prompts/{version}/{name}.txt); "
            "check llm.prompts_version"
        )
    return path.read_text(encoding="utf-8")


@dataclass
class TokenBudget:
    """Tokens one user request may spend across all its LLM calls (intent, retries, synthesis).

    Not shared between requests: each request makes its own, so concurrent requests never race on it.
    """

    total: int
    spent: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def remaining(self) -> int:
        return max(0, self.total - self.spent)

    def allow(self, max_tokens: int) -> int:
        """``max_tokens`` clamped to what is left; raises ``LLMError`` (kind ``budget``) when nothing is."""
        left = self.remaining
        if left <= 0:
            raise LLMError(
                f"request token budget of {self.total} is spent", details={"kind": "budget", "spent": self.spent}
            )
        return min(max_tokens, left)

    def charge(self, completion: Completion) -> None:
        with self._lock:
            self.spent += completion.prompt_tokens + completion.completion_tokens


class OpenAICompatLLM:
    """Chat completions over HTTP against any OpenAI-compatible endpoint, for one model of the chain."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        dialect: Literal["auto", "openai", "llamacpp"] = "auto",
        timeout_s: float = 20.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.name = model
        self._dialect: Dialect | None = None if dialect == "auto" else dialect
        self._lock = threading.Lock()
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(
            base_url=self.base_url, headers=headers, timeout=httpx.Timeout(timeout_s), transport=transport
        )
        self._timeout_s = timeout_s

    @property
    def timeout_s(self) -> float:
        """How long a call may go without progress: the narration's deadline when this client narrates."""
        return self._timeout_s

    def close(self) -> None:
        self._client.close()

    def _request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        where = f"LLM endpoint {self.base_url}{path}"
        dog: StallWatchdog | None = None
        try:
            response = self._client.send(self._client.build_request(method, path, **kwargs), stream=True)
            # the body must arrive within the timeout of the headers, however it trickles (models/watchdog.py)
            with StallWatchdog(response, self._timeout_s) as dog:
                response.read()
        except httpx.TransportError as exc:
            raise self._transport_failure(where, exc, dog, f"timed out after {self._timeout_s:g} s without "
                                          f"finishing its answer") from None
        finally:
            if dog is not None:
                response.close()
        if response.status_code >= 400:
            raise LLMError(
                f"{where} returned HTTP {response.status_code}: {response.text[:300]}",
                details={"kind": "http", "status": response.status_code},
            )
        return response

    def _transport_failure(self, where: str, exc: httpx.TransportError, dog: StallWatchdog | None,
                           stalled: str) -> LLMError:
        """httpx's own timeout, the stall watchdog closing the response (``stalled`` says how), or no endpoint."""
        if isinstance(exc, httpx.TimeoutException):
            return LLMError(f"{where} timed out after {self._timeout_s:g} s", details={"kind": "timeout"})
        if dog is not None and dog.expired:
            return LLMError(f"{where} {stalled}", details={"kind": "timeout"})
        return LLMError(f"{where} is unreachable ({exc})", details={"kind": "unreachable"})

    @property
    def dialect(self) -> Dialect:
        """The structured-output dialect; ``auto`` is resolved once from ``/models``."""
        with self._lock:
            if self._dialect is None:
                data = self._request("GET", "/models").json().get("data") or []
                owners = {m.get("owned_by") for m in data if isinstance(m, dict)}
                self._dialect = "llamacpp" if _LLAMACPP_OWNER in owners else "openai"
            return self._dialect

    def _body(self, messages: Sequence[ChatMessage], max_tokens: int, temperature: float,
              tools: Sequence[dict[str, Any]] | None, tool_choice: str | dict[str, Any] | None) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [message_dict(m) for m in messages],
            "max_tokens": metering.allow(max_tokens),
            "temperature": temperature,
        }
        if tools:
            body["tools"] = list(tools)
            body["tool_choice"] = tool_choice or "auto"
        return body

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int,
        json_schema: dict[str, Any] | None = None,
        temperature: float = 0.0,
        tools: Sequence[dict[str, Any]] | None = None,
        tool_choice: str | dict[str, Any] | None = None,
    ) -> Completion:
        body = self._body(messages, max_tokens, temperature, tools, tool_choice)
        if json_schema is not None:
            body["response_format"] = response_format(self.dialect, json_schema, json_schema.get("title", "output"))
        completion = self._completion(self._request("POST", "/chat/completions", json=body).json(), tools)
        metering.charge(completion)
        return completion

    def _completion(self, data: Any, tools: Sequence[dict[str, Any]] | None) -> Completion:
        """A non-streamed chat-completion body as a :class:`Completion` (not yet charged)."""
        try:
            choice = data["choices"][0]
            calls, text = calls_from_message(choice["message"], [t["function"]["name"] for t in tools or ()])
        except (KeyError, IndexError, TypeError, AttributeError):
            raise LLMError(
                f"LLM endpoint {self.base_url} answered without a message: {str(data)[:300]}",
                details={"kind": "http"},
            ) from None
        usage = data.get("usage") or {}
        return Completion(
            text=text,
            model=data.get("model") or self.model,
            finish_reason=choice.get("finish_reason"),
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
            tool_calls=calls,
        )

    def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int,
        temperature: float = 0.0,
        tools: Sequence[dict[str, Any]] | None = None,
        tool_choice: str | dict[str, Any] | None = None,
    ) -> Iterator[str | Completion]:
        """``complete`` with ``stream: true``: content deltas as they arrive, then the whole completion.

        Tool-call deltas (``delta.tool_calls``, arguments in fragments) are joined by index and parsed once the
        stream ends, with the same codec as ``complete``. Servers that send no ``usage`` chunk (llama.cpp's
        Python server ignores ``stream_options``) are charged one completion token per content delta and
        a prompt estimate of 4 characters per token, so the request budget still runs down."""
        # the SSE codec, imported here: only the streaming path needs it
        from httpx_sse import SSEError, connect_sse

        body = {**self._body(messages, max_tokens, temperature, tools, tool_choice), "stream": True,
                "stream_options": {"include_usage": True}}
        where = f"LLM endpoint {self.base_url}/chat/completions"
        content: list[str] = []
        calls: dict[int, dict[str, Any]] = {}
        usage: dict[str, Any] = {}
        model, finish = self.model, None
        dog: StallWatchdog | None = None
        try:
            with connect_sse(self._client, "POST", "/chat/completions", json=body) as source, \
                    StallWatchdog(source.response, self._timeout_s) as dog:
                if source.response.status_code >= 400:
                    source.response.read()
                    raise LLMError(f"{where} returned HTTP {source.response.status_code}: "
                                   f"{source.response.text[:300]}",
                                   details={"kind": "http", "status": source.response.status_code})
                if "application/json" in source.response.headers.get("content-type", ""):
                    # a server that ignores ``stream`` answers with the whole completion at once
                    source.response.read()
                    whole = self._completion(source.response.json(), tools)
                    metering.charge(whole)
                    if whole.text:
                        yield whole.text
                    yield whole
                    return
                for sse in source.iter_sse():
                    if sse.data.strip() == "[DONE]":
                        break
                    chunk = json.loads(sse.data)
                    dog.progress()  # a chunk of the answer: comments and keep-alives are not progress
                    usage = chunk.get("usage") or usage
                    model = chunk.get("model") or model
                    for choice in chunk.get("choices") or ():
                        finish = choice.get("finish_reason") or finish
                        delta = choice.get("delta") or {}
                        for raw in delta.get("tool_calls") or ():
                            call = calls.setdefault(int(raw.get("index") or 0), {"function": {"arguments": ""}})
                            call["id"] = raw.get("id") or call.get("id")
                            fn = raw.get("function") or {}
                            if fn.get("name"):
                                call["function"]["name"] = fn["name"]
                            call["function"]["arguments"] += fn.get("arguments") or ""
                        if delta.get("content"):
                            content.append(delta["content"])
                            yield delta["content"]
        except httpx.TransportError as exc:
            raise self._transport_failure(where, exc, dog, f"sent no answer for {self._timeout_s:g} s "
                                          f"(timed out)") from None
        except (SSEError, json.JSONDecodeError, AttributeError, TypeError, ValueError) as exc:
            raise LLMError(f"{where} sent a stream that is not chat-completion chunks ({exc})",
                           details={"kind": "http"}) from None
        message = {"content": "".join(content), "tool_calls": [calls[i] for i in sorted(calls)]}
        found, text = calls_from_message(message, [t["function"]["name"] for t in tools or ()])
        completion = Completion(
            text=text, model=model, finish_reason=finish,
            prompt_tokens=int(usage.get("prompt_tokens") or metering.estimated_prompt_tokens(messages)),
            completion_tokens=int(usage.get("completion_tokens") or len(content) + len(calls)),
            tool_calls=found,
        )
        metering.charge(completion)
        yield completion


class LlamaCppLLM:
    """A local GGUF run in process by llama-cpp-python (imported only when this class is built).

    Generation holds a lock: a ``Llama`` context is not safe to use from two threads at once.
    """

    def __init__(self, gguf_path: Path, *, n_ctx: int = 2048, n_threads: int = 2, timeout_s: float = 20.0) -> None:
        if not Path(gguf_path).is_file():
            raise ConfigError(f"llm.gguf_path {gguf_path} does not exist; scripts/setup_llm.sh builds one")
        try:
            from llama_cpp import Llama  # optional, heavy native import
        except ImportError:
            raise ConfigError(
                "llm.gguf_path is set but llama-cpp-python is not installed; install it with "
                "CMAKE_ARGS=-DGGML_NATIVE=OFF pip install llama-cpp-python==0.3.36 (or run scripts/setup_llm.sh)"
            ) from None
        self.name = f"gguf:{Path(gguf_path).name}"
        self._timeout_s = timeout_s
        self._lock = threading.Lock()
        self._llama = Llama(model_path=str(gguf_path), n_ctx=n_ctx, n_threads=n_threads, verbose=False)

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int,
        json_schema: dict[str, Any] | None = None,
        temperature: float = 0.0,
        tools: Sequence[dict[str, Any]] | None = None,
        tool_choice: str | dict[str, Any] | None = None,
    ) -> Completion:
        kwargs: dict[str, Any] = {}
        if json_schema is not None:
            kwargs["response_format"] = response_format("llamacpp", json_schema)
        if tools:
            kwargs["tools"] = list(tools)
            kwargs["tool_choice"] = tool_choice or "auto"
        max_tokens = metering.allow(max_tokens)
        started = time.perf_counter()
        with self._lock:
            try:
                data = self._llama.create_chat_completion(
                    messages=[message_dict(m) for m in messages],
                    max_tokens=max_tokens,
                    temperature=temperature,
                    **kwargs,
                )
            except Exception as exc:  # llama.cpp raises plain ValueError/RuntimeError for context overflow etc.
                raise LLMError(f"local model {self.name} failed: {exc}", details={"kind": "local"}) from exc
        elapsed = time.perf_counter() - started
        choice = data["choices"][0]
        usage = data.get("usage") or {}
        calls, text = calls_from_message(choice["message"], [t["function"]["name"] for t in tools or ()])
        completion = Completion(
            text=text,
            model=self.name,
            finish_reason=choice.get("finish_reason"),
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
            tool_calls=calls,
        )
        metering.charge(completion)  # spent even when late: the tokens were decoded
        if elapsed > self._timeout_s:
            # In-process decoding cannot be interrupted safely; a late answer is still reported as a timeout
            # so the caller's latency contract and degradation path are the same as for a server.
            raise LLMError(
                f"local model {self.name} took {elapsed:.1f} s, over the {self._timeout_s:g} s timeout",
                details={"kind": "timeout"},
            )
        return completion


def llm_chain(settings: LLMSettings, *, transport: httpx.BaseTransport | None = None) -> tuple[LLM, ...]:
    """One provider per model of the fallback chain, in order (a GGUF file is a chain of one)."""
    if settings.gguf_path is not None and not settings.base_url:
        return (LlamaCppLLM(settings.gguf_path, timeout_s=settings.timeout_s),)
    if not settings.base_url:
        raise ConfigError("no LLM configured: set llm.base_url (or GROQ_API_KEY) or llm.gguf_path")
    key = settings.api_key.get_secret_value() if settings.api_key else None
    # A single-model server (llama.cpp, a local vLLM) ignores the name; "default" keeps the body valid.
    models = settings.models or ("default",)
    return tuple(
        OpenAICompatLLM(
            settings.base_url, m, api_key=key, dialect=settings.dialect, timeout_s=settings.timeout_s,
            transport=transport,
        )
        for m in models
    )


def build_llm(settings: LLMSettings) -> LLM:
    """The first model of the configured chain (what the Engine holds); see :func:`llm_chain` for all."""
    chain = llm_chain(settings)
    return chain[0] if len(chain) == 1 else FallbackLLM(chain)


class FallbackLLM:
    """Several models tried in order; the first answer wins. ``chain`` lets callers that need per-model
    retry and circuit breaking (the intent tier) walk the models themselves."""

    def __init__(self, chain: Sequence[LLM]) -> None:
        if not chain:
            raise ConfigError("an LLM fallback chain needs at least one model")
        self.chain = tuple(chain)
        self.name = " > ".join(m.name for m in self.chain)

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int,
        json_schema: dict[str, Any] | None = None,
        temperature: float = 0.0,
        tools: Sequence[dict[str, Any]] | None = None,
        tool_choice: str | dict[str, Any] | None = None,
    ) -> Completion:
        failures = []
        extra: dict[str, Any] = {"tools": tools, "tool_choice": tool_choice} if tools else {}
        for model in self.chain:
            try:
                return model.complete(messages, max_tokens=max_tokens, json_schema=json_schema, temperature=temperature,
                                      **extra)
            except LLMError as exc:
                failures.append(f"{model.name}: {exc.message}")
        raise LLMError("every model of the chain failed: " + "; ".join(failures), details={"kind": "chain"})

    def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int,
        temperature: float = 0.0,
        tools: Sequence[dict[str, Any]] | None = None,
        tool_choice: str | dict[str, Any] | None = None,
    ) -> Iterator[str | Completion]:
        """The first model that starts answering streams; one that fails before its first piece hands over to
        the next. After text has been shown a failure is raised: the reader already saw that model's words."""
        failures = []
        extra: dict[str, Any] = {"tools": tools, "tool_choice": tool_choice} if tools else {}
        for model in self.chain:
            started = False
            try:
                if not hasattr(model, "stream"):
                    whole = model.complete(messages, max_tokens=max_tokens, temperature=temperature, **extra)
                    started = True
                    yield whole
                    return
                for piece in model.stream(messages, max_tokens=max_tokens, temperature=temperature, **extra):
                    started = True
                    yield piece
                return
            except LLMError as exc:
                if started:
                    raise
                failures.append(f"{model.name}: {exc.message}")
        raise LLMError("every model of the chain failed: " + "; ".join(failures), details={"kind": "chain"})


def models_of(llm: LLM) -> tuple[LLM, ...]:
    """The individual models behind ``llm`` (itself, unless it is a :class:`FallbackLLM`)."""
    return tuple(getattr(llm, "chain", (llm,)))
