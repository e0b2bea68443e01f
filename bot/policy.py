"""Which invitations the bot accepts, each answer with a reason (lichess-bot style).

:func:`decide` is pure: the player gathers what it knows about the inviter
(who line, ``show savedcount``) and logs or tells the returned reason.

>>> from bot.config import Invitations
>>> rules = Invitations(max_length=5, block=["pest"])
>>> decide(rules, Inviter("bob", 9)).reason
<Reason.TOO_LONG: 'too_long'>
>>> decide(rules, Inviter("bob", 9)).reason.human
'the match is too long'
>>> decide(rules, Inviter("bob", 9)).text
'Sorry, I play matches of 1 to 5 points.'
>>> decide(rules, Inviter("bob", None)).accept     # a resume is always accepted
True
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from bot.config import Invitations


class Reason(enum.StrEnum):
    """Why an invitation is accepted or declined: a short code (the value, for logs and
    the ledger; it equals the plain string) and a human text (:attr:`human`)."""

    ACCEPT = "accept"
    RESUME = "resume"
    PAUSED = "paused"
    BLOCKED = "blocked"
    NOT_ALLOWED = "not_allowed"
    SAVED_MATCH = "saved_match"
    UNLIMITED = "unlimited"
    TOO_SHORT = "too_short"
    TOO_LONG = "too_long"
    RATING_UNKNOWN = "rating_unknown"
    RATING_LOW = "rating_low"
    RATING_HIGH = "rating_high"
    EXPERIENCE_UNKNOWN = "experience_unknown"
    EXPERIENCE_LOW = "experience_low"
    EXPERIENCE_HIGH = "experience_high"
    SAVED_UNKNOWN = "saved_unknown"
    DROPPER = "dropper"

    @property
    def human(self) -> str:
        return _HUMAN[self]

    @property
    def unknown(self) -> bool:
        """Declined only because something about the inviter is not known yet."""
        return self in (Reason.RATING_UNKNOWN, Reason.EXPERIENCE_UNKNOWN, Reason.SAVED_UNKNOWN)

    def __str__(self) -> str:
        return self.value


_HUMAN = {
    Reason.ACCEPT: "the invitation fits the rules",
    Reason.RESUME: "a saved match is always resumed",
    Reason.PAUSED: "not taking matches now",
    Reason.BLOCKED: "the inviter is blocked",
    Reason.NOT_ALLOWED: "the inviter is not on the allow list",
    Reason.SAVED_MATCH: "we have a saved match with the inviter to finish first",
    Reason.UNLIMITED: "unlimited matches are not played",
    Reason.TOO_SHORT: "the match is too short",
    Reason.TOO_LONG: "the match is too long",
    Reason.RATING_UNKNOWN: "the inviter's rating is not known",
    Reason.RATING_LOW: "the inviter's rating is too low",
    Reason.RATING_HIGH: "the inviter's rating is too high",
    Reason.EXPERIENCE_UNKNOWN: "the inviter's experience is not known",
    Reason.EXPERIENCE_LOW: "the inviter's experience is too low",
    Reason.EXPERIENCE_HIGH: "the inviter's experience is too high",
    Reason.SAVED_UNKNOWN: "the inviter's count of saved matches is not known",
    Reason.DROPPER: "the inviter has too many saved matches",
}


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
    reason: Reason
    text: str
    """What the inviter may be told (empty for acceptances)."""


def _yes(reason: Reason) -> Decision:
    return Decision(True, reason, "")


def decide(rules: Invitations, inviter: Inviter, *, paused: bool = False) -> Decision:
    """Accept or decline, with the first reason that applies."""
    if paused:
        return Decision(False, Reason.PAUSED, "Sorry, I am not taking matches right now.")
    if inviter.length is None:
        return _yes(Reason.RESUME)  # finishing saved matches is what FIBS expects of everyone
    name = inviter.user.lower()
    if name in {u.lower() for u in rules.block}:
        return Decision(False, Reason.BLOCKED, "Sorry, I do not play with you.")
    if rules.allow and name not in {u.lower() for u in rules.allow}:
        return Decision(False, Reason.NOT_ALLOWED, "Sorry, I only play with players on my list.")
    if inviter.saved_length is not None:
        saved = f"{inviter.saved_length}-point" if inviter.saved_length else "unlimited"
        return Decision(False, Reason.SAVED_MATCH, f"We have a saved {saved} match: please resume it first.")
    if inviter.length == 0:
        if not rules.unlimited:
            return Decision(False, Reason.UNLIMITED, "Sorry, I do not play unlimited matches.")
    elif not rules.min_length <= inviter.length <= rules.max_length:
        reason = Reason.TOO_SHORT if inviter.length < rules.min_length else Reason.TOO_LONG
        return Decision(False, reason, f"Sorry, I play matches of {rules.min_length} to {rules.max_length} points.")
    limits = (("rating", inviter.rating, rules.min_rating, rules.max_rating,
               (Reason.RATING_UNKNOWN, Reason.RATING_LOW, Reason.RATING_HIGH)),
              ("experience", inviter.experience, rules.min_experience, rules.max_experience,
               (Reason.EXPERIENCE_UNKNOWN, Reason.EXPERIENCE_LOW, Reason.EXPERIENCE_HIGH)))
    for what, value, low, high, (unknown, too_low, too_high) in limits:
        if value is None:
            if low or high is not None:
                return Decision(False, unknown, "Sorry, I could not look you up; please try again.")
            continue
        if low is not None and value < low:
            return Decision(False, too_low, f"Sorry, I play opponents with {what} from {low:g}.")
        if high is not None and value > high:
            return Decision(False, too_high, f"Sorry, I play opponents with {what} up to {high:g}.")
    if rules.max_saved is not None:
        if inviter.saved_count is None:
            return Decision(False, Reason.SAVED_UNKNOWN, "Sorry, I could not look you up; please try again.")
        if inviter.saved_count > rules.max_saved:
            return Decision(False, Reason.DROPPER, f"Sorry, you have {inviter.saved_count} saved matches; "
                                              f"please finish some first.")
    return _yes(Reason.ACCEPT)
