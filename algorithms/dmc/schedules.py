"""Schedules of DMC options by frames trained: a function of the frames, so a restored run resumes them where they
stopped. No torch or Ray here (the CLI reads these to build its flags).

- :class:`OracleSchedule`: oracle guiding's lambda (OADMCDou, Luo et al. 2024, Sec. 4.1; :mod:`.oracle`).
- :class:`BetaSchedule`: the coach's rejection threshold beta by learner step (DouZero+, Zhao et al. 2022,
  Sec. IV-B; :mod:`.coach`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["OracleSchedule", "parse_oracle", "BetaSchedule", "DOUZERO_PLUS_BETA", "OADMCDOU_PAIRS_PER_DAY",
           "OADMCDOU_ORACLE_DAYS", "OADMCDOU_ORACLE_FRAMES", "OADMCDOU_ORACLE"]

# OADMCDou's oracle schedule in frames (state-action pairs trained, what cardrl's schedules count). Luo et al. 2024,
# Sec. 5, "Implementation details": "an average of 100,236,906 state-action pairs are generated and trained daily";
# "Evaluation of Oracle Guiding": lambda falls linearly from one to zero "over the initial 20 days" (of 30).
# 100,236,906 x 20 = 2,004,738,120, about 2.0e9.
OADMCDOU_PAIRS_PER_DAY = 100_236_906
OADMCDOU_ORACLE_DAYS = 20
OADMCDOU_ORACLE_FRAMES = OADMCDOU_PAIRS_PER_DAY * OADMCDOU_ORACLE_DAYS
OADMCDOU_ORACLE = f"1:0:{OADMCDOU_ORACLE_FRAMES}"  # the --oracle value of the experiment scripts

# DouZero+'s beta: (from learner step, beta); a learner step is 3,200 frames (its batch of 32 x 100, per position)
DOUZERO_PLUS_BETA = ((0, 0.0), (20_000, 0.10), (40_000, 0.15), (60_000, 0.20), (80_000, 0.25), (100_000, 0.30))


@dataclass(frozen=True)
class OracleSchedule:
    """Lambda by frames trained: ``start`` until ``frames_start``, linear to ``end`` at ``frames_end``, then ``end``."""

    start: float = 1.0
    end: float = 0.0
    frames_end: int = 1
    frames_start: int = 0

    def problems(self) -> list[str]:
        """What is wrong with this schedule (empty when it fits)."""
        out = [f"oracle lambda {name}={value!r} must lie in [0, 1]" for name, value in (("start", self.start),
                                                                                      ("end", self.end))
               if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0]
        for name in ("frames_start", "frames_end"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
                out.append(f"oracle {name}={value!r} must be an int >= 0 (frames trained)")
        if not out and self.frames_end <= self.frames_start:
            out.append(f"the oracle schedule ends (frame {self.frames_end}) before it starts (frame "
                       f"{self.frames_start})")
        return out

    def value(self, frames: int) -> float:
        if frames <= self.frames_start:
            return float(self.start)
        if frames >= self.frames_end:
            return float(self.end)
        t = (frames - self.frames_start) / (self.frames_end - self.frames_start)
        return float(self.start + t * (self.end - self.start))


def parse_oracle(text: str) -> OracleSchedule:
    """``"START:END:FRAMES"`` (linear from frame 0 to FRAMES) or ``"START:END:FROM:TO"`` -> a schedule; ValueError
    naming the form otherwise (its values are checked by :meth:`OracleSchedule.problems`)."""
    parts = str(text).split(":")
    try:
        if len(parts) == 3:
            return OracleSchedule(float(parts[0]), float(parts[1]), int(float(parts[2])))
        if len(parts) == 4:
            return OracleSchedule(float(parts[0]), float(parts[1]), int(float(parts[3])), int(float(parts[2])))
    except ValueError:
        pass
    raise ValueError(f"an oracle schedule is START:END:FRAMES or START:END:FROM:TO (lambda from START to END, linear "
                     f"in frames trained), e.g. 1.0:0.0:20000000; got {text!r}")


@dataclass(frozen=True)
class BetaSchedule:
    """Beta by learner step (frames trained / ``step_frames``): the value of the last ``(from_step, beta)`` reached."""

    points: tuple[tuple[int, float], ...] = DOUZERO_PLUS_BETA
    step_frames: int = 3200

    def problems(self) -> list[str]:
        out = []
        steps = [p[0] for p in self.points]
        if not self.points or steps != sorted(steps) or steps[0] != 0:
            out.append(f"coach beta schedule {self.points!r} must be (step, beta) pairs sorted by step from step 0")
        out += [f"coach beta {b!r} must lie in [0, 0.5)" for _, b in self.points
                if isinstance(b, bool) or not isinstance(b, (int, float)) or not 0 <= b < 0.5]
        if isinstance(self.step_frames, bool) or not isinstance(self.step_frames, int) or self.step_frames < 1:
            out.append(f"coach step_frames={self.step_frames!r} must be a positive int")
        return out

    def value(self, frames: int) -> float:
        step = frames / self.step_frames
        beta = 0.0
        for start, b in self.points:
            if step >= start:
                beta = b
        return float(beta)


