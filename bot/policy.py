"""Which invitations the bot accepts, each answer with a reason (lichess-bot style).

:func:`decide` is pure: the player gathers what it knows about the inviter
(who line, ``show savedcount``) and logs or tells the returned reason.

>>> from bot.config import Invitations
>>> rules = Invitations(max_length=5, block=["pest"])
>>> decide(rules, Inviter("bob", 9)).reason
'too_long'
>>> decide(rules, Inviter("bob", 9)).text
'Sorry, I play matches of 1 to 5 points.'
>>> decide(rules, Inviter("bob", None)).accept     # a resume is always accepted
True
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.config import Invitations


@dataclass(frozen=True)
class Inviter:
    """An invitation and what is known about the inviter (None = unknown)."""

    user: str
    length: int | None
    """Points; 0 = unlimited; None = resume a saved match."""
    rating: float | None = None
    experience: int | None = None
    saved_count: int | None = None
    saved_length: int | None = None
    """The length of a saved match we have with the inviter (0 = unlimited), if any."""


@dataclass(frozen=True)
class Decision:
    accept: bool
    reason: str
    """A short code for logs: ``accept``, ``resume``, ``too_long``, ``dropper`` ..."""
    text: str
    """What the inviter may be told (empty for acceptances)."""


def _yes(reason: str) -> Decision:
    return Decision(True, reason, "")


def decide(rules: Invitations, inviter: Inviter, *, paused: bool = False) -> Decision:
    """Accept or decline, with the first reason that applies."""
    if paused:
        return Decision(False, "paused", "Sorry, I am not taking matches right now.")
    if inviter.length is None:
        return _yes("resume")  # finishing saved matches is what FIBS expects of everyone
    name = inviter.user.lower()
    if name in {u.lower() for u in rules.block}:
        return Decision(False, "blocked", "Sorry, I do not play with you.")
    if rules.allow and name not in {u.lower() for u in rules.allow}:
        return Decision(False, "not_allowed", "Sorry, I only play with players on my list.")
    if inviter.saved_length is not None:
        saved = f"{inviter.saved_length}-point" if inviter.saved_length else "unlimited"
        return Decision(False, "saved_match", f"We have a saved {saved} match: please resume it first.")
    if inviter.length == 0:
        if not rules.unlimited:
            return Decision(False, "unlimited", "Sorry, I do not play unlimited matches.")
    elif not rules.min_length <= inviter.length <= rules.max_length:
        reason = "too_short" if inviter.length < rules.min_length else "too_long"
        return Decision(False, reason, f"Sorry, I play matches of {rules.min_length} to {rules.max_length} points.")
    limits = (("rating", inviter.rating, rules.min_rating, rules.max_rating),
              ("experience", inviter.experience, rules.min_experience, rules.max_experience))
    for what, value, low, high in limits:
        if value is None:
            if low or high is not None:
                return Decision(False, f"{what}_unknown", "Sorry, I could not look you up; please try again.")
            continue
        if low is not None and value < low:
            return Decision(False, f"{what}_low", f"Sorry, I play opponents with {what} from {low:g}.")
        if high is not None and value > high:
            return Decision(False, f"{what}_high", f"Sorry, I play opponents with {what} up to {high:g}.")
    if rules.max_saved is not None:
        if inviter.saved_count is None:
            return Decision(False, "saved_unknown", "Sorry, I could not look you up; please try again.")
        if inviter.saved_count > rules.max_saved:
            return Decision(False, "dropper", f"Sorry, you have {inviter.saved_count} saved matches; "
                                              f"please finish some first.")
    return _yes("accept")
