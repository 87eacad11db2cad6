"""Luo & Tan's opponent model trained on its own, by supervised learning on random-play positions: the loss and
initialisation choices measured apart from DMC (docs/papers.md, "does the opponent model learn?").

Positions come from ``--deals`` deals of random play (their labels read off the true state, as the env runner
ships them); the held-out report is :func:`heldout_report`'s (other seeds). The optimizer is DouZero's RMSprop by
default. ``--init default`` starts from PyTorch's own initialisation instead of He's; ``--k-weight 54`` gives the K
head the weight of all 54 card heads together (our loss before, a mean over the bits plus K's cross-entropy, up to a
constant factor). Prints one JSON line per report.

    python experiments/om_supervised.py --game big2 --updates 1000
    python experiments/om_supervised.py --game big2 --updates 1000 --init default --k-weight 54
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from types import SimpleNamespace


def positions(game: str, deals: int, seed: int, features: str | None) -> dict:
    """Inputs and labels of every position of ``deals`` random-play deals, as tensors."""
    import numpy as np
    import torch

    from cardrl.algorithms.dmc.opponent_model import random_play_positions
    from cardrl.features import labels
    from cardrl.games.registry import get_game

    spec = get_game(game)
    engine = spec.make_engine(**({"match": False} if game == "guandan" else {}))
    encoder, search, k_classes = spec.make_features(features), spec.make_search(engine), labels.k_classes(engine)
    if "luo_tan" not in encoder.opponent_models:
        raise SystemExit(f"Luo & Tan's opponent model does not read the {game} features {features or '(default)'}; "
                         f"use features that it reads (DouDiZhu: unified)")
    rows: dict[str, list] = {"state": [], "history": [], "cards": [], "k": []}
    for seat in random_play_positions(engine, deals, seed):
        state, history = encoder.split(encoder.encode(engine, seat), spec.agents[seat])
        rows["state"].append(state)
        rows["history"].append(history)
        rows["cards"].append(labels.hidden_card_labels(engine, seat)[0])
        rows["k"].append(labels.min_combination_labels(engine, seat, search, k_classes))
    if rows["history"][0] is None:  # GuanDan's features: an MLP on the state alone
        del rows["history"]
    out = {key: torch.as_tensor(np.stack(value)).float() for key, value in rows.items()}
    out["k"] = out["k"].long()
    out.setdefault("history", None)
    out["meta"] = (labels.card_label_dim(engine), k_classes, engine.num_players)
    return out


def run(args: argparse.Namespace) -> list[dict]:
    import torch

    from cardrl.algorithms.dmc.opponent_model import LuoTanOpponentModel, heldout_report, luo_tan_loss
    from cardrl.games.registry import get_game

    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    start = time.time()
    data = positions(args.game, args.deals, args.seed, args.features)
    card_dim, k_classes, players = data["meta"]
    history = data["history"]
    om = LuoTanOpponentModel(data["state"].shape[1], None if history is None else tuple(history.shape[1:]), card_dim,
                             k_classes, players)
    if args.init == "default":
        for layer in om.modules():
            if isinstance(layer, torch.nn.Linear):
                layer.reset_parameters()
    optimizer = (torch.optim.Adam(om.parameters(), lr=args.lr) if args.optimizer == "adam" else
                 torch.optim.RMSprop(om.parameters(), lr=args.lr, alpha=0.99, eps=1e-5))
    modules = {agent: SimpleNamespace(opponent_model=om) for agent in get_game(args.game).agents}
    n, reports = len(data["state"]), []
    for update in range(args.updates + 1):
        if update % args.report_every == 0 or update == args.updates:
            om.eval()
            report = heldout_report(modules, args.game, deals=args.heldout_deals, features=args.features,
                                    options={"match": False} if args.game == "guandan" else None)
            om.train()
            report.update(update=update, train_positions=n, minutes=round((time.time() - start) / 60, 1))
            print(json.dumps(report), flush=True)
            reports.append(report)
        if update == args.updates:
            break
        idx = torch.randint(0, n, (args.batch,))
        loss, _ = luo_tan_loss(om(data["state"][idx], None if history is None else history[idx]), data["cards"][idx],
                               data["k"][idx], args.card_weight, args.k_weight)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(om.parameters(), 40.0)
        optimizer.step()
    return reports


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    from cardrl.games.registry import game_names

    parser.add_argument("--game", default="big2", choices=game_names())
    parser.add_argument("--features", default=None, help="feature encoder (DouDiZhu: unified)")
    parser.add_argument("--deals", type=int, default=1500, help="random-play deals to train on")
    parser.add_argument("--heldout-deals", type=int, default=50)
    parser.add_argument("--updates", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=800)
    parser.add_argument("--report-every", type=int, default=200)
    parser.add_argument("--optimizer", default="rmsprop", choices=["rmsprop", "adam"],
                        help="rmsprop: DouZero's (alpha 0.99, eps 1e-5); adam: PyTorch's defaults")
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--init", default="he", choices=["he", "default"],
                        help="he: the model's own initialisation; default: PyTorch's for every linear layer")
    parser.add_argument("--card-weight", type=float, default=1.0)
    parser.add_argument("--k-weight", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.game == "doudizhu" and args.features is None:
        args.features = "unified"
    run(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
