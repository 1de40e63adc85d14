"""`WebFetch`: one http(s) URL fetched through httpx, bounded in size and in time.

Fetching what it is asked is this tool's feature; the tool polices the scheme (http and
https, on the first URL and on every redirect) and where a redirect leads. Redirects are
followed here, at most `_REDIRECTS` hops, and only on the same host and port: a redirect to
another host is not followed but returned to the model (as Claude Code's WebFetch does),
whose next call names that URL and so passes the tool gate and its rules (a
`WebFetch(domain:…)` deny rule checked only on the first URL was bypassed by a redirect).
The body is streamed and dropped past `max_bytes` (the connection is closed, the rest never
downloaded); the whole exchange has one deadline. HTML becomes its text, without scripts
and styles. Credentials in a URL never appear in a result.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from html.parser import HTMLParser
from urllib.parse import urlsplit

import httpx

from agentframe_core import head_tail, redact_url

from .project import ToolError

__all__ = ["fetch_text"]

_REDIRECTS = 5
#: No compression: the raw bytes counted against `max_bytes` are the body (no gzip bomb).
_HEADERS = {"Accept": "text/html, text/*;q=0.9, */*;q=0.5", "Accept-Encoding": "identity"}
_TEXT_TYPES = ("text/", "application/json", "application/xml", "application/xhtml")


async def fetch_text(url: str, prompt: str, max_bytes: int, timeout: float, cap: int) -> str:
    shown = redact_url(url)
    scheme = urlsplit(url).scheme.lower()
    if scheme not in ("http", "https"):
        raise ToolError(f"{shown}: only http and https URLs can be fetched, not {scheme!r}")
    try:
        async with asyncio.timeout(timeout):
            fetched = await _get(url, max_bytes)
    except TimeoutError:
        raise ToolError(f"{shown}: no complete answer within {timeout:g} s (timed out)") from None
    except (httpx.HTTPError, httpx.InvalidURL) as err:
        raise ToolError(f"{shown}: {type(err).__name__}: {redact_url(str(err))}") from None
    if isinstance(fetched, _Elsewhere):
        return _elsewhere(shown, fetched, prompt)
    body, response = fetched
    final = redact_url(str(response.url))
    kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
    head = [f"URL: {final}", f"Status: {response.status_code}"]
    if kind:
        head.append(f"Content-Type: {kind}")
    cut = len(body) > max_bytes
    if cut:
        head.append(f"(the body was cut at {max_bytes} bytes: webfetch_max_bytes)")
    if kind and not kind.startswith(_TEXT_TYPES):
        text = f"(binary content, not shown: {len(body[:max_bytes])} bytes received)"
    else:
        text = body[:max_bytes].decode(response.encoding or "utf-8", errors="replace")
        if kind in ("text/html", "application/xhtml+xml") or text.lstrip()[:15].lower() in (
            "<!doctype html>",
        ):
            text = html_text(text)
    head.append(f"Prompt: {prompt}")
    result = "\n".join(head) + "\n\n" + head_tail(text.strip(), cap)
    if response.status_code >= 400:
        raise ToolError(result)
    return result


@dataclass(frozen=True, slots=True)
class _Elsewhere:
    """A redirect to another host: not followed."""

    location: httpx.URL
    status: int


async def _get(url: str, max_bytes: int) -> tuple[bytes, httpx.Response] | _Elsewhere:
    """The body (at most `max_bytes + 1` bytes: one more says it was cut) and the response,
    after the redirects on the same host; or where a redirect to another host leads."""
    current = httpx.URL(url)
    async with httpx.AsyncClient(follow_redirects=False) as client:
        for _ in range(_REDIRECTS + 1):
            async with client.stream("GET", current, headers=_HEADERS) as response:
                location = response.headers.get("location")
                if response.is_redirect and location:
                    target = current.join(location)
                    if target.scheme not in ("http", "https"):
                        raise ToolError(
                            f"{redact_url(str(current))}: redirected to a {target.scheme!r} "
                            "URL; only http and https URLs can be fetched"
                        )
                    if _origin(target) != _origin(current):
                        return _Elsewhere(target, response.status_code)
                    current = target
                    continue
                chunks: list[bytes] = []
                size = 0
                async for chunk in response.aiter_raw():
                    chunks.append(chunk)
                    size += len(chunk)
                    if size > max_bytes:
                        break
                return b"".join(chunks), response
    raise ToolError(f"{redact_url(url)}: more than {_REDIRECTS} redirects; not followed")


def _origin(url: httpx.URL) -> tuple[str, int | None]:
    """The host and port a request goes to (the scheme's port when none is written)."""
    port = url.port or {"http": 80, "https": 443}.get(url.scheme)
    return url.host.lower().rstrip("."), port


def _elsewhere(shown: str, redirect: _Elsewhere, prompt: str) -> str:
    """Claude Code's answer to a redirect to another host: where it leads, for a new call."""
    location = redact_url(str(redirect.location))
    return (
        "REDIRECT DETECTED: The URL redirects to a different host.\n\n"
        f"Original URL: {shown}\nRedirect URL: {location}\nStatus: {redirect.status}\n\n"
        "The redirect was not followed. To fetch the content, call WebFetch again with "
        f"url: {location} and prompt: {prompt}"
    )


class _Text(HTMLParser):
    """The visible text of an HTML page: scripts, styles and templates left out, block
    elements on lines of their own."""

    _HIDDEN = frozenset({"script", "style", "template", "noscript", "head"})
    _BLOCKS = frozenset(
        {
            "p",
            "div",
            "br",
            "li",
            "tr",
            "h1",
            "h2",
            "h3",
            "h4",
            "h5",
            "h6",
            "pre",
            "section",
            "article",
            "header",
            "footer",
            "table",
            "ul",
            "ol",
            "title",
        }
    )

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._HIDDEN:
            self.hidden += 1
        elif tag in self._BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        elif tag in self._BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data)


def html_text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    parser.close()
    lines = (" ".join(line.split()) for line in "".join(parser.parts).splitlines())
    return "\n".join(line for line in lines if line)
