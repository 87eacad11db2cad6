"""The presets table: :class:`Preset` and its rows. Every configuration a paper trains, as a ``cardrl train`` command
line, with the paper, the table or figure it reproduces and the result the paper reports; the learning benchmark's
variants (``variant=True``, most of them for any game they apply to); and the Tune sweeps (``space=``, a file in
``cardrl/spaces/``). Read by :mod:`cardrl.presets` (``cardrl train --preset NAME``, ``cardrl tune --preset NAME``)
and ``cardrl bench learning``; docs/presets.md shows it. A new paper row is one entry here. The module is data: it
imports no Ray, torch or algorithm.

Expected results are quoted from the papers: Luo & Tan 2024 Tables 4-5 give the ADP of the row's method against the
column's, with the 95% t-test interval, after 30 days (10,000 deals, sides swapped); OADMCDou Table 1 ADP +- the
interval's half-width; DanZero and DanZero+ match win rates (%) over 1,000 games against the competition's rule bots,
which cardrl does not have (its own baselines are ``rule`` and ``rule-control``).
"""

from __future__ import annotations

from dataclasses import dataclass

# A benchmark variant's oracle schedule ("1:0:{oracle_frames}") reaches 0 at this share of its frame budget:
# OADMCDou anneals over its first 20 of 30 days.
ORACLE_SHARE = 2 / 3
# ... and, run as a preset, over OADMCDou's 20 days at 100,236,906 state-action pairs a day (OADMCDou, Sec. 5.1).
PAPER_ORACLE_FRAMES = 2_004_738_120


@dataclass(frozen=True)
class Preset:
    """One row of the presets table.

    ``game`` None: any game the preset applies to (``needs_search``: the game has a Minimum Combination Search;
    ``needs_features``: it has that feature encoder; ``opponent_model``: one of its encoders feeds that opponent
    model); the command line names the game. ``options`` are ``cardrl train`` flags (``{oracle_frames}`` is filled
    in: :meth:`flags`); ``space`` makes the row a Tune sweep (a file in ``cardrl/spaces/``); ``variant`` makes
    it one of ``cardrl bench learning``'s variants; ``starts_from`` ``(VARIANT, FLAG)``: a variant that continues
    another's run (the benchmark trains VARIANT to
    :data:`cardrl.presets.START_SHARE` of the budget, then this one from that run's
    checkpoint, given by FLAG, for the rest). ``paper``, ``reproduces`` and ``expected`` say where the row is from and
    what the paper reports for it (quoted; empty where the paper gives no figure).
    """

    name: str
    game: str | None
    algo: str = "dmc"
    options: tuple[str, ...] = ()
    paper: str = ""
    reproduces: str = ""
    expected: str = ""
    notes: str = ""
    space: str | None = None
    variant: bool = False
    needs_search: bool = False
    needs_features: str | None = None
    opponent_model: str | None = None
    starts_from: tuple[str, str] | None = None

    @property
    def command(self) -> str:
        """``tune`` for a sweep, else ``train``."""
        return "tune" if self.space else "train"

    def out(self, game: str | None = None) -> str:
        """The run directory the preset writes: ``runs/NAME`` (``runs/NAME_GAME`` for a preset of any game)."""
        return f"runs/{self.name}" if self.game or game is None else f"runs/{self.name}_{game}"

    def flags(self, frames: int | None = None) -> list[str]:
        """``options`` with ``{oracle_frames}`` filled in: ``ORACLE_SHARE`` of a budget of ``frames``, or OADMCDou's
        length (:data:`PAPER_ORACLE_FRAMES`) when no budget is given."""
        oracle_frames = PAPER_ORACLE_FRAMES if frames is None else max(1, int(frames * ORACLE_SHARE))
        return [flag.format(oracle_frames=oracle_frames) for flag in self.options]

    def applies_to(self, game: str) -> bool:
        """Whether the preset can train ``game``, from the registry's data about it."""
        from cardrl.games.registry import get_game

        spec = get_game(game)
        if self.game is not None and self.game != spec.name:
            return False
        feeds = self.opponent_model is None or any(
            self.opponent_model in spec.make_features(name).opponent_models for name in spec.features)
        return ((not self.needs_search or spec.search is not None) and feeds
                and (self.needs_features is None or self.needs_features in spec.features))


