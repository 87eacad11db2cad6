"""Evaluation (docs/architecture.md, layer 6): duplicate-deal tournaments and leagues with WP/ADP and 95% t-intervals.

- :mod:`cardrl.eval.deals`: seeded, shareable deal files (:func:`generate_deals`, :func:`load_deals`).
- :mod:`cardrl.eval.protocols`: per game (from the registry), how a deal is replayed with sides swapped and scored.
- :mod:`cardrl.eval.agents`: agents from spec strings (rule agents, loaded checkpoints, ...).
- :mod:`cardrl.eval.tournament`: :func:`run_tournament`, :func:`run_league` (in process or on Ray).
- :mod:`cardrl.eval.matches`: whole matches with teams swapped (GuanDan).
- :mod:`cardrl.eval.lockstep`: a batched scorer (a Q-network) against a baseline, many deals in lock-step.
"""

from cardrl.eval.agents import build_agent, parse_agent_spec
from cardrl.eval.deals import DealSet, generate_deals, load_deals
from cardrl.eval.stats import mean_interval
from cardrl.eval.tournament import LeagueResult, TournamentResult, run_league, run_tournament

__all__ = ["DealSet", "generate_deals", "load_deals", "build_agent", "parse_agent_spec", "mean_interval",
           "TournamentResult", "LeagueResult", "run_tournament", "run_league"]
