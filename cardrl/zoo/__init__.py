"""The model zoo: trained agents shipped inside the package, each a ``weights:`` export with its card and its
evaluation results (:mod:`cardrl.zoo.catalog`, :mod:`cardrl.zoo.strength`, :mod:`cardrl.zoo.card`;
docs/strength.md). Play one with the agent spec ``zoo:GAME``."""