# ---- the table -----------------------------------------------------------------------------------------------------
# DanZero's learner: TF1's RMSProp at lr 1e-3 (DanZero+ Table IV; the authors' learner), the same flags as
# cardrl.algorithms.dmc.optimizers.DANZERO_OPTIMIZER_FLAGS (tests check it).
DANZERO_OPTIMIZER = ("--lr", "1e-3", "--optimizer", "rmsprop_tf1", "--rmsprop-alpha", "0.9", "--rmsprop-eps", "1e-5")
DANZERO = ("--model", "mlp", *DANZERO_OPTIMIZER)  # one shared 4 x 512 tanh MLP (DanZero Fig. 4)
DANZERO_BATCH = ("--frames-per-update", "32768")  # DanZero+ Table IV
DANZERO_CLIP = ("--q-clip", "admc", "--admc-gamma", "0.65")  # DanZero's learner's clip of range 0.65 (eqs. 1-3)
BF16_RUNNERS = ("--actor-precision", "bfloat16")  # cardrl's faster variants (docs/performance.md)
BF16_LEARNER = ("--learner-precision", "bfloat16")
QUEUED_REQUESTS = ("--sample-requests-in-flight", "6")
# lambda 1 -> 0 over OADMCDou's first 20 days at 100,236,906 state-action pairs a day, then 0 (OADMCDou Sec. 5.2;
# cardrl.algorithms.dmc.schedules.OADMCDOU_ORACLE); give --oracle 1:0:FRAMES after the preset for a shorter budget
OADMCDOU_ORACLE = f"1:0:{PAPER_ORACLE_FRAMES}"
SHORTER_ORACLE = "lambda falls over the paper's 2.0e9 frames: add --oracle 1:0:FRAMES for a shorter budget"

LUO_TAN = "Luo & Tan 2024"
OADMCDOU = "OADMCDou (Luo et al. 2024)"
DOUZERO_PLUS = "DouZero+ (Zhao et al. 2022)"
ALPHADOU = "AlphaDou (2024)"
DANZERO_PLUS = "DanZero+ (Zhao et al. 2024)"
BEYOND = "beyond the papers"
TOPK = ("starts from the DMC checkpoint its --dmc-checkpoint names (train that preset first, or give --dmc-checkpoint "
        "PATH); evaluate with cardrl eval GAME --a topk-ppo:runs/NAME/checkpoint --b rule")
PPO = "evaluate with cardrl eval GAME --a ppo:runs/NAME/checkpoint --b rule"

