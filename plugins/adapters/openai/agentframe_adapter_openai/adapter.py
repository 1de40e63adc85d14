"""`OpenAIAdapter`: one OpenAI-compatible chat-completions endpoint, over pooled httpx."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
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
    ProtocolError,
    RateLimitError,
    ServerError,
    StreamInterruptedError,
)
from .options import OpenAIOptions
from .retry import RETRY_ERRORS, backoff_delay, retry_after, retryable_status
from .sse import sse_data
from .window import served_context
from .wire import (
    StreamAssembler,
    message_to_wire,
    parse_completion,
    response_format,
    tool_to_wire,
)

__all__ = ["OpenAIAdapter"]

log = logging.getLogger("agentframe.openai")

_SAMPLING = ("temperature", "top_p", "max_tokens", "seed", "stop")


class OpenAIAdapter:
    """Talks to `{base_url}/chat/completions`. Retries 429, 5xx and connection failures with
    jittered exponential backoff (honouring Retry-After); every other failure is a typed
    `LLMError` that names the URL and what to do."""

    def __init__(self, options: OpenAIOptions) -> None:
        self.options = options
        key, self._key_source = options.resolve_key()
        self._headers = {**options.headers}
        if key:
            self._headers["Authorization"] = f"Bearer {key}"
        self._endpoint = f"{options.base_url}/chat/completions"
        #: The endpoint as errors and logs show it: credentials in the URL are masked.
        self.url = redact_url(self._endpoint)
        self._timeout = httpx.Timeout(options.timeout, connect=options.connect_timeout)
        self._defaults = {
            name: getattr(options, name) for name in _SAMPLING if getattr(options, name) is not None
        }
        self._capabilities = Capabilities(
            native_tools=options.native_tools,
            json_schema=options.json_schema,
            streaming=True,
            context_window=options.context_window,
        )
        self._backoff = options.backoff()
        self._window_asked = options.context_window is not None
        self._http: httpx.AsyncClient | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def capabilities(self) -> Capabilities:
        return self._capabilities

    # -- the request -----------------------------------------------------------------------

    def body(self, request: CompletionRequest, *, stream: bool = False) -> dict[str, Any]:
        """The JSON body for `request` (public so benchmarks can send the very same bytes)."""
        body: dict[str, Any] = {}
        model = request.model or self.options.model
        if model:
            body["model"] = model
        body["messages"] = [message_to_wire(message) for message in request.messages]
        body.update(self._defaults)
        if request.max_tokens is not None:
            body["max_tokens"] = request.max_tokens
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if request.tools and self.options.native_tools:
            body["tools"] = [tool_to_wire(tool) for tool in request.tools]
        if request.response_schema is not None and self.options.json_schema:
            body["response_format"] = response_format(request.response_schema)
        if stream:
            body["stream"] = True
            if self.options.stream_usage:
                body["stream_options"] = {"include_usage": True}
        body.update(self.options.extra_body)
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
        """Drop the client of another loop, closing it on that loop while it is open.

        A closed loop's connections cannot be closed any more: `transport.close()` schedules
        its last step on their loop, which raises once closed. Nothing keeps them alive either
        (closing the loop closed its selector), so the garbage collector closes their sockets
        as soon as the client is dropped."""
        http, loop = self._http, self._loop
        self._http, self._loop = None, None
        if http is None or loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # the loop closed in between
            asyncio.run_coroutine_threadsafe(http.aclose(), loop)

    # -- the two calls ---------------------------------------------------------------------

    async def complete(self, request: CompletionRequest) -> Completion:
        body = self.body(request)
        response = await self._send(body, stream=False)
        try:
            data = response.json()
        except ValueError as err:
            raise ProtocolError(
                f"{self.url} answered with something that is not JSON: {response.text[:200]!r}",
                url=self.url,
                status=response.status_code,
            ) from err
        return parse_completion(data, self.url)

    async def stream(self, request: CompletionRequest) -> AsyncIterator[str | Completion]:
        body = self.body(request, stream=True)
        response = await self._send(body, stream=True)
        assembler = StreamAssembler(self.url)
        done = False
        try:
            if not response.headers.get("content-type", "").startswith("text/event-stream"):
                # A server that ignores `stream: true` sends the whole reply as one object.
                await response.aread()
                completion = parse_completion(_json(response, self.url), self.url)
                if completion.content:
                    yield completion.content
                yield completion
                return
            async for data in sse_data(response.aiter_lines()):
                if data == "[DONE]":
                    done = True
                    break
                chunk = _decode_event(data, self.url)
                if "error" in chunk and not chunk.get("choices"):
                    raise self._error(response.status_code, chunk, body, self._attempts)
                text = assembler.feed(chunk)
                if text:
                    yield text
        except httpx.TransportError as err:
            raise StreamInterruptedError(
                f"the stream from {self.url} broke after {len(''.join(assembler.text))} "
                f"characters: {_reason(err)}",
                url=self.url,
            ) from err
        finally:
            await response.aclose()
        if not (done or assembler.finished):
            raise StreamInterruptedError(
                f"the stream from {self.url} ended before the reply was complete "
                "(no finish_reason and no [DONE])",
                url=self.url,
            )
        yield assembler.completion()

    # -- sending, retrying, explaining -----------------------------------------------------

    @property
    def _attempts(self) -> int:
        return self.options.max_retries + 1

    async def _send(self, body: dict[str, Any], *, stream: bool) -> httpx.Response:
        client = self.client()
        options = self.options
        for attempt in range(1, self._attempts + 1):
            last = attempt == self._attempts
            try:
                request = client.build_request("POST", self._endpoint, json=body)
                response = await client.send(request, stream=stream)
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
            await response.aread()
            await response.aclose()
            if retryable_status(response.status_code) and not last:
                wait = retry_after(response.headers)
                if wait is not None and wait > options.backoff_max:
                    raise RateLimitError(
                        f"{self.url} asks to retry after {wait:.0f}s ({response.status_code}), "
                        f"longer than backoff_max={options.backoff_max:g}s: "
                        f"{_server_message(response)}",
                        url=self.url,
                        status=response.status_code,
                    )
                delay = wait if wait is not None else backoff_delay(self._backoff, attempt)
                log.info(
                    "%s: HTTP %d; retry %d in %.2fs",
                    self.url,
                    response.status_code,
                    attempt,
                    delay,
                )
                await asyncio.sleep(delay)
                continue
            if response.status_code == 404 or _names_missing_model(response):
                raise await self._not_found(response, body)
            raise self._error(response.status_code, _payload(response), body, attempt)
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _error(self, status: int, payload: Any, body: dict[str, Any], attempts: int) -> LLMError:
        message = _message_of(payload)
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
        if status >= 500:
            return ServerError(
                f"{url} failed with {status} after {attempts} attempt(s): {message}",
                url=url,
                status=status,
            )
        if status < 400:  # an error event inside a stream
            return ServerError(f"{url} reported an error mid-stream: {message}", url=url)
        return BadRequestError(
            f"{url} rejected the request ({status}): {message}", url=url, status=status
        )

    async def _not_found(self, response: httpx.Response, body: dict[str, Any]) -> LLMError:
        model = body.get("model")
        available = await self.models()
        if model and available and model not in available:
            return ModelNotFoundError(
                f"model {model!r} is not served at {redact_url(self.options.base_url)}; it offers: "
                f"{', '.join(available)}",
                url=self.url,
                status=response.status_code,
                available=available,
            )
        return BadRequestError(
            f"{self.url} answered {response.status_code}: {_server_message(response)}. Check "
            f"base_url ({redact_url(self.options.base_url)}): chat completions live under the API "
            "root, which usually ends in /v1",
            url=self.url,
            status=response.status_code,
        )

    async def fetch_context_window(self) -> int | None:
        """`context_window` if configured, else what the server reports about the model (asked
        once: llama.cpp's /props, or /models metadata); remembered in `capabilities`."""
        if not self._window_asked:
            self._window_asked = True
            found = await served_context(self.client(), self.options.base_url, self.options.model)
            if found is not None:
                self._capabilities = dataclasses.replace(self._capabilities, context_window=found)
        return self._capabilities.context_window

    async def models(self) -> list[str]:
        """The model ids `{base_url}/models` lists ([] when the server offers no list)."""
        try:
            response = await self.client().get(f"{self.options.base_url}/models", timeout=10)
            data = response.json().get("data", []) if response.status_code == 200 else []
            return [str(item["id"]) for item in data if isinstance(item, dict) and "id" in item]
        except (httpx.HTTPError, ValueError, AttributeError):
            return []


def _json(response: httpx.Response, url: str) -> Any:
    try:
        return response.json()
    except ValueError as err:
        raise ProtocolError(
            f"{url} answered with something that is not JSON: {response.text[:200]!r}", url=url
        ) from err


def _decode_event(data: str, url: str) -> dict[str, Any]:
    try:
        chunk = json.loads(data)
    except ValueError as err:
        raise ProtocolError(
            f"malformed server-sent event from {url}: expected JSON after 'data:', "
            f"got {data[:200]!r}",
            url=url,
        ) from err
    if not isinstance(chunk, dict):
        raise ProtocolError(f"{url} streamed a non-object event: {data[:200]!r}", url=url)
    return chunk


def _payload(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return response.text


def _message_of(payload: Any) -> str:
    """The server's own explanation, from the shapes servers actually use."""
    if isinstance(payload, dict):
        error = payload.get("error", payload)
        if isinstance(error, dict):
            return str(error.get("message") or error.get("detail") or error)[:500]
        return str(error)[:500]
    return str(payload).strip()[:500] or "(empty body)"


def _server_message(response: httpx.Response) -> str:
    return _message_of(_payload(response))


def _names_missing_model(response: httpx.Response) -> bool:
    text = _server_message(response).lower()
    return (
        response.status_code == 400
        and "model" in text
        and ("not found" in text or "does not exist" in text)
    )


def _reason(err: Exception) -> str:
    return f"{type(err).__name__}: {err}" if str(err) else type(err).__name__
