"""One JSON POST with a timeout, retried with backoff on 429 and 5xx; keys never in a message."""

from __future__ import annotations

import json
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from typing import Any

from kapi.host.providers.port import ProviderError, ReplyRefused

__all__ = ["post_json", "scrub"]

_RETRIED = frozenset({429, 500, 502, 503, 504})
_MAX_WAIT = 30.0


def scrub(text: str, secrets: tuple[str, ...]) -> str:
    """``text`` with every secret replaced, so no key reaches an error or a log."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text


def post_json(
    url: str,
    body: Mapping[str, Any],
    *,
    headers: Mapping[str, str],
    provider: str,
    timeout: float,
    retries: int,
    backoff: float,
    secrets: tuple[str, ...] = (),
) -> Any:
    """The decoded JSON reply of a POST; ProviderError when it cannot be had, ReplyRefused if not JSON."""
    data = json.dumps(body, ensure_ascii=False).encode("utf-8")
    attempt = 0
    while True:
        request = urllib.request.Request(
            url, data=data, method="POST", headers={"Content-Type": "application/json", **headers}
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                raw = response.read()
            break
        except urllib.error.HTTPError as err:
            status = err.code
            detail = _detail(err, secrets)
            if status in _RETRIED and attempt < retries:
                time.sleep(_wait(err.headers.get("Retry-After"), backoff, attempt))
                attempt += 1
                continue
            if status in (401, 403):
                raise ProviderError(
                    f"{provider}: the API refused the key (HTTP {status}); check the key in the "
                    "environment",
                    exit_code=1,
                    code="error",
                ) from None
            raise ProviderError(
                f"{provider}: HTTP {status} from {scrub(_host(url), secrets)}{detail}"
                + (f" after {attempt + 1} attempts" if attempt else "")
            ) from None
        except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as err:
            if attempt < retries:
                time.sleep(_wait(None, backoff, attempt))
                attempt += 1
                continue
            reason = getattr(err, "reason", err)
            what = (
                "timed out" if isinstance(reason, TimeoutError | socket.timeout) else "unreachable"
            )
            raise ProviderError(
                f"{provider}: {scrub(_host(url), secrets)} {what} "
                f"({scrub(str(reason), secrets)}) after {attempt + 1} attempts; nothing was written"
            ) from None
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise ReplyRefused(f"{provider}: the reply is not JSON") from None


def _wait(retry_after: str | None, backoff: float, attempt: int) -> float:
    if retry_after:
        try:
            return min(float(retry_after), _MAX_WAIT)
        except ValueError:
            pass
    return float(min(backoff * (2**attempt), _MAX_WAIT))


def _detail(err: urllib.error.HTTPError, secrets: tuple[str, ...]) -> str:
    try:
        body = err.read(400).decode("utf-8", "replace").strip()
    except OSError:
        return ""
    return f": {scrub(body, secrets)[:200]}" if body else ""


def _host(url: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname or ''}{f':{parts.port}' if parts.port else ''}"
