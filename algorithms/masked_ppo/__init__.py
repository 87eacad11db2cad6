"""RLlib's own PPO on cardrl envs: an action-masking RLModule for ``Dict(observations, action_mask)`` observations
(RLlib's convention, :mod:`cardrl.envs.rllib`)
(``masked_ppo_rl_module.py``), the PPOConfig that wires it (``masked_ppo.py``), its options (``settings.py``), the
``ppo:PATH`` agent and its loader (``agent_loaders.py``) and ``cardrl train GAME --algo ppo`` (``train.py``)."""
