"""The player's lifecycle: the ``ready`` toggle (paused or taking matches), draining (finish or
save the running match, then log out), and the ledger (one line per finished or saved match)."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

from bot import clip, commands
from bot.player.context import Context
from bot.player.model import MatchContext, MatchResult, outcome

log = logging.getLogger(__name__)


class Lifecycle:
    """Ready, pause, drain, and the ledger."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    # -- ready ------------------------------------------------------------------------

    def pause(self, paused: bool) -> None:
        """Stop (or start again) taking matches; the running one goes on."""
        self.ctx.paused = paused
        self.fix_ready()

    def fix_ready(self) -> None:
        ctx = self.ctx
        if ctx.ready is not None and ctx.ready != ctx.wants_ready:
            ctx.ready = ctx.wants_ready
            ctx.send(commands.toggle("ready"))

    def on_toggled(self, event: clip.Toggled) -> None:
        if event.name == "ready":
            self.ctx.ready = event.value

    # -- stopping -----------------------------------------------------------------------

    def drain(self) -> None:
        """Stop taking matches; finish (or save) the running one, then log out."""
        ctx = self.ctx
        if ctx.draining:
            return
        ctx.draining = True
        log.info("draining: %s", "no match running" if ctx.match is None else
                 f"{ctx.cfg.play.drain} the match with {ctx.match.opponent}")
        if not ctx.attached:
            return
        self.fix_ready()
        if ctx.match is None:
            ctx.close_link()
        elif ctx.cfg.play.drain == "save":
            ctx.send(commands.leave())
        else:
            ctx.spawn(self._drain_deadline(), name="drain")

    def match_over(self) -> None:
        """The running match ended or was saved: a draining player logs out now."""
        if self.ctx.draining:
            self.ctx.close_link()

    def on_join_next(self, event: clip.JoinNextGame) -> None:
        if self.ctx.draining and self.ctx.cfg.play.drain == "save":
            self.ctx.send(commands.leave())
        else:
            self.ctx.send(commands.join())

    async def _drain_deadline(self) -> None:
        await asyncio.sleep(self.ctx.cfg.play.drain_timeout_s)
        if self.ctx.match is not None:
            log.warning("the match takes too long to finish: leaving (it is saved)")
            self.ctx.send(commands.leave())
            await asyncio.sleep(5)
        self.ctx.close_link()

    # -- the ledger ---------------------------------------------------------------------

    def record_result(self, m: MatchContext, result: MatchResult) -> None:
        """A ledger line for a finished match, written once the server tells the new rating."""
        self.ctx.spawn(self._write_result(m, result), name="ledger")

    async def _write_result(self, m: MatchContext, result: MatchResult) -> None:
        ctx = self.ctx
        after = None
        if ctx.name:
            ctx.send(commands.rawwho(ctx.name))
            who = await ctx.wait_for(lambda e: isinstance(e, clip.WhoInfo) and e.name == ctx.name, 10.0)
            after = who.rating if isinstance(who, clip.WhoInfo) else None
        if after is not None and m.rating_before is not None:
            log.info("match with %s: rating %.2f -> %.2f (%+.2f)", m.opponent, m.rating_before, after,
                     after - m.rating_before)
        if ctx.ledger is not None:
            ctx.ledger.write({
                "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "opponent": m.opponent, "length": result.length,
                "score": list(result.score) if result.score else None, "result": outcome(result).split()[0],
                "rating_before": m.rating_before, "rating_after": after,
                **self._opponent_info(m), "record": str(result.record) if result.record else None,
            })

    def record_saved(self, m: MatchContext, why: str, written: Path | None) -> None:
        """A ledger line for a match interrupted (saved on the server)."""
        if self.ctx.ledger is not None:
            self.ctx.ledger.write({
                "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "opponent": m.opponent, "length": m.length,
                "result": "saved", "why": why, "rating_before": m.rating_before,
                **self._opponent_info(m), "record": str(written) if written else None,
            })

    def _opponent_info(self, m: MatchContext) -> dict[str, float | int | None]:
        """The opponent's rating and experience as the server last reported them (its who
        lines: FIBS sends a player's new line when a match of theirs ends)."""
        who = self.ctx.who.get(m.opponent) or m.opponent_who
        return {"opponent_rating": who.rating if who else None, "opponent_experience": who.experience if who else None}
