"""``cardrl serve``: a local web app for every game with a notation (docs/web.md): replays of game records with the
agents' values, two agents compared on one duplicate deal, a person playing against any agent with hints, and the
runs' curves and league tables. Layer 9 (an entry point): a client of the agents and the evaluation only.
FastAPI and uvicorn come with ``pip install 'cardrl[web]'``."""

__all__ = ["create_app", "build_catalog"]


def __getattr__(name: str):
    if name == "create_app":
        from cardrl.web.app import create_app

        return create_app
    if name == "build_catalog":
        from cardrl.web.catalog import build_catalog

        return build_catalog
    raise AttributeError(name)
