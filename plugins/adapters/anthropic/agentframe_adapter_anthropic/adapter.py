"""`AnthropicAdapter`: the Anthropic Messages API (`POST {base_url}/messages`), over httpx."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import httpx

from agentframe_core import Capabilities, Completion, CompletionRequest, redact_url

from .errors import (
    AuthenticationError,
    BadRequestError,
    ConnectionFailedError,
    LLMError,
    ModelNotFoundError,
    OverloadedError,
    ProtocolError,
    RateLimitError,
    ServerError,
    StreamInterruptedError,
)
from .options import AnthropicOptions
from .retry import RETRY_ERRORS, backoff_delay, retry_after, retryable_status
from .stream import StreamAssembler, decode_event, sse_events
from .thinking import ThinkingMemory
from .wire import (
    Blocks,
    cache_control,
    messages_to_wire,
    parse_message,
    place_breakpoints,
    system_to_wire,
    tool_to_wire,
)

__all__ = ["MAX_BODY_BYTES", "AnthropicAdapter"]

log = logging.getLogger("agentframe.anthropic")

#: A whole (non-streamed) reply; the API's largest replies are a few hundred kilobytes.
MAX_BODY_BYTES = 32 << 20
#: What of an error body is read to explain the error.
MAX_ERROR_BYTES = 64 << 10


class AnthropicAdapter:
    """Talks to `{base_url}/messages`. Retries 429, 529 (overloaded), other 5xx and connection
    failures with jittered exponential backoff (honouring retry-after); every other failure is
    a typed `LLMError` that names the URL and what to do. The key goes in `x-api-key` and is
    never shown: errors name where it came from."""

    def __init__(self, options: AnthropicOptions) -> None:
        self.options = options
        key, self._key_source = options.resolve_key()
        self._headers = {"anthropic-version": options.anthropic_version, **options.headers}
        if key:
            self._headers["x-api-key"] = key
        self._endpoint = f"{options.base_url}/messages"
        #: The endpoint as errors and logs show it: credentials in the URL are masked.
        self.url = redact_url(self._endpoint)
        self._timeout = httpx.Timeout(options.timeout, connect=options.connect_timeout)
        self._defaults: dict[str, Any] = {
            name: value
            for name, value in (
                ("temperature", options.temperature),
                ("top_p", options.top_p),
                ("top_k", options.top_k),
                ("stop_sequences", options.stop),
            )
            if value is not None
        }
        if options.thinking_budget is not None:
            self._defaults["thinking"] = {
                "type": "enabled",
                "budget_tokens": options.thinking_budget,
            }
        self._cache = cache_control(options.cache)
        self._capabilities = Capabilities(
            native_tools=options.native_tools,
            json_schema=False,  # the Messages API has no response_format
            streaming=True,
            context_window=options.context_window,
        )
        self._backoff = options.backoff()
        self._thinking = ThinkingMemory()
        self._http: httpx.AsyncClient | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def __repr__(self) -> str:
        return f"AnthropicAdapter({self.url}, key from {self._key_source})"

    @property
    def capabilities(self) -> Capabilities:
        return self._capabilities

    # -- the request -----------------------------------------------------------------------

    def body(self, request: CompletionRequest, *, stream: bool = False) -> dict[str, Any]:
        """The JSON body for `request` (public so benchmarks can send the very same bytes).
        Built fresh each time: the caching marks never touch the request."""
        body: dict[str, Any] = {}
        model = request.model or self.options.model
        if model:
            body["model"] = model
        body["max_tokens"] = request.max_tokens or self.options.max_tokens
        system = system_to_wire(request.messages)
        if system:
            body["system"] = system
        body["messages"] = messages_to_wire(request.messages, self._thinking.blocks_for)
        if request.tools and self.options.native_tools:
            body["tools"] = [tool_to_wire(tool) for tool in request.tools]
        body.update(self._defaults)
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if stream:
            body["stream"] = True
        if self.options.extra_body:  # copied: the caching marks must not land in options
            body.update(copy.deepcopy(self.options.extra_body))
        if self._cache is not None:
            place_breakpoints(body, self._cache)
        return body

    def client(self) -> httpx.AsyncClient:
        """The pooled client of the running event loop (a client cannot cross loops: one
        made on another loop is closed first)."""
        loop = asyncio.get_running_loop()
        if self._http is not None and self._loop is not loop:
            self._release()
        if self._http is None:
            self._http = httpx.AsyncClient(headers=self._headers, timeout=self._timeout)
            self._loop = loop
        return self._http

    async def aclose(self) -> None:
        if self._http is not None and self._loop is asyncio.get_running_loop():
            http, self._http, self._loop = self._http, None, None
            await http.aclose()
        else:
            self._release()

    def _release(self) -> None:
        """Drop the client of another loop, closing it on that loop while it is open (a
        closed loop's connections are closed by the garbage collector)."""
        http, loop = self._http, self._loop
        self._http, self._loop = None, None
        if http is None or loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # the loop closed in between
            asyncio.run_coroutine_threadsafe(http.aclose(), loop)

    # -- the two calls ---------------------------------------------------------------------

    async def complete(self, request: CompletionRequest) -> Completion:
        response = await self._send(self.body(request))
        try:
            data = await self._json(response)
        finally:
            await response.aclose()
        return self._kept(*parse_message(data, self.url))

    async def stream(self, request: CompletionRequest) -> AsyncIterator[str | Completion]:
        body = self.body(request, stream=True)
        response = await self._send(body)
        assembler = StreamAssembler(self.url)
        delivered = 0
        try:
            if not response.headers.get("content-type", "").startswith("text/event-stream"):
                # A server that ignores `stream: true` sends the whole message as one object.
                completion = self._kept(*parse_message(await self._json(response), self.url))
                if completion.content:
                    yield completion.content
                yield completion
                return
            async for kind, data in sse_events(response.aiter_bytes(), self.url):
                event = decode_event(kind, data, self.url)
                kind = str(event.get("type") or kind)
                if kind == "error":
                    raise self._stream_error(event, delivered)
                text = assembler.feed(kind, event)
                if text:
                    delivered += len(text)
                    yield text
                if assembler.finished:
                    break
        except httpx.TransportError as err:
            raise StreamInterruptedError(
                f"the stream from {self.url} broke after {delivered} characters: {_reason(err)}",
                url=self.url,
            ) from err
        finally:
            await response.aclose()
        if not assembler.finished:
            raise StreamInterruptedError(
                f"the stream from {self.url} ended before the reply was complete "
                f"(no message_stop, after {delivered} characters)",
                url=self.url,
            )
        yield self._kept(*assembler.completion())

    def _kept(self, completion: Completion, thinking: Blocks) -> Completion:
        """Remember the thinking that led to tool calls: the next request must carry it."""
        if completion.tool_calls:
            self._thinking.keep(completion.tool_calls[0].id, thinking)
        return completion

    # -- sending, retrying, explaining -----------------------------------------------------

    @property
    def _attempts(self) -> int:
        return self.options.max_retries + 1

    async def _send(self, body: dict[str, Any]) -> httpx.Response:
        """The response, its body not read yet (a stream, or a reply read with a cap)."""
        client = self.client()
        options = self.options
        for attempt in range(1, self._attempts + 1):
            last = attempt == self._attempts
            try:
                request = client.build_request("POST", self._endpoint, json=body)
                response = await client.send(request, stream=True)
            except RETRY_ERRORS as err:
                if last:
                    raise ConnectionFailedError(
                        f"cannot get an answer from {self.url} ({_reason(err)}) after "
                        f"{attempt} attempt(s): is the server running, and is base_url right?",
                        url=self.url,
                    ) from err
                delay = backoff_delay(self._backoff, attempt)
                log.info("%s: %s; retry %d in %.2fs", self.url, _reason(err), attempt, delay)
                await asyncio.sleep(delay)
                continue
            except httpx.TimeoutException as err:
                raise ConnectionFailedError(
                    f"{self.url} sent nothing for {options.timeout:g}s ({_reason(err)}); "
                    "raise the adapter's `timeout` for slow models",
                    url=self.url,
                ) from err
            if response.status_code < 400:
                return response
            try:
                payload = _decoded(await _read_capped(response, MAX_ERROR_BYTES, self.url))
            except (httpx.TransportError, ProtocolError):
                payload = "(the error body could not be read)"
            finally:
                await response.aclose()
            status = response.status_code
            if retryable_status(status) and not last:
                wait = retry_after(response.headers)
                if wait is not None and wait > options.backoff_max:
                    raise RateLimitError(
                        f"{self.url} asks to retry after {wait:.0f}s ({status}), longer than "
                        f"backoff_max={options.backoff_max:g}s: {_message_of(payload)}",
                        url=self.url,
                        status=status,
                    )
                delay = wait if wait is not None else backoff_delay(self._backoff, attempt)
                log.info("%s: HTTP %d; retry %d in %.2fs", self.url, status, attempt, delay)
                await asyncio.sleep(delay)
                continue
            raise self._error(status, payload, body, attempt)
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def _json(self, response: httpx.Response) -> Any:
        raw = await _read_capped(response, MAX_BODY_BYTES, self.url)
        payload = _decoded(raw)
        if isinstance(payload, str):
            raise ProtocolError(
                f"{self.url} answered with something that is not JSON: {payload[:200]!r}",
                url=self.url,
                status=response.status_code,
            )
        return payload

    def _error(self, status: int, payload: Any, body: dict[str, Any], attempts: int) -> LLMError:
        message, kind = _message_of(payload), _type_of(payload)
        url = self.url
        if status in (401, 403):
            return AuthenticationError(
                f"{url} refused the request ({status}): {message}. The API key came from "
                f"{self._key_source}: set a valid key there "
                f"(or set api_key_env to the variable that holds it)",
                url=url,
                status=status,
            )
        if status == 429:
            return RateLimitError(
                f"{url} is still rate limiting (429) after {attempts} attempt(s): {message}",
                url=url,
                status=status,
            )
        if status == 529 or kind == "overloaded_error":
            return OverloadedError(
                f"{url} is overloaded ({status}) after {attempts} attempt(s): {message}",
                url=url,
                status=status,
            )
        if status >= 500:
            return ServerError(
                f"{url} failed with {status} after {attempts} attempt(s): {message}",
                url=url,
                status=status,
            )
        if status == 404 and "model" in message.lower():
            return ModelNotFoundError(
                f"model {body.get('model')!r} is not served at {url}: {message}",
                url=url,
                status=status,
            )
        if status == 404:
            return BadRequestError(
                f"{url} answered 404: {message}. Check base_url "
                f"({redact_url(self.options.base_url)}): the Messages API lives under the API "
                "root, which usually ends in /v1",
                url=url,
                status=status,
            )
        return BadRequestError(
            f"{url} rejected the request ({status}): {message}", url=url, status=status
        )

    def _stream_error(self, event: dict[str, Any], delivered: int) -> LLMError:
        message, kind = _message_of(event), _type_of(event)
        where = f"after {delivered} characters" if delivered else "before any text"
        text = f"{self.url} reported an error mid-stream ({kind or 'error'}, {where}): {message}"
        if kind == "overloaded_error":
            return OverloadedError(text, url=self.url)
        if kind == "rate_limit_error":
            return RateLimitError(text, url=self.url)
        return ServerError(text, url=self.url)

    async def models(self) -> list[str]:
        """The model ids `{base_url}/models` lists ([] when the server offers no list)."""
        try:
            response = await self.client().get(f"{self.options.base_url}/models", timeout=10)
            data = response.json().get("data", []) if response.status_code == 200 else []
            return [str(item["id"]) for item in data if isinstance(item, dict) and "id" in item]
        except (httpx.HTTPError, ValueError, AttributeError):
            return []


async def _read_capped(response: httpx.Response, limit: int, url: str) -> bytes:
    """The body, refused past `limit` bytes instead of held in memory."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > limit:
            raise ProtocolError(f"{url} sent a body larger than {limit} bytes: refused", url=url)
        chunks.append(chunk)
    return b"".join(chunks)


def _decoded(raw: bytes) -> Any:
    """JSON if the bytes are JSON, else their text."""
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", "replace")


def _message_of(payload: Any) -> str:
    """The server's own explanation: the API's `{"type": "error", "error": {"type",
    "message"}}`, or what else a server sends."""
    if isinstance(payload, dict):
        error = payload.get("error", payload)
        if isinstance(error, dict):
            return str(error.get("message") or error.get("detail") or error)[:500]
        return str(error)[:500]
    return str(payload).strip()[:500] or "(empty body)"


def _type_of(payload: Any) -> str:
    error = payload.get("error") if isinstance(payload, dict) else None
    return str(error.get("type") or "") if isinstance(error, dict) else ""


def _reason(err: Exception) -> str:
    return f"{type(err).__name__}: {err}" if str(err) else type(err).__name__
