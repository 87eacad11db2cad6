"""What cardrl's own RLlib algorithms (DMC and top-k PPO) share: which module plays each seat
(:mod:`.policy_mapping`), the config's common set-up and option split (:mod:`.config`), reading and checking the state
saved in a checkpoint (:mod:`.checkpoint_state`), the learner's modules (:mod:`.modules`) and the lock-step env
runner's construction and per-deal labels (:mod:`.env_runner`)."""
