"""Test helpers for the PettingZoo envs of every game: random play through the AEC loop, and the env's state as
plain values for "a refused action changes nothing" checks."""

from __future__ import annotations

import numpy as np


def play_random(env, rng: np.random.Generator, check_mask: bool = False) -> dict[str, float]:
    """Uniformly random legal actions (read off the action mask) to the episode's end; each agent's summed rewards.
    ``check_mask`` also checks the mask against the engine's legal moves and the observation against
    ``observation_vector``, where the env has one."""
    total = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        total[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        if check_mask:
            assert np.array_equal(legal, env.unwrapped.game.legal_moves())
            assert np.array_equal(obs["observation"], env.unwrapped.observation_vector(agent))
        env.step(int(rng.choice(legal)))
    return total


def snapshot(env) -> tuple:
    """What a refused action must leave as it was: the game's phase, player to move, actions, history, move to beat
    and cards, and the env's agent to move and rewards."""
    raw = env.unwrapped
    game = raw.game
    return (game.phase, game.current_player, list(game.actions), list(getattr(game, "history", [])),
            getattr(game, "last_move", None), game.cards_held().tolist(), game.cards_played().tolist(),
            env.agent_selection, dict(raw._cumulative_rewards), dict(raw.rewards))
