"""Schemathesis against the HTTP API's own OpenAPI schema, on a real uvicorn server.

Every operation gets generated requests, valid and invalid (a fixed seed: the same
requests each run); each answer must be documented in the schema (status, content
type, body) and none a server error but the documented overload: a full queue or
too many rollouts (503 with ``Retry-After``). Levels are capped at 2 plies (rollouts at 0
plies, 36 trials) and rollouts cancelled at once, so that the run stays short.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, settings
from schemathesis.checks import CheckContext, Response
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from bot.serve import decide
from bot.serve.http import build_app
from bot.serve.pool import Pool
from engine import Engine
from engine.levels import level

from servekit import served

ENGINE = Engine()


@pytest.fixture(scope="module")
def api_schema() -> Iterator[Any]:
    app = build_app(ENGINE, Pool(2), decide.ServerSettings(level=level("expert")))
    with served(app) as url:
        schema = schemathesis.openapi.from_dict(app.openapi())
        schema.config.update(base_url=url)
        yield schema


schema = schemathesis.pytest.from_fixture("api_schema")


def no_server_error(ctx: CheckContext, response: Response, case: schemathesis.Case) -> bool:
    """5xx only as the documented overload: 503 with Retry-After."""
    if response.status_code >= 500:
        assert response.status_code == 503 and "retry-after" in response.headers, (
            response.status_code, response.text[:300])
    return True


def _cap(level_given: Any, plies: int) -> None:
    if isinstance(level_given, dict) and isinstance(level_given.get("plies"), int):
        level_given["plies"] = min(level_given["plies"], plies)
    if isinstance(level_given, dict) and isinstance(level_given.get("think"), (int, float)):
        level_given["think"] = min(level_given["think"], 0.2)
        level_given["think_mode"] = "time"


@schema.parametrize()
@settings(max_examples=15, derandomize=True, deadline=None, database=None, phases=[Phase.explicit, Phase.generate],
          suppress_health_check=list(HealthCheck))
def test_every_answer_is_documented(case: schemathesis.Case) -> None:
    if isinstance(case.body, dict):
        _cap(case.body.get("level"), 0 if case.path == "/rollouts" else 2)
        if isinstance(case.body.get("trials"), int):
            case.body["trials"] = min(case.body["trials"], 36)
    response = case.call(timeout=120)
    try:
        case.validate_response(response, checks=[no_server_error, status_code_conformance,
                                                 content_type_conformance, response_schema_conformance])
    finally:
        if case.path == "/rollouts" and response.status_code == 202:
            httpx.delete(f"{case.operation.base_url}/rollouts/{response.json()['id']}", timeout=30)
