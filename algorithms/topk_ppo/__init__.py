"""Top-k PPO (DanZero+: Y. Zhao, Y. Lu, J. Zhao, W. Zhou, H. Li, "DanZero+: Dominating the GuanDan Game through
Reinforcement Learning", 2024, Sec. IV-D): a frozen DMC network proposes its k best legal moves, PPO picks one.

One concern per file, as RLlib's own ``ppo/``: ``topk_ppo.py`` (config and algorithm), ``topk_ppo_learner.py`` (the
loss, eqs. 1-5), ``topk_ppo_rl_module.py`` (the policy/value network), ``topk_ppo_env_runner.py`` (lock-step games,
batched candidate scoring), ``settings.py`` (Table V's defaults); one small module per idea: ``candidates.py`` (top-k
in Q order), ``level_a.py`` (the 516th-dim counters), ``gae.py``; ``agent.py`` and ``agent_loaders.py``
(``cardrl eval``'s ``topk-ppo:PATH``), ``train.py`` (``cardrl train GAME --algo topk-ppo``).
"""
