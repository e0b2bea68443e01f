"""What the HTTP API does against hostile clients: the error shapes (documented in the
OpenAPI schema), a body size and time limit that also checks the JSON, error replies that
encode any input, and a uvicorn protocol that closes a connection whose request head
does not arrive in time (a client that sends nothing, or a header a byte at a time).
"""

from __future__ import annotations

import asyncio
import json
from email.message import Message as EmailMessage
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

MAX_BODY = 64 * 1024
BODY_TIMEOUT = 10.0  # seconds for a request's body, from its head
HEAD_TIMEOUT = 10.0  # seconds for a request's head, from the connection (then the keep-alive)


class FieldError(BaseModel):
    field: str
    message: str


class FieldErrorOut(BaseModel):
    """The project's error: the field at fault and why."""

    detail: FieldError


class MessageOut(BaseModel):
    """An error with no field at fault (the engine busy or too slow)."""

    detail: str


class ValidationItem(BaseModel):
    loc: list[str | int]
    msg: str
    type: str


class ValidationOut(BaseModel):
    """FastAPI's validation error, without the input echoed: ``loc`` names the field."""

    detail: list[ValidationItem]


class WildbgOut(BaseModel):
    """wildbg's own error shape (bad dice)."""

    message: str


def responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI entries of the error statuses an endpoint answers."""
    known: dict[int, dict[str, Any]] = {
        400: {"model": WildbgOut, "description": "wildbg's error (dice out of range)"},
        401: {"model": FieldErrorOut, "description": "no or a wrong Bearer token"},
        408: {"model": FieldErrorOut, "description": f"the body did not arrive within {BODY_TIMEOUT:g} s"},
        413: {"model": FieldErrorOut, "description": f"a body over {MAX_BODY} bytes"},
        422: {"model": FieldErrorOut | ValidationOut, "description": "a field is wrong (named)"},
        503: {"model": MessageOut, "description": "the engine queue is full (see Retry-After)"},
        504: {"model": MessageOut, "description": "the engine took too long"},
    }
    return {c: known[c] for c in codes}


def field_error(status: int, name: str, message: str, close: bool = False) -> JSONResponse:
    """The project's error; ``close``: and the connection closes (the body was not all read)."""
    return SafeJSON({"detail": {"field": name, "message": message}}, status,
                    headers={"connection": "close"} if close else None)


class SafeJSON(JSONResponse):
    """A JSON response whose strings may hold anything a client sent (lone surrogates:
    written as ``\\ud800`` escapes)."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode()


def install(app: FastAPI) -> None:
    """Error replies that never fail to encode: validation errors without the input
    echoed back (it may be NaN, a lone surrogate or 64 KiB), the rest as given."""

    async def validation(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        items = [{"loc": [x if isinstance(x, int) else str(x) for x in e.get("loc", ())],
                  "msg": str(e.get("msg", "")), "type": str(e.get("type", ""))} for e in exc.errors()]
        return SafeJSON({"detail": items}, 422)

    async def http_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, HTTPException)
        detail: Any = exc.detail
        if exc.status_code == 400 and isinstance(detail, str):  # FastAPI could not read the body
            detail, status = {"field": "body", "message": detail}, 422
        else:
            status = exc.status_code
        return SafeJSON({"detail": detail}, status, headers=exc.headers)

    app.add_exception_handler(RequestValidationError, validation)
    app.add_exception_handler(HTTPException, http_error)


def _json_problem(body: bytes) -> str | None:
    """Why a JSON body cannot be read, if it cannot."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"not UTF-8 (byte {exc.start})"
    try:
        json.loads(text)
    except RecursionError:
        return "nested too deeply"
    except json.JSONDecodeError as exc:
        return f"not JSON: {exc.msg} at character {exc.pos}"
    except ValueError as exc:  # an integer literal of more than 4300 digits
        return f"not readable JSON: {exc}"
    return None


def _is_json(headers: dict[bytes, bytes]) -> bool:
    given = headers.get(b"content-type")
    if not given:
        return False
    message = EmailMessage()
    message["content-type"] = given.decode("latin-1")
    subtype = message.get_content_subtype()
    return message.get_content_maintype() == "application" and (subtype == "json" or subtype.endswith("+json"))


class BodyLimit:
    """Reads each request's body before the endpoint does: over :data:`MAX_BODY` bytes
    (declared or sent) is a 413, one that has not arrived within :data:`BODY_TIMEOUT`
    seconds a 408, a JSON body that is not UTF-8 or too deeply nested a 422 naming
    ``body``. A plain ASGI middleware, so that a client's disconnect still reaches the
    endpoint."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        size = headers.get(b"content-length")
        if size is not None and (not size.isdigit() or int(size) > MAX_BODY):
            await field_error(413, "body", f"at most {MAX_BODY} bytes", close=True)(scope, receive, send)
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + BODY_TIMEOUT
        chunks: list[bytes] = []
        seen = 0
        more = True
        while more:
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - loop.time()))
            except TimeoutError:
                await field_error(408, "body", f"the body did not arrive within {BODY_TIMEOUT:g} s", close=True)(
                    scope, receive, send)
                return
            if message["type"] != "http.request":
                return  # the client left: nobody to answer
            chunk = message.get("body", b"")
            seen += len(chunk)
            if seen > MAX_BODY:
                await field_error(413, "body", f"at most {MAX_BODY} bytes", close=True)(scope, receive, send)
                return
            chunks.append(chunk)
            more = bool(message.get("more_body", False))
        body = b"".join(chunks)
        problem = _json_problem(body) if body and _is_json(headers) else None
        if problem is not None:
            await field_error(422, "body", problem)(scope, receive, send)
            return
        pending: list[Message] = [{"type": "http.request", "body": body, "more_body": False}]

        async def replay() -> Message:
            return pending.pop() if pending else await receive()
        await self.app(scope, replay, send)


class GuardedH11(H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose next request head has not
    arrived :data:`HEAD_TIMEOUT` seconds after it opened, or the keep-alive time after
    the previous response (uvicorn's own timer stops at the first byte)."""

    _head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]
        self._arm(HEAD_TIMEOUT)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm(max(float(self.timeout_keep_alive), HEAD_TIMEOUT))

    def connection_lost(self, exc: Exception | None) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
        super().connection_lost(exc)

    def _arm(self, seconds: float) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
        self._head_timer = self.loop.call_later(seconds, self._late, self.cycle)

    def _late(self, cycle: object) -> None:
        """No new request since the timer was armed, none in progress: the head is late."""
        idle = self.cycle is None or self.cycle.response_complete
        if self.cycle is cycle and idle and not self.transport.is_closing():
            self.transport.close()
