"""The lobby: invitations and their screening (with the reason told), who is on, the saved
matches the server lists, inviting to resume them, and the sparring partner of local play."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

from bot import clip, commands, policy
from bot.config import Invitations
from bot.player.context import Context
from bot.player.flow import MatchFlow
from bot.player.model import Challenge

log = logging.getLogger(__name__)

class Lobby:
    """Everything between matches: who invites us and whom we invite."""

    def __init__(self, ctx: Context, flow: MatchFlow) -> None:
        self.ctx = ctx
        self.flow = flow
        self._invitations: dict[str, int | None] = {}
        self._warned: dict[str, int] = {}
        self._screening: set[str] = set()
        self._last_inviter = ""
        self._invited: dict[str, float] = {}
        self._listing: set[str] | None = None

    def on_match_started(self) -> None:
        """A match began or was resumed: the invitations still open are void."""
        self._invitations.clear()

    def on_disconnected(self) -> None:
        self._invitations.clear()
        self._listing = None  # a ``show saved`` list cut off proves nothing; the next login asks again

    # -- invitations --------------------------------------------------------------------

    def on_invitation(self, event: clip.Invitation) -> None:
        if self.ctx.match is None:
            self._invitations[event.user] = event.length
            self._last_inviter = event.user
            self._warned.pop(event.user, None)

    def on_saved_warning(self, event: clip.SavedMatchWarning) -> None:
        if self._last_inviter:
            self._warned[self._last_inviter] = event.length

    def on_join_hint(self, event: clip.JoinHint) -> None:
        user = event.user
        if user in self._invitations and user not in self._screening and self.ctx.match is None:
            self._screening.add(user)
            self.ctx.spawn(self._screen(user, self._invitations[user]))

    async def _screen(self, user: str, length: int | None) -> None:
        """Decide on an invitation, asking the server about the inviter only when a rule needs it."""
        ctx = self.ctx
        try:
            rules = ctx.cfg.invitations
            await asyncio.sleep(0)  # a saved-match warning follows the invitation
            info, count, asked = ctx.who.get(user), None, set()
            while True:
                saved = self._warned.get(user)
                if saved is None and user in ctx.interrupted:
                    saved = ctx.interrupted[user].length
                inviter = policy.Inviter(user, length, info.rating if info else None,
                                         info.experience if info else None, count, saved)
                decision = policy.decide(rules, inviter, paused=not ctx.wants_ready)
                if decision.reason in (policy.Reason.RATING_UNKNOWN, policy.Reason.EXPERIENCE_UNKNOWN) \
                        and "who" not in asked:
                    asked.add("who")
                    found = await self._ask(commands.rawwho(user),
                                            lambda e: isinstance(e, clip.WhoInfo) and e.name == user)
                    info = found if isinstance(found, clip.WhoInfo) else None
                    if info is None:
                        rules = _unanswered(rules, user, "rawwho", min_rating=None, max_rating=None,
                                            min_experience=0, max_experience=None)
                elif decision.reason is policy.Reason.SAVED_UNKNOWN and "saved" not in asked:
                    asked.add("saved")
                    reply = await self._ask(commands.show_savedcount(user),
                                            lambda e: isinstance(e, clip.SavedCount) and e.user == user)
                    count = reply.count if isinstance(reply, clip.SavedCount) else None
                    if count is None:
                        rules = _unanswered(rules, user, "show savedcount", max_saved=None)
                elif decision.reason is policy.Reason.SAVED_MATCH and "resume" not in asked:
                    asked.add("resume")
                    if not await self._saved_match_confirmed(user):
                        continue  # the belief lapsed: decide again without it
                    break
                else:
                    break
            log.info("invited by %s (rating %s, experience %s) to %s: %s (%s)", user,
                     f"{info.rating:.2f}" if info else "unknown", info.experience if info else "unknown",
                     "resume a saved match" if length is None else f"a {length}-point match" if length
                     else "an unlimited match", "joining" if decision.accept else "declining", decision.reason.human)
            if self._invitations.get(user, -1) != length or ctx.match is not None:
                return  # withdrawn, replaced, or we are playing now
            self._invitations.pop(user, None)
            if decision.accept:
                ctx.send(commands.join(user))
                return
            if rules.tell_reason and ctx.may_tell(user, rules.tell_interval_s):
                ctx.send(commands.tell(user, decision.text))
        finally:
            self._screening.discard(user)

    async def _ask(self, command: str, answers: Callable[[clip.Event], bool]) -> clip.Event | None:
        """Send a question about an inviter and wait for its answer; a question this server
        left unanswered once is not asked again (None at once)."""
        ctx = self.ctx
        word = " ".join(command.split()[:2])  # "show savedcount", "rawwho bob" -> per command
        word = word if word.startswith("show ") else command.split()[0]
        if word in ctx.unanswered:
            return None
        ctx.send(command)
        logins = ctx.stats.logins
        reply = await ctx.wait_for(answers, ctx.cfg.invitations.screen_timeout_s)
        if reply is None and ctx.stats.logins == logins and ctx.name:  # a timeout, not a disconnect
            ctx.unanswered.add(word)
            log.warning("the server did not answer %r: not asking it again", word)
        return reply

    # -- resuming saved matches -------------------------------------------------------------

    async def _saved_match_confirmed(self, user: str) -> bool:
        """Invite ``user`` to resume our saved match: True if the server confirms it; else
        (a refusal in any wording, or no answer) the belief lapses."""
        self._invite(user, None, throttle=False)
        answer = await self.ctx.wait_for(
            lambda e: isinstance(e, clip.InviteSent) and e.user == user
            or isinstance(e, clip.NoSavedMatch) and e.user in (None, user)
            or isinstance(e, clip.Busy | clip.NoSuchUser),
            self.ctx.cfg.invitations.screen_timeout_s)
        if isinstance(answer, clip.InviteSent) and answer.length is None:
            return True
        if isinstance(answer, clip.Busy | clip.NoSuchUser):
            return True  # it exists, but not now
        self._lapse(user, answer.text if isinstance(answer, clip.Error) else "no answer to the resume invitation")
        return False

    def _lapse(self, opponent: str, why: str) -> None:
        """The server does not confirm a saved match with ``opponent``: stop believing in it."""
        ctx = self.ctx
        if opponent in ctx.interrupted or opponent in ctx.server_saved or opponent in self._warned:
            log.warning("the server does not confirm our saved match with %s (%s): it is over", opponent, why)
        ctx.server_saved.pop(opponent, None)
        self._warned.pop(opponent, None)
        self.flow.ended_away(opponent)

    def on_error(self, event: clip.Error, asked: str | None) -> None:
        """A ``**`` line while no match runs; ``asked``: whom our last resume invitation went to."""
        if isinstance(event, clip.NoSavedMatch) and (event.user or asked):
            self._lapse(event.user or asked or "", event.text)
        if isinstance(event, clip.NoSuchUser):
            self._invited.pop(event.user, None)  # invite again as soon as they log in
        log.debug("server: ** %s", event.text)

    def on_invite_sent(self, event: clip.InviteSent) -> None:
        if event.user == self.ctx.resume_asked:
            self.ctx.resume_asked = None  # confirmed: the server has the saved match

    def _invite(self, user: str, length: int | None, *, throttle: bool = True) -> None:
        now = time.monotonic()
        if throttle and now - self._invited.get(user, -1e9) < 0.5:
            return  # who lines come in bursts
        self._invited[user] = now
        self.ctx.send(commands.invite(user, length))

    def _resumable(self, user: str) -> bool:
        return user in self.ctx.interrupted or user in self.ctx.server_saved

    # -- who is on, what is saved -----------------------------------------------------------

    def on_who(self, event: clip.WhoInfo) -> None:
        ctx = self.ctx
        ctx.who[event.name] = event
        if ctx.match is not None and ctx.match.opponent == event.name:
            ctx.match.opponent_who = event
        if event.name == ctx.name:
            ctx.ready = event.ready
            ctx.rating = event.rating
        elif ctx.match is None and ctx.wants_ready and event.opponent is None:
            if ctx.challenge is not None and ctx.challenge.opponent == event.name:
                ctx.idle.set()  # the sparring partner is free: invite now
            elif ctx.challenge is None and self._resumable(event.name):
                self._invite(event.name, None)

    def on_user_logout(self, event: clip.UserLogout) -> None:
        self.ctx.who.pop(event.name, None)

    def on_saved_listing(self, event: clip.SavedHeader | clip.NoSavedGames) -> None:
        """``show saved``: an interrupted match missing from it has ended while we were away."""
        self._listing = set()
        if isinstance(event, clip.NoSavedGames):
            self.listing_ended()

    def listing_ended(self) -> None:
        """The ``show saved`` listing under way (if any) is complete."""
        if self._listing is None:
            return
        listed, self._listing = self._listing, None
        for opponent in [o for o in self.ctx.interrupted if o not in listed]:
            self.flow.ended_away(opponent)

    def on_saved_row(self, event: clip.SavedMatch) -> None:
        ctx = self.ctx
        if self._listing is not None:
            self._listing.add(event.opponent)
        ctx.server_saved[event.opponent] = event
        if event.online and ctx.match is None and ctx.wants_ready and (
                ctx.challenge is None or ctx.challenge.opponent == event.opponent):
            self._invite(event.opponent, None)

    # -- local play ----------------------------------------------------------------------

    def start_challenge(self) -> None:
        """Start inviting the sparring partner (once per player)."""
        challenge = self.ctx.challenge
        if challenge is not None and not self.ctx.has_task("challenge"):
            self.ctx.spawn(self._challenge_loop(challenge), name="challenge")

    async def _challenge_loop(self, challenge: Challenge) -> None:
        """Keep inviting the sparring partner while idle, until enough matches are played."""
        ctx = self.ctx
        while len(ctx.results) < challenge.matches and not ctx.draining:
            if ctx.match is None and ctx.attached and ctx.name:
                resume = self._resumable(challenge.opponent)
                self._invite(challenge.opponent, None if resume else challenge.length, throttle=False)
            ctx.idle.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(ctx.idle.wait(), challenge.retry_s)


def _unanswered(rules: Invitations, user: str, question: str, **unchecked: object) -> Invitations:
    """A question about an inviter the server left unanswered: the config says whether
    to join without that check or decline."""
    if rules.unanswered == "decline":
        log.warning("the server did not answer %s %s: declining as configured", question, user)
        return rules
    log.warning("the server did not answer %s %s: joining without checking", question, user)
    return rules.model_copy(update=unchecked)
