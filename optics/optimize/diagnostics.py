"""Plain-language diagnostics of a finished run: divergence and invalid steps.

Every driver leaves the optic at the best recorded point, but a run that
found a good point and then wandered off (the merit rising step after step),
or that stepped onto a lens where rays fail (a NaN merit), has to say so:
:func:`diagnose` turns the history into sentences, :func:`optimize` warns
them as :class:`OptimizationWarning` and stores them in
``OptimizationResult.warnings``, and ``optics optimize`` prints them in its
summary.
"""

from __future__ import annotations

import math

#: A run diverged when the merit rose on this many consecutive recorded steps ...
RISING_STEPS = 5
#: ... or ended above this multiple of its best merit, the best lying RISING_STEPS or more back.
DIVERGED_FACTOR = 10.0


class OptimizationWarning(UserWarning):
    """An optimization run diverged or stepped onto an invalid lens (the best point is kept)."""


def diagnose(history, invalid_steps=0) -> list[str]:
    """Sentences describing what went wrong in the run ``history`` (empty when nothing did).

    Parameters
    ----------
    history : History
    invalid_steps : int
        Trial points the driver rejected because the merit was not finite
        (a record with a non-finite merit counts too).

    Returns
    -------
    list of str
    """
    records = history.records
    out = []
    if len(records) > 1:
        best = history.best()
        streak, longest, where = 0, 0, (0, 0)
        for before, after in zip(records, records[1:]):
            rising = math.isfinite(after.merit) and after.merit > before.merit
            streak = streak + 1 if rising else 0
            if streak > longest:
                longest, where = streak, (after.step - streak, after.step)
        last = records[-1]
        far_above = (
            math.isfinite(last.merit)
            and last.merit > DIVERGED_FACTOR * best.merit
            and last.step - best.step >= RISING_STEPS
        )
        if longest >= RISING_STEPS or far_above:
            detail = (
                f"the merit rose for {longest} consecutive steps (steps {where[0]} to {where[1]})"
                if longest >= RISING_STEPS
                else f"the merit ended at {last.merit:.4g}, {last.merit / best.merit:.3g} times "
                "its best"
            )
            out.append(
                f"the run diverged: {detail}; kept the best point (step {best.step}, merit "
                f"{best.merit:.6g}); try fewer steps, a smaller learning rate or the dls driver"
            )
    bad = sum(1 for r in records if not math.isfinite(r.merit)) + int(invalid_steps)
    if bad:
        out.append(
            f"{bad} step(s) made the lens invalid (the merit was not finite: rays missed a "
            "surface, were totally internally reflected or every ray of a field was lost); "
            "those points were not kept"
        )
    infeasible = [r for r in records if not r.feasible]
    if infeasible and not history.best().feasible:
        out.append("no recorded point meets every constraint; the best infeasible one is kept")
    return out
