"""The project's match analysis, imported in this one place for the whole report package."""

from engine.analysis import Decision, MatchAnalysis, PlayerAnalysis, analyse_match, match_state
from engine.analysis.rates import luck as luck_class

__all__ = ["Decision", "MatchAnalysis", "PlayerAnalysis", "analyse_match", "luck_class", "match_state"]
