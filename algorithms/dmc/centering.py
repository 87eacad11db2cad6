"""Centred DMC targets: each seat's Monte-Carlo return minus a running mean of that seat's returns.

Not from the papers: cardrl's remedy for plain DMC's early dip below random play in DouDiZhu (docs/learning.md,
"The dip"). With DouZero's settings the landlord loses most early games, so nearly every landlord target is
negative; regressing Q(s, a) toward them lowers the Q of card plays, whose action vector is non-zero and shared by
every play, more than the Q of "pass", whose action vector is all zeros, and the greedy landlord learns to pass.

With ``target_baseline="seat_mean"`` the actor stores ``G - b_seat`` instead of ``G``, where ``b_seat`` is an
exponential moving average over that seat's finished deals (rate ``target_baseline_rate`` per deal), bias-corrected
as Adam corrects its moments, and read before the deal's own return joins it:

    m_n = (1 - rate) m_{n-1} + rate G_n,   m_0 = 0
    b_n = m_{n-1} / (1 - (1 - rate)^(n - 1))          (b_1 = 0: no deal seen yet)
    target_n = G_n - b_n

A constant per seat does not change which move is greedy, so the policy Q implies is that of E[G | s, a]; what it
changes is that every move's target is now centred, and no direction of the action input is pushed down by the
mean of the returns alone. Each env runner keeps its own means (thousands of deals a minute agree to a few
hundredths); they are not checkpointed: a resumed run re-estimates them within a hundred or so deals.
"""

from __future__ import annotations

__all__ = ["SeatReturnMean", "TARGET_BASELINES"]

TARGET_BASELINES = ("seat_mean",)


class SeatReturnMean:
    """Bias-corrected exponential moving average of each seat's DMC targets (module docstring)."""

    def __init__(self, rate: float):
        if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 < rate <= 1:
            raise ValueError(f"target_baseline_rate={rate!r} must be a number in (0, 1]")
        self.rate = float(rate)
        self._moment: dict[str, float] = {}
        self._count: dict[str, int] = {}

    def baseline(self, seat: str) -> float:
        """The seat's baseline now: the corrected mean of the returns seen so far (0 before any)."""
        n = self._count.get(seat, 0)
        if n == 0:
            return 0.0
        return self._moment[seat] / (1.0 - (1.0 - self.rate) ** n)

    def centre(self, seat: str, target: float) -> float:
        """``target`` minus the seat's baseline before it; then ``target`` joins the mean."""
        centred = target - self.baseline(seat)
        self._moment[seat] = (1.0 - self.rate) * self._moment.get(seat, 0.0) + self.rate * target
        self._count[seat] = self._count.get(seat, 0) + 1
        return centred

    def baselines(self) -> dict[str, float]:
        return {seat: self.baseline(seat) for seat in self._count}
