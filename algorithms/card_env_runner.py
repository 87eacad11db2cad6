"""What cardrl's own env runners share: many card games stepped in lock-step by one runner, weights that arrive with
each sample request and carry a sequence number, and RLlib's EnvRunner / Checkpointable plumbing.

A subclass sets ``self.envs``, ``self.module`` (an inference-only MultiRLModule), ``self.agent_to_module`` and
``self._episode_returns`` in its ``__init__`` and implements ``sample``; everything else is here. Weights are loaded
only when newer than the runner's (``WEIGHTS_SEQ_NO``), so an RLlib state sync that overtakes a sample request
cannot roll the module back.

RLlib calls an env runner through its ``apply`` method (every sample request of DMC's loop is one such call); Ray
keeps an event record of every call in the GCS (up to ``task_events_max_num_task_in_gcs``, 100,000 by default), which
grew ``gcs_server`` by about 4 KB per call (docs/operations.md, "What grew, and why"). ``apply`` is marked
``enable_task_events=False`` here, so those calls leave no record: on a cluster too, whatever its head's settings.
"""

from __future__ import annotations

import ray
from ray.rllib.core import COMPONENT_RL_MODULE
from ray.rllib.env.env_runner import EnvRunner
from ray.rllib.utils.checkpoints import Checkpointable
from ray.rllib.utils.metrics import NUM_ENV_STEPS_SAMPLED_LIFETIME

__all__ = ["CardGameEnvRunner", "WEIGHTS_SEQ_NO"]

WEIGHTS_SEQ_NO = "weights_seq_no"


class CardGameEnvRunner(EnvRunner, Checkpointable):
    """Base of :class:`~cardrl.algorithms.dmc.dmc_env_runner.DMCEnvRunner` and
    :class:`~cardrl.algorithms.topk_ppo.topk_ppo_env_runner.TopKPPOEnvRunner` (module docstring)."""

    _weights_seq_no: int = 0

    @ray.method(enable_task_events=False)
    def apply(self, func, *args, **kwargs):
        """RLlib's call into the runner (``FaultAwareApply.apply``), without a task-event record per call."""
        return super().apply(func, *args, **kwargs)

    def load_weights(self, weights, weights_seq_no: int) -> None:
        """Load a sample request's weights (a module state or a Ray object ref to one) when newer than ours."""
        if weights is not None:
            self.set_state({COMPONENT_RL_MODULE: weights, WEIGHTS_SEQ_NO: weights_seq_no})

    def _pop_episode_returns(self) -> list[dict]:
        out, self._episode_returns = self._episode_returns, []
        return out

    # ---- EnvRunner / Checkpointable API ------------------------------------------------------------------------
    def get_spaces(self):
        return {mid: (self.env.observation_space(a), self.env.action_space(a))
                for a, mid in self.agent_to_module.items()}

    def assert_healthy(self):
        assert self.envs and self.module is not None, f"{type(self).__name__} has no envs or no module"

    def get_metrics(self):
        return self.metrics.reduce()

    def get_state(self, components=None, *, not_components=None, **kwargs):
        state = {NUM_ENV_STEPS_SAMPLED_LIFETIME: self.num_env_steps_sampled_lifetime}
        if self._check_component(COMPONENT_RL_MODULE, components, not_components):
            state[COMPONENT_RL_MODULE] = self.module.get_state(
                components=self._get_subcomponents(COMPONENT_RL_MODULE, components),
                not_components=self._get_subcomponents(COMPONENT_RL_MODULE, not_components), **kwargs)
            state[WEIGHTS_SEQ_NO] = self._weights_seq_no
        return state

    def set_state(self, state):
        if COMPONENT_RL_MODULE in state:
            seq = state.get(WEIGHTS_SEQ_NO, 0)
            if seq == 0 or seq > self._weights_seq_no:
                module_state = state[COMPONENT_RL_MODULE]
                if not isinstance(module_state, dict):  # an ObjectRef
                    import ray

                    module_state = ray.get(module_state)
                self.module.set_state(module_state)
                self._weights_loaded()
            if seq > 0:
                self._weights_seq_no = seq
        if NUM_ENV_STEPS_SAMPLED_LIFETIME in state:
            self.num_env_steps_sampled_lifetime = state[NUM_ENV_STEPS_SAMPLED_LIFETIME]

    def _weights_loaded(self) -> None:
        """Called after new module weights were loaded (a subclass keeping something derived from them refreshes it)."""

    def get_ctor_args_and_kwargs(self):
        return ((), {"config": self.config})

    def get_checkpointable_components(self):
        return [(COMPONENT_RL_MODULE, self.module)]

    def stop(self):
        for env in self.envs:
            env.close()
