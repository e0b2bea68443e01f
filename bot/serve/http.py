"""The engine as an HTTP JSON API (FastAPI on uvicorn).

Positions come as a gnubg position ID (+ match ID), an XGID or a FIBS board
line; levels by name (``expert``, ``world class``...). Endpoints: evaluate,
hint, cube, resign, legal-moves, rollout jobs (start, server-sent progress,
cancel, result), and wildbg's ``GET /move`` and ``GET /eval`` (its parameters
and shapes; ``x_away``/``o_away`` add a match score). Every engine call runs on
the bounded pool: a full queue answers 503 with ``Retry-After``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import secrets
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, TypeVar

from fastapi import Depends, FastAPI, HTTPException, Query, Request
from fastapi.responses import JSONResponse, PlainTextResponse, StreamingResponse
from prometheus_client import generate_latest
from pydantic import BaseModel, ConfigDict, Field

from bot.serve import decide, protocol
from bot.serve.http_guard import BodyLimit, install, responses
from bot.serve.pool import Busy, Pool
from engine import Engine, MatchState, Position, rollout
from engine.errors import EngineError
from engine.levels import EvalSettings, Level, Think, is_think_level, think_level
from engine.levels import level as level_named
from engine.rollout import RolloutResult
from engine.think import think_cube, think_move

T = TypeVar("T")
MAX_ROLLOUTS = 4
UPDATES_KEPT = 16  # progress events waiting for a reader, per job
JOBS_KEPT = 100  # finished rollout jobs kept for their results; older ones are forgotten
ROLLOUT_CHUNK = 36  # trials between progress events (and cancellation points)
VALUES_KEPT = 64 << 20  # bytes of trial values kept by stopped jobs (to resume); the oldest go first


class Strict(BaseModel):
    """A request body: an unknown key is an error (so that a misspelt setting is not
    silently the default)."""

    model_config = ConfigDict(extra="forbid")


class LevelSettings(Strict):
    """A level given by its settings (gnubg's evaluation context), for play and cube alike."""

    plies: int = Field(0, ge=0, le=4)
    move_filter: str | None = Field(None, description="tiny, narrow, normal, large or huge (searches only)")
    noise: float = Field(0.0, ge=0.0, le=1.0, allow_inf_nan=False)
    deterministic: bool = True
    prune: bool = False
    cubeful: bool = True


class ThinkIn(Strict):
    """A thinking-time level: the deepest gnubg search that fits ``think`` per decision (/hint, /cube)."""

    think: float = Field(..., gt=0, le=1e9, allow_inf_nan=False,
                         description="seconds (at most the server's time limit per request), or search nodes "
                                     "(think_mode nodes)")
    think_mode: Literal["time", "nodes"] = "time"


class PositionIn(Strict):
    """Exactly one of ``position_id`` (with an optional ``match_id``), ``xgid`` or ``board``."""

    position_id: str | None = Field(None, max_length=20, examples=["4HPwATDgc/ABMA"])
    match_id: str | None = Field(None, max_length=20, examples=["cAkAAAAAAAAA"])
    xgid: str | None = Field(None, max_length=120)
    board: str | None = Field(None, max_length=protocol.MAX_LINE, description="a FIBS board: line")
    level: str | LevelSettings | ThinkIn = Field(
        "expert", description="a level's name (\"fibsbot strong\": a thinking-time level), its settings, or "
                              "{think: S} (/hint and /cube)")


Die = Annotated[int, Field(ge=1, le=6)]


class DiceIn(PositionIn):
    dice: tuple[Die, Die] = Field(..., examples=[[3, 1]])


class ExternalIn(Strict):
    line: str = Field(..., max_length=protocol.MAX_LINE,
                      description="a request line of gnubg's external interface (a board: line with options)")


class ResignIn(PositionIn):
    value: int = Field(1, ge=1, le=3, description="1 single, 2 gammon, 3 backgammon")


class RolloutIn(PositionIn):
    dice: tuple[Die, Die] | None = None
    plays: int = Field(3, ge=1, le=10)
    cube: bool = False
    trials: int = Field(1296, ge=1, le=100_000)
    seed: int = Field(0, ge=0, lt=2**32)


@dataclass
class RolloutJobState:
    id: str
    total: int
    spec: rollout.RolloutJob
    values: list[Any] | None = None  # per-candidate trial values kept after each chunk
    running: bool = False
    done: int = 0
    result: RolloutResult | None = None
    error: str | None = None
    cancelled: threading.Event = field(default_factory=threading.Event)
    updates: asyncio.Queue[dict[str, Any]] = field(default_factory=lambda: asyncio.Queue(UPDATES_KEPT))
    started: float = field(default_factory=time.monotonic)


class _Cancelled(Exception):
    pass


def _offer(queue: asyncio.Queue[dict[str, Any]], update: dict[str, Any]) -> None:
    """Queues a progress update; with nobody reading, the oldest are dropped."""
    while queue.full():
        queue.get_nowait()
    queue.put_nowait(update)


def _field_error(name: str, message: str) -> HTTPException:
    return HTTPException(422, {"field": name, "message": message})


def _level(given: str | LevelSettings | ThinkIn) -> Level:
    if isinstance(given, ThinkIn) or (isinstance(given, str) and is_think_level(given)):
        raise _field_error("level", "a thinking-time level plays /hint and /cube only")
    try:
        if isinstance(given, str):
            return level_named(given)
        checker = EvalSettings(plies=given.plies, move_filter=given.move_filter if given.plies else None,
                               noise=given.noise, deterministic=given.deterministic, prune=given.prune,
                               cubeful=given.cubeful)
        return Level(name="custom", label="custom", checker=checker, cube=checker.with_(move_filter=None))
    except ValueError as exc:
        raise _field_error("level", str(exc)) from None


def _thinking(given: str | LevelSettings | ThinkIn) -> Think | None:
    """The thinking-time level a request asks for, if any."""
    if isinstance(given, ThinkIn):
        return Think(given.think, mode=given.think_mode)
    return think_level(given) if isinstance(given, str) and is_think_level(given) else None


def read_position(p: PositionIn, settings: decide.ServerSettings) -> tuple[Position, MatchState | None, Any]:
    """(position with the side on roll in board[1], match, dice from a board line or XGID)."""
    given = [k for k in ("position_id", "xgid", "board") if getattr(p, k)]
    if len(given) != 1:
        raise _field_error("position_id", "give exactly one of position_id, xgid, board")
    try:
        if p.position_id:
            position = Position.from_position_id(p.position_id)
            match = None
            if p.match_id:
                try:
                    match = MatchState.from_match_id(p.match_id)
                except (ValueError, EngineError) as exc:
                    raise _field_error("match_id", str(exc)) from None
            return position, match, match.dice if match else None
        if p.xgid:
            from engine.xgid import from_xgid
            position, match = from_xgid(p.xgid)
            return position, match, match.dice
    except HTTPException:
        raise
    except (ValueError, EngineError) as exc:
        raise _field_error("xgid" if p.xgid else "position_id", str(exc)) from None
    request = protocol.parse(str(p.board))
    if not isinstance(request, protocol.BoardRequest):
        raise _field_error("board", request.text if isinstance(request, protocol.Failure) else "not a board line")
    try:
        s = decide.situation(request.board, request.session, settings)
    except decide.BadBoard as exc:
        raise _field_error("board", str(exc)) from None
    return s.position, s.match, s.dice


RolloutRunner = Callable[..., RolloutResult]


def local_rollouts(engine: Engine, job: rollout.RolloutJob, **kw: Any) -> RolloutResult:
    """A rollout on this machine, one thread, progress every :data:`ROLLOUT_CHUNK` trials."""
    return rollout.run(engine, job, threads=1, chunk=ROLLOUT_CHUNK, **kw)


def dask_rollouts(scheduler: str) -> RolloutRunner:
    """Rollouts as trial ranges on the Dask cluster at ``scheduler``."""
    from bot.tournament.executors import DaskRollout

    executor = DaskRollout(scheduler)

    def run(engine: Engine, job: rollout.RolloutJob, **kw: Any) -> RolloutResult:
        return executor.run(engine, job, **kw)
    return run


def build_app(engine: Engine, pool: Pool, settings: decide.ServerSettings, *, token: str | None = None,
              rollouts: RolloutRunner = local_rollouts) -> FastAPI:
    """The API; with ``token``, every endpoint wants ``Authorization: Bearer <token>``;
    ``rollouts`` runs the rollout jobs (:func:`local_rollouts` or :func:`dask_rollouts`)."""
    jobs: dict[str, RolloutJobState] = {}

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        for job in jobs.values():  # the server stops: so do its rollout threads
            job.cancelled.set()

    app = FastAPI(title="fibsbot engine", version="1", lifespan=lifespan,
                  description="gnubg-exact evaluations, plays and cube decisions at every level and match score.")
    install(app)
    engine_errors = responses(401, 408, 413, 422, 503, 504)
    job_errors = responses(401, 408, 413, 422)

    async def auth(request: Request) -> None:
        if token is None:
            return
        given = request.headers.get("authorization", "")
        if not secrets.compare_digest(given.encode(), f"Bearer {token}".encode()):
            raise HTTPException(401, {"field": "Authorization", "message": "a Bearer token is required"},
                                headers={"WWW-Authenticate": "Bearer"})

    deps = [Depends(auth)]

    def thinking(given: str | LevelSettings | ThinkIn) -> Think | None:
        """The thinking-time level asked for; one over the time limit per request would
        only be answered 504 (and keep a worker busy past it)."""
        think = _thinking(given)
        if think is not None and think.mode == "time" and think.budget > pool.timeout_s:
            raise _field_error("level", f"think: at most {pool.timeout_s:g} s, the server's time limit per request")
        return think

    app.add_middleware(BodyLimit)

    async def call(request: Request, endpoint: str, level: str, fn: Callable[[], T]) -> T:
        """``fn()`` on the pool; a client that disconnects meanwhile cancels it (still queued,
        it never runs)."""
        started = time.perf_counter()
        error = True
        task = asyncio.ensure_future(pool.run(fn))
        try:
            while not task.done():
                await asyncio.wait({task}, timeout=0.05)
                if not task.done() and await request.is_disconnected():
                    task.cancel()
                    await asyncio.gather(task, return_exceptions=True)
                    raise HTTPException(499, "the client closed the request")
            result = task.result()
            error = False
            return result
        except Busy:
            raise HTTPException(503, "engine queue full", headers={"Retry-After": "1"}) from None
        except TimeoutError:
            raise HTTPException(504, "the engine took too long") from None
        except (ValueError, EngineError) as exc:
            raise _field_error("position_id", str(exc)) from None
        finally:
            pool.observe("http", endpoint, level, started, error)

    @app.post("/evaluate", dependencies=deps, responses=engine_errors)
    async def evaluate(p: PositionIn, request: Request) -> dict[str, Any]:
        """Five probabilities, cubeless and cubeful equity (and MWC in match play) at the level's cube context."""
        lv = _level(p.level)
        position, match, _ = read_position(p, settings)
        r = await call(request, "evaluate", lv.name, lambda: engine.evaluate_nply(position, match, lv, threads=1))
        out = {"probabilities": list(r.probabilities), "equity": r.equity, "cubeful_equity": r.cubeful_equity,
               "plies": r.plies}
        if match is not None and match.length:
            # the side on roll as player 1 (only the scores and the cube matter here)
            mover = match if match.on_roll == 1 else match.with_(score=match.score[::-1])
            out["mwc"] = decide.mwc_of(engine, mover, r.cubeful_equity)
        return out

    @app.post("/hint", dependencies=deps, responses=engine_errors)
    async def hint(p: DiceIn, request: Request) -> dict[str, Any]:
        """Ranked plays with equities and differences from the best, as ``fibsbot hint``."""
        think = thinking(p.level)
        position, match, _ = read_position(p, settings)
        extra: dict[str, Any] = {}
        if think is not None:
            t = await call(request, "hint", think.label, lambda: think_move(engine, position, p.dice, match, think))
            d, name = t.decision, t.decision.level
            extra = {"think": t.as_json(), "note": t.note}  # the depth reached
        else:
            lv = _level(p.level)
            d = await call(request, "hint", lv.name, lambda: engine.best_move(position, p.dice, match, lv, threads=1))
            name = lv.name
        cands = d.candidates
        best = cands[0].equity if cands else 0.0
        return {"move": str(d.move), "level": name, **extra,
                "candidates": [{"move": str(c.move), "equity": c.equity, "difference": c.equity - best,
                                "probabilities": list(c.probabilities) if c.probabilities is not None else None}
                               for c in cands]}

    @app.post("/cube", dependencies=deps, responses=engine_errors)
    async def cube(p: PositionIn, request: Request) -> dict[str, Any]:
        """No double, double/take or double/pass, with gnubg's proper action."""
        think = thinking(p.level)
        position, match, _ = read_position(p, settings)
        extra: dict[str, Any] = {}
        if think is not None:
            t = await call(request, "cube", think.label, lambda: think_cube(engine, position, match, think))
            c, extra = t.decision, {"level": f"{think.label}, {t.plies}-ply", "think": t.as_json(), "note": t.note}
        else:
            lv = _level(p.level)
            c = await call(request, "cube", lv.name, lambda: engine.cube_decision(position, match, lv, threads=1))
        return {**extra, "action": c.action, "no_double": c.equities.nd, "double_take": c.equities.dt,
                "double_pass": c.equities.dp, "should_double": c.should_double, "should_take": c.should_take,
                "should_beaver": c.should_beaver}

    @app.post("/resign", dependencies=deps, responses=engine_errors)
    async def resign(p: ResignIn, request: Request) -> dict[str, Any]:
        """Whether the side on roll accepts a resignation of ``value``, and what it would offer itself."""
        lv = _level(p.level)
        position, match, _ = read_position(p, settings)
        accept = await call(request, "resign", lv.name, lambda: engine.accept_resignation(position, match, lv, p.value))
        offer = await call(request, "resign", lv.name, lambda: engine.resign_offer(position, match, lv))
        return {"accept": accept, "offer": offer}

    @app.post("/external", dependencies=deps, responses=engine_errors)
    async def external(body: ExternalIn, request: Request) -> dict[str, str]:
        """The external socket's reply to one board or ``evaluation fibsboard`` line, at the server's level."""
        parsed = protocol.parse(body.line)
        if isinstance(parsed, protocol.Failure):
            raise _field_error("line", parsed.text)
        if isinstance(parsed, protocol.BoardRequest):
            board = parsed
            reply = await call(request, "external", settings.level.name, lambda: decide.answer_board(
                engine, board.board, board.session, settings))
        elif isinstance(parsed, protocol.EvalRequest):
            ev = parsed
            reply = await call(request, "external", settings.level.name, lambda: decide.answer_evaluation(
                engine, ev.board, ev.session, ev.options, settings))
        else:
            raise _field_error("line", "only board and evaluation requests")
        if reply.startswith("Error:"):  # the socket's error text (a badly formed board)
            raise _field_error("line", reply)
        return {"reply": reply}

    @app.post("/legal-moves", dependencies=deps, responses=job_errors)
    async def legal_moves(p: DiceIn) -> dict[str, Any]:
        position, _, _ = read_position(p, settings)
        for i, d in enumerate(p.dice):
            if not 1 <= d <= 6:
                raise _field_error(f"dice[{i}]", "dice values must be between 1 and 6")
        plays = position.legal_plays(*p.dice)
        return {"moves": [{"move": str(m), "position_id": after.swap().position_id()} for m, after in plays]}

    def wildbg_position(params: dict[str, int]) -> Position:
        x = [0] * 25
        o = [0] * 25
        for i in range(26):
            v = params.get(f"p{i}", 0)
            if i == 0 and v > 0:
                raise _field_error("p0", "Index 0 is the bar for player o, number of checkers needs to be negative.")
            if i == 25 and v < 0:
                raise _field_error("p25", "Index 25 is the bar for player x, number of checkers needs to be positive.")
            if v > 0:
                x[i - 1 if i else 24] += v
            elif v < 0:
                o[24 - i if i < 25 else 24] += -v
        if not sum(x) or not sum(o):
            raise _field_error("p1", "a side has no chequers left: the game is over")
        try:
            return Position.from_board((o, x))
        except ValueError as exc:
            raise _field_error("p1", str(exc)) from None

    def wildbg_match(x_away: int | None, o_away: int | None, crawford: bool) -> MatchState | None:
        """x (on roll) needs ``x_away`` points, o ``o_away``; a side 1-away is post-Crawford
        unless ``crawford``."""
        if x_away is None and o_away is None:
            return None
        if x_away is None or o_away is None or x_away < 1 or o_away < 1 or x_away > 64 or o_away > 64:
            raise _field_error("x_away", "give both x_away and o_away, 1..64")
        length = max(x_away, o_away)
        return MatchState(length=length, score=(length - o_away, length - x_away), on_roll=1, turn=1,
                          cube_owner=-1, crawford_game=crawford and 1 in (x_away, o_away))

    def probs_json(p: Any) -> dict[str, float]:
        w, wg, wbg, lg, lbg = list(p)[:5]
        return {"win": w, "winG": wg, "winBg": wbg, "loseG": lg, "loseBg": lbg}

    @app.get("/move", dependencies=deps, responses={**engine_errors, **responses(400)})
    async def wildbg_move(request: Request, die1: int = Query(...), die2: int = Query(...),
                          x_away: int | None = None, o_away: int | None = None, crawford: bool = False) -> Any:
        """wildbg's ``/move``: every legal play, best first (Expert; at the match score of
        ``x_away``/``o_away`` when given), with the probabilities after it."""
        pips = _pips(request)
        if not (1 <= die1 <= 6 and 1 <= die2 <= 6):
            return JSONResponse({"message": "Dice values must be between 1 and 6."}, 400)
        position = wildbg_position(pips)
        match = wildbg_match(x_away, o_away, crawford)

        def work() -> list[dict[str, Any]]:
            d = engine.best_move(position, (die1, die2), match, "expert", max_candidates=1000)
            if not d.candidates:
                return [{"play": [], "probabilities": probs_json(engine.evaluate(position))}]
            return [{"play": [{"from": s.src, "to": s.dst} for s in c.move.steps],
                     "probabilities": probs_json(c.probabilities)} for c in d.candidates]
        return {"moves": await call(request, "move", "expert", work)}

    @app.get("/eval", dependencies=deps, responses=engine_errors)
    async def wildbg_eval(request: Request, x_away: int | None = None, o_away: int | None = None,
                          crawford: bool = False) -> Any:
        """wildbg's ``/eval``: probabilities and cube advice (double, accept) for x on roll."""
        position = wildbg_position(_pips(request))
        match = wildbg_match(x_away, o_away, crawford)
        lv = level_named("expert")
        p = await call(request, "eval", lv.name, lambda: engine.evaluate(position))
        c = await call(request, "eval", lv.name, lambda: engine.cube_decision(position, match, lv, threads=1))
        return {"cube": {"double": bool(c.should_double), "accept": bool(c.should_take)},
                "probabilities": probs_json(p)}

    @app.post("/rollouts", status_code=202, dependencies=deps, responses=engine_errors)
    async def start_rollout(p: RolloutIn, request: Request) -> dict[str, Any]:
        """Start a rollout job: the position, the ``plays`` best plays of ``dice``, or the cube."""
        lv = _level(p.level)
        position, match, _ = read_position(p, settings)
        check_room()
        candidates: Any = "cube" if p.cube else None
        if p.dice is not None and not p.cube:
            dice = p.dice
            d = await call(request, "rollout", lv.name,
                           lambda: engine.best_move(position, dice, match, lv, threads=1))
            candidates = [c.move for c in d.candidates[:p.plays]] or None
        try:
            spec = rollout.RolloutJob.of(position, match, candidates,
                                         rollout.RolloutSettings(trials=p.trials, level=lv, seed=p.seed))
        except ValueError as exc:
            raise _field_error("cube" if p.cube else "position_id", str(exc)) from None
        job = RolloutJobState(uuid.uuid4().hex[:12], p.trials, spec)
        for old in [k for k, j in jobs.items() if not j.running][:max(0, len(jobs) - JOBS_KEPT + 1)]:
            del jobs[old]  # the oldest finished first (dicts keep insertion order)
        jobs[job.id] = job
        launch(job)
        return {"id": job.id, "trials": p.trials}

    def check_room() -> None:
        if sum(1 for j in jobs.values() if j.running) >= MAX_ROLLOUTS:
            raise HTTPException(503, "too many rollouts running", headers={"Retry-After": "10"})

    def launch(job: RolloutJobState) -> None:
        """Runs (or continues, from the trials kept) the job on its own thread."""
        loop = asyncio.get_running_loop()
        job.cancelled.clear()
        job.error = None
        job.running = True

        def progress(done: int, total: int, partial: Any) -> None:
            job.done = done
            loop.call_soon_threadsafe(_offer, job.updates, {"trials": done, "total": total,
                                                            "result": partial.as_json()})
            if job.cancelled.is_set() and done < total:
                raise _Cancelled()

        def keep(values: list[Any]) -> None:
            job.values = list(values)

        def work() -> None:
            pool.rollouts.inc()
            try:
                job.result = rollouts(engine, job.spec, progress=progress, done=job.values, on_chunk=keep)
                job.values = None  # the result is what a finished job keeps
            except _Cancelled:
                job.error = "cancelled"
            except Exception as exc:  # reported to the client as the job's error
                job.error = str(exc)
            finally:
                job.running = False
                pool.rollouts.dec()
                with contextlib.suppress(RuntimeError):  # the server has stopped: its loop is closed
                    loop.call_soon_threadsafe(_offer, job.updates, {"end": True})
                    loop.call_soon_threadsafe(forget_values)
        threading.Thread(target=work, name=f"rollout {job.id}", daemon=True).start()

    def forget_values() -> None:
        """Stopped jobs keep at most :data:`VALUES_KEPT` bytes of trials; an older job
        past that forgets its own (a resume starts it again)."""
        stopped = [j for j in jobs.values() if not j.running and j.values is not None]
        size = {j.id: sum(v.nbytes for v in j.values or ()) for j in stopped}
        total = sum(size.values())
        for j in stopped:
            if total <= VALUES_KEPT:
                break
            total -= size[j.id]
            j.values, j.done = None, 0

    @app.post("/rollouts/{job_id}/resume", status_code=202, dependencies=deps,
              responses={**job_errors, **responses(503)})
    async def resume_rollout(job_id: str) -> dict[str, Any]:
        """Continue a cancelled (or failed) job from the trials it kept; the same dice as one run."""
        job = get_job(job_id)
        if job.running or job.result is not None:
            raise _field_error("id", f"rollout {job_id!r} is {'running' if job.running else 'finished'}")
        check_room()
        resumed_at = job.done  # the thread may report its first chunk before this returns
        launch(job)
        return {"id": job.id, "trials": resumed_at}

    def get_job(job_id: str) -> RolloutJobState:
        job = jobs.get(job_id)
        if job is None:
            raise _field_error("id", f"no rollout {job_id!r}")
        return job

    @app.get("/rollouts/{job_id}", dependencies=deps, responses=job_errors)
    async def rollout_result(job_id: str) -> dict[str, Any]:
        """The job's state; ``result`` in ``fibsbot rollout --json``'s shape when finished."""
        job = get_job(job_id)
        return {"id": job.id, "trials": job.done, "total": job.total, "error": job.error,
                "result": job.result.as_json() if job.result is not None else None}

    @app.delete("/rollouts/{job_id}", dependencies=deps, responses=job_errors)
    async def cancel_rollout(job_id: str) -> dict[str, Any]:
        job = get_job(job_id)
        job.cancelled.set()
        return {"id": job.id, "cancelled": True}

    @app.get("/rollouts/{job_id}/events", dependencies=deps, response_class=StreamingResponse,
             responses={**job_errors, 200: {"content": {"text/event-stream": {}}, "description": "progress, then end"}})
    async def rollout_events(job_id: str, request: Request) -> StreamingResponse:
        """Server-sent events: running equities with standard errors, trials done, ETA; then ``end``."""
        job = get_job(job_id)

        async def stream() -> AsyncIterator[bytes]:
            while True:
                if not job.running:
                    if job.updates.empty():
                        final = {"error": job.error, "result": job.result.as_json() if job.result else None}
                        yield f"event: end\ndata: {json.dumps(final)}\n\n".encode()
                        return
                try:
                    update = await asyncio.wait_for(job.updates.get(), 1.0)
                except TimeoutError:
                    if await request.is_disconnected():
                        return
                    continue
                if "end" in update:
                    continue
                elapsed = time.monotonic() - job.started
                done = max(update["trials"], 1)
                update["eta_s"] = round(elapsed * (update["total"] - done) / done, 1)
                yield f"event: progress\ndata: {json.dumps(update)}\n\n".encode()
        return StreamingResponse(stream(), media_type="text/event-stream")

    @app.get("/metrics", response_class=PlainTextResponse)
    async def metrics() -> PlainTextResponse:
        return PlainTextResponse(generate_latest(pool.registry).decode(),
                                 media_type="text/plain; version=0.0.4; charset=utf-8")

    return app


def _pips(request: Request) -> dict[str, int]:
    """wildbg's ``p0``..``p25`` (a chequer count: an optional sign and at most 6 digits);
    any parameter given twice is an error (which one counts would be a guess)."""
    params = request.query_params
    for name in params:
        if len(params.getlist(name)) > 1:
            raise _field_error(name, "given more than once")
    out: dict[str, int] = {}
    for i in range(26):
        raw = params.get(f"p{i}")
        if raw is None:
            continue
        if not _COUNT.fullmatch(raw):
            raise _field_error(f"p{i}", "an integer (a chequer count, negative for o)")
        out[f"p{i}"] = int(raw)
    return out


_COUNT = re.compile(r"[+-]?[0-9]{1,6}")