PRESETS = (
    # ---- DouDiZhu: DouZero, Luo & Tan's Table 4, OADMCDou's Table 1 and Fig. 4, DouZero+'s Figs. 6-8 ------------
    Preset("dmc_doudizhu", "doudizhu", paper="DouZero (Zha et al. 2021); " + LUO_TAN,
           reproduces="Table 4: DouZero* (DouZero retrained)",
           expected="Table 4: DouZero* -0.29 [-0.35, -0.23] against DouZero (DouZero* 30 days on one GPU, "
                    "DouZero on four)"),
    Preset("odmc_doudizhu", "doudizhu", options=("--prune", "mcs"), paper=LUO_TAN,
           reproduces="Table 4: D+ODMC (Sec. 4.3, eq. 2)",
           expected="Table 4: D+ODMC +0.26 [0.17, 0.35] against DouZero*, -0.04 [-0.11, 0.03] against DouZero",
           notes="--prune-slack 3 for a fixed slack"),
    Preset("om_doudizhu", "doudizhu", options=("--features", "unified", "--opponent-model", "luo_tan"),
           paper=LUO_TAN, reproduces="Table 4: D+OM (Sec. 4.2, Tables 2-3)",
           expected="Table 4: D+OM +0.13 [0.05, 0.21] against DouZero*"),
    Preset("omodmc_doudizhu", "doudizhu",
           options=("--features", "unified", "--opponent-model", "luo_tan", "--prune", "mcs"), paper=LUO_TAN,
           reproduces="Table 4: D+OMODMC",
           expected="Table 4: D+OMODMC +0.35 [0.26, 0.43] against DouZero*, +0.07 [0.01, 0.13] against DouZero "
                    "(rank 1)"),
    Preset("oadmcdou_doudizhu", "doudizhu", options=("--oracle", OADMCDOU_ORACLE, "--q-clip", "admc"),
           paper=OADMCDOU, reproduces="Table 1: OADMCDou (oracle guiding and ADMC, eq. 1-5)",
           expected="Table 1: OADMCDou 0.104 +- 0.041 against DouZero, 0.345 +- 0.024 against DouZero+",
           notes=SHORTER_ORACLE),
    Preset("oracledou_doudizhu", "doudizhu", options=("--oracle", OADMCDOU_ORACLE), paper=OADMCDOU,
           reproduces="Fig. 4a: OracleDou (oracle guiding alone)",
           expected="Sec. 5.2: \"after the same 30-day training duration, OracleDou's ADP is lower than that of "
                    "DouZero, but higher than DouZero*\"", notes=SHORTER_ORACLE),
    Preset("perfectdou_doudizhu", "doudizhu", options=("--oracle", "1:1:1"), paper=OADMCDOU,
           reproduces="Fig. 4a: PerfectDou (lambda fixed at 1)",
           expected="Sec. 5.2: \"PerfectDou does not outperform DouZero in its 30-day training period\", \"a clear "
                    "advantage over DouZero*\""),
    Preset("admcdou_doudizhu", "doudizhu", options=("--q-clip", "admc"), paper=OADMCDOU,
           reproduces="Fig. 4b-c: ADMCDou (ADMC alone, eq. 2-5)",
           expected="Sec. 5.2: \"a significant advantage over DouZero* and is on par with DouZero (ADP ~ 0) in less "
                    "training time\"; loss 1.25 against DouZero*'s 1.75 after three days (Fig. 4c)"),
    Preset("alphadou_doudizhu", "doudizhu", options=("--bidding",), paper=ALPHADOU,
           reproduces="Sec. 3: bidding learned in the DMC loop (three bidding positions, bid exploration 0.3 -> 0.03, "
                      "all-pass deals redealt with reward 0); docs/bidding.md",
           expected="61.7% win rate against DouZero-ADP (the whole AlphaDou, its card-play changes included; no "
                    "ablation isolates bidding)",
           notes="the whole game: evaluate with cardrl eval doudizhu --bidding (docs/bidding.md)"),
    Preset("coach_doudizhu", "doudizhu", options=("--coach",), paper=DOUZERO_PLUS,
           reproduces="Fig. 7: the coach network (Sec. IV-B, beta 0 .. 0.30)",
           expected="Sec. V-C: \"significant improvement\" over DouZero against the DouZero baseline, peasants more "
                    "than the landlord; curves only"),
    Preset("om_coach_doudizhu", "doudizhu", options=("--opponent-model", "douzero_plus", "--coach"),
           paper=DOUZERO_PLUS, reproduces="Fig. 8: opponent model and coach (Sec. V-D)",
           expected="Sec. V-D: a little below the coach alone at first, then above it; curves only"),
    # ---- Big2: Luo & Tan's Table 5 -----------------------------------------------------------------------------------
    Preset("luo_tan_dmc_big2", "big2", paper=LUO_TAN,
           reproduces="the base B+OM, B+ODMC and B+OMODMC add to (Table 5): their unified features and decision "
                      "network, no opponent model, no pruning; not BigZero*, whose encoding cardrl does not implement"),
    Preset("odmc_big2", "big2", options=("--prune", "mcs"), paper=LUO_TAN, reproduces="Table 5: B+ODMC (eq. 2)",
           expected="Table 5: B+ODMC +0.34 [0.21, 0.47] against BigZero*, -0.02 [-0.13, 0.09] against BigZero"),
    Preset("om_big2", "big2", options=("--opponent-model", "luo_tan"), paper=LUO_TAN,
           reproduces="Table 5: B+OM (Sec. 4.2)", expected="Table 5: B+OM +0.21 [0.11, 0.31] against BigZero*"),
    Preset("omodmc_big2", "big2", options=("--opponent-model", "luo_tan", "--prune", "mcs"), paper=LUO_TAN,
           reproduces="Table 5: B+OMODMC",
           expected="Table 5: B+OMODMC +0.48 [0.36, 0.60] against BigZero*, +0.14 [0.03, 0.25] against BigZero "
                    "(rank 1)"),
    Preset("oadmc_big2", "big2", options=("--oracle", OADMCDOU_ORACLE, "--q-clip", "admc"), paper=OADMCDOU,
           reproduces=BEYOND + ": OADMCDou's options on Big2", notes=SHORTER_ORACLE),
    Preset("coach_big2", "big2", options=("--coach",), paper=DOUZERO_PLUS,
           reproduces=BEYOND + ": the coach over Big2's four seats"),
    # ---- GuanDan: DanZero, DanZero+ ----------------------------------------------------------------------------------
    Preset("danzero_guandan", "guandan", options=(*DANZERO, *DANZERO_CLIP, *DANZERO_BATCH),
           paper="DanZero (Lu et al. 2023)", reproduces="Table I: DanZero (Sec. IV, Fig. 4)",
           expected="Table I: DanZero wins 90.12 / 82.61 / 87.45 % of matches against competition baselines 1, 2, 4 "
                    "and 100 % against 3, 5-8, after 30 days",
           notes="on a laptop add --frames-per-update 3200 --optimizer rmsprop --rmsprop-alpha 0.99 --lr 1e-4 "
                 "(docs/papers.md, DanZero's optimizer)"),
    Preset("danzero_plus_guandan", "guandan", options=(*DANZERO, *DANZERO_BATCH, "--match-bonus"),
           paper=DANZERO_PLUS, reproduces="Table IV: the DMC model with the match reward (Sec. IV-B, eq. 6)",
           expected="Table III: DMC model 90.12 / 82.61 / 87.45 % match wins against baselines 1, 2, 4",
           notes="the DMC the topk_ppo_guandan_k* presets start from"),
    Preset("topk_ppo_guandan_k2", "guandan", "topk-ppo",
           ("--k", "2", "--dmc-checkpoint", "runs/danzero_plus_guandan/checkpoint", "--match-bonus",
            "--eval-against", "rule"), paper=DANZERO_PLUS, reproduces="Table III: PPO model (2) (Table V settings)",
           expected="Table III: 92.70 / 86.22 / 90.83 % against baselines 1, 2, 4; 55.13 % against the DMC model",
           notes=TOPK),
    Preset("topk_ppo_guandan_k3", "guandan", "topk-ppo",
           ("--k", "3", "--dmc-checkpoint", "runs/danzero_plus_guandan/checkpoint", "--match-bonus",
            "--eval-against", "rule"), paper=DANZERO_PLUS, reproduces="Table III: PPO model (3)",
           expected="Table III: 72.17 / 63.33 / 84.25 % against baselines 1, 2, 4; 42.30 % against the DMC model",
           notes=TOPK),
    Preset("topk_ppo_guandan_k5", "guandan", "topk-ppo",
           ("--k", "5", "--dmc-checkpoint", "runs/danzero_plus_guandan/checkpoint", "--match-bonus",
            "--eval-against", "rule"), paper=DANZERO_PLUS, reproduces="Table III: PPO model (5)",
           expected="Table III: 70.28 / 54.60 / 78.06 % against baselines 1, 2, 4; 38.45 % against the DMC model",
           notes=TOPK),
    Preset("odmc_guandan", "guandan", options=(*DANZERO, *DANZERO_CLIP, *DANZERO_BATCH, "--prune", "mcs"),
           paper=LUO_TAN, reproduces=BEYOND + ": G+ODMC, DanZero with eq. 2 (exact K with wild cards)"),
    Preset("om_guandan", "guandan", options=(*DANZERO, *DANZERO_BATCH, "--opponent-model", "luo_tan"),
           paper=LUO_TAN, reproduces=BEYOND + ": G+OM"),
    Preset("omodmc_guandan", "guandan",
           options=(*DANZERO, *DANZERO_BATCH, "--opponent-model", "luo_tan", "--prune", "mcs"), paper=LUO_TAN,
           reproduces=BEYOND + ": G+OMODMC"),
    Preset("oadmc_guandan", "guandan",
           options=(*DANZERO, *DANZERO_BATCH, "--oracle", OADMCDOU_ORACLE, "--q-clip", "admc", "--admc-gamma", "0.65"),
           paper=OADMCDOU, reproduces=BEYOND + ": OADMCDou's options with DanZero's settings", notes=SHORTER_ORACLE),
    Preset("coach_guandan", "guandan", options=(*DANZERO, *DANZERO_BATCH, "--coach"), paper=DOUZERO_PLUS,
           reproduces=BEYOND + ": the coach on P(team wins the first deal)"),
    # ---- policy-gradient baselines ----------------------------------------------------------------------------------
    Preset("ppo_doudizhu", "doudizhu", "ppo", ("--eval-against", "rule"), paper=DANZERO_PLUS,
           reproduces=BEYOND + ": RLlib's PPO over the whole action space (Sec. IV-D's impractical policy)", notes=PPO),
    Preset("ppo_big2", "big2", "ppo", ("--eval-against", "rule"), paper=DANZERO_PLUS,
           reproduces=BEYOND + ": RLlib's PPO over the whole action space", notes=PPO),
    Preset("ppo_guandan", "guandan", "ppo", ("--eval-against", "rule"), paper=DANZERO_PLUS,
           reproduces=BEYOND + ": RLlib's PPO over the whole action space",
           notes=PPO + "; 135,179-entry action masks: keep --train-batch-size moderate on small machines"),
    Preset("topk_ppo_doudizhu", "doudizhu", "topk-ppo",
           ("--k", "2", "--dmc-checkpoint", "runs/dmc_doudizhu/checkpoint", "--eval-against", "rule"),
           paper=DANZERO_PLUS, reproduces=BEYOND + ": top-k PPO (k = 2, Table V) over dmc_doudizhu", notes=TOPK),
    Preset("topk_ppo_big2", "big2", "topk-ppo",
           ("--k", "2", "--dmc-checkpoint", "runs/luo_tan_dmc_big2/checkpoint", "--eval-against", "rule"),
           paper=DANZERO_PLUS, reproduces=BEYOND + ": top-k PPO (k = 2, Table V) over luo_tan_dmc_big2", notes=TOPK),
    # ---- the learning benchmark's variants (cardrl bench learning GAME --variants ...), any game they apply to ---
    Preset("dmc", None, paper="DouZero (Zha et al. 2021)", reproduces="plain DMC with the game's defaults",
           variant=True),
    Preset("dmc_fast", None, options=(*BF16_RUNNERS, *QUEUED_REQUESTS),
           paper="cardrl", reproduces="plain DMC, its env runners scoring in bfloat16 (the learner in float32) with 6 "
                                      "sample requests queued (docs/performance.md)", variant=True),
    Preset("dmc_bf16", None, options=(*BF16_RUNNERS, *BF16_LEARNER, *QUEUED_REQUESTS), paper="cardrl",
           reproduces="dmc_fast with the learner's forward in bfloat16 too (its weights, gradients and optimizer "
                      "float32): the fastest plain DMC on CPUs with AMX (docs/performance.md)", variant=True),
    Preset("dmc_centred", None, options=("--target-baseline", "seat_mean"), paper="cardrl",
           reproduces="DMC with each seat's targets centred on its running mean return (docs/learning.md, The dip)",
           variant=True),
    Preset("odmc", None, options=("--prune", "mcs"), paper=LUO_TAN, reproduces="eq. 2: MCS pruning", variant=True,
           needs_search=True),
    Preset("om", None, options=("--opponent-model", "luo_tan"), paper=LUO_TAN,
           reproduces="Sec. 4.2: opponent model (DouDiZhu: on the unified features it reads, one shared network)",
           variant=True, opponent_model="luo_tan"),
    Preset("omodmc", None, options=("--opponent-model", "luo_tan", "--prune", "mcs"), paper=LUO_TAN,
           reproduces="Table 4: opponent model + MCS pruning (DouDiZhu: unified features, one shared network)",
           variant=True, needs_search=True, opponent_model="luo_tan"),
    Preset("omodmc_bf16", None, options=("--opponent-model", "luo_tan", "--prune", "mcs", *BF16_RUNNERS,
                                         *BF16_LEARNER, *QUEUED_REQUESTS), paper=LUO_TAN,
           reproduces="omodmc with bfloat16 runners and learner forward and 6 queued sample requests "
                      "(docs/performance.md)", variant=True, needs_search=True, opponent_model="luo_tan"),
    Preset("admc", None, options=("--q-clip", "admc"), paper=OADMCDOU, reproduces="eq. 2-5: the ADMC loss",
           variant=True),
    Preset("oadmcdou", None, options=("--oracle", "1:0:{oracle_frames}", "--q-clip", "admc"), paper=OADMCDOU,
           reproduces="oracle guiding (lambda 1 -> 0 over two thirds of the budget, as 20 of the paper's 30 days) "
                      "+ ADMC", variant=True),
    Preset("oracledou", None, options=("--oracle", "1:0:{oracle_frames}"), paper=OADMCDOU,
           reproduces="Fig. 4: oracle guiding alone (annealed as oadmcdou)", variant=True),
    Preset("perfectdou", None, options=("--oracle", "1:1:1"), paper=OADMCDOU,
           reproduces="Fig. 4: PerfectDou, lambda fixed at 1", variant=True),
    Preset("unified", None, options=("--features", "unified"), paper=LUO_TAN,
           reproduces="their unified features with their decision model, no opponent model", variant=True,
           needs_features="unified"),
    Preset("unified_fast", None, options=("--features", "unified", *BF16_RUNNERS, *QUEUED_REQUESTS), paper="cardrl",
           reproduces="unified, its env runners scoring in bfloat16 (the learner in float32) with 6 sample requests "
                      "queued: the fastest per minute on CPUs with AVX512-BF16 or AMX (docs/performance.md)",
           variant=True, needs_features="unified"),
    Preset("unified_bf16", None, options=("--features", "unified", *BF16_RUNNERS, *BF16_LEARNER, *QUEUED_REQUESTS),
           paper="cardrl", reproduces="unified_fast with the learner's forward in bfloat16 too (its weights, gradients "
                                      "and optimizer float32; docs/performance.md)",
           variant=True, needs_features="unified"),
    # DouZero+'s Fig. 6 row, and a variant of the games whose encoders feed its opponent model (DouDiZhu's)
    Preset("douzero_plus_om", "doudizhu", options=("--opponent-model", "douzero_plus"), paper=DOUZERO_PLUS,
           reproduces="Fig. 6: opponent modeling (Sec. IV-A)",
           expected="Sec. V: worse than DouZero at first, then \"a performance better than DouZero\" (peasants gain "
                    "most); curves only", variant=True, opponent_model="douzero_plus"),
    Preset("coach", None, options=("--coach",), paper=DOUZERO_PLUS, reproduces="the coach network", variant=True),
    Preset("danzero", None, options=(*DANZERO, *DANZERO_CLIP, *DANZERO_BATCH, "--features", "danzero"),
           paper="DanZero (Lu et al. 2023)",
           reproduces="MLP, TF1 RMSProp lr 1e-3, ADMC-style clip 0.65, 32,768 frames per update", variant=True,
           needs_features="danzero"),
    Preset("topk_ppo", None, "topk-ppo", ("--k", "2"), paper=DANZERO_PLUS,
           reproduces="Sec. IV-D: top-k PPO (k = 2, Table V) over the frozen DMC of the same seed's dmc run at half "
                      "the budget", variant=True, starts_from=("dmc", "--dmc-checkpoint"),
           notes="cardrl train: give --dmc-checkpoint PATH"),
    # ---- Tune sweeps (cardrl tune --preset NAME; docs/tune.md) -------------------------------------------------------
    Preset("tune_admc_clip", "doudizhu", space="admc_clip.json", paper=OADMCDOU,
           reproduces="eq. 2-5: ADMC's clip range admc_gamma 0.1, 0.2, 0.35, 0.65 (DanZero's 'range of clip Q' "
                      "is 0.65)"),
    Preset("tune_coach_beta", "doudizhu", space="coach_beta.json", paper=DOUZERO_PLUS,
           reproduces="Sec. IV-B: the coach's beta schedule stopped at 0.10, 0.20 or its own 0.30"),
    Preset("tune_dmc_lr", "doudizhu", space="lr.json", paper="DouZero; DanZero",
           reproduces="DMC's learning rate on a grid (DouZero 1e-4, DanZero 1e-3), epsilon 0.01"),
    Preset("tune_lr", "doudizhu", space="lr_sampled.json", paper="DouZero; DanZero",
           reproduces="DMC's learning rate log-uniform in [1e-5, 1e-3], six trials, ASHA"),
    Preset("tune_odmc_slack", "doudizhu", space="odmc_slack.json", paper=LUO_TAN,
           reproduces="eq. 2, Tables 6-7: D+ODMC's slack plus prune_extra 0, 1, 2, 3"),
    Preset("tune_oracle_length", "doudizhu", space="oracle_length.json", paper=OADMCDOU,
           reproduces="eq. 1: lambda 1 -> 0 over 1M, 5M or 20M frames (the paper's: about 2.0e9)"),
)
