"""Gradient optimizer steps over scaled variables: Adam and L-BFGS, on any differentiating backend.

Both keep the variables as a NumPy vector u of n numbers and take the loss's
exact gradient at u from the backend (:func:`optics.optimize.value_and_gradient`),
so the same code runs on torch and jax; the moments, the L-BFGS memory and
the line search are a few NumPy operations on n numbers.  Bounds are
enforced by projection after every step.

- :class:`Adam`: Kingma & Ba (2015) with torch.optim's defaults
  (β = (0.9, 0.999), ε = 1e-8).
- :class:`LBFGS`: the two-loop recursion over the last :data:`HISTORY`
  steps (Nocedal & Wright, *Numerical Optimization*, 2nd ed., algorithm 7.4)
  with a line search that meets the strong Wolfe conditions (SciPy's
  ``line_search``, c1 = 1e-4, c2 = 0.9), one iteration per step.  Where the
  search finds no Wolfe point (the loss is not finite ahead: rays lost), a
  steepest step is halved until the loss falls (Armijo), and the memory
  restarts.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.optimize import line_search

from .. import backend as be
from ..errors import ConfigurationError
from ._derivatives import require_autograd, value_and_gradient

#: Steps of curvature information L-BFGS keeps.
HISTORY = 20
#: Largest multiple of the quasi-Newton (or first) step a line search may try.
MAX_STEP_GROWTH = 10.0
#: Loss evaluations one L-BFGS line search may spend.
LINE_SEARCH_EVALUATIONS = 25
#: The variables are float64 NumPy numbers whatever the backend computes in.
_EPS = float(be.machine_eps(np.zeros(1)))


class _Steps:
    """What both algorithms share: the projected point and the bounds."""

    def __init__(self, values, learning_rate, lower=None, upper=None):
        u = np.asarray(values, dtype=float).ravel().copy()
        n = u.size
        self._lower = np.full(n, -np.inf) if lower is None else np.asarray(lower, dtype=float)
        self._upper = np.full(n, np.inf) if upper is None else np.asarray(upper, dtype=float)
        self._rate = float(learning_rate)
        self._u = np.clip(u, self._lower, self._upper)
        self._invalid = 0
        #: Why the last step could not move (no trial point lowered the loss), or "".
        self.stalled = ""

    def values(self):
        """The current point, ndarray (n,)."""
        return self._u.copy()

    def take_invalid_trials(self) -> int:
        """Trial points with a loss that was not finite since the last call (then reset)."""
        count, self._invalid = self._invalid, 0
        return count

    def _evaluator(self, loss_fn):
        """``u -> (loss, gradient)``, each point evaluated once, non-finite losses counted."""
        seen = {}

        def evaluate(u):
            key = u.tobytes()
            if key not in seen:
                seen[key] = value_and_gradient(loss_fn, u)
                self._invalid += not np.isfinite(seen[key][0])
            return seen[key]

        return evaluate


class Adam(_Steps):
    """Adam over the variables.

    Parameters
    ----------
    values : array_like, shape (n,)
        Starting values of the (already scaled) variables.
    learning_rate : float
        Step size in the units of ``values``.
    lower, upper : array_like, shape (n,), optional
        Bounds enforced by projection after every step (``±inf`` for none).
    """

    def __init__(self, values, learning_rate, lower=None, upper=None, betas=(0.9, 0.999)):
        super().__init__(values, learning_rate, lower, upper)
        self._beta1, self._beta2 = betas
        self._m, self._v, self._k = np.zeros(self._u.size), np.zeros(self._u.size), 0
        self._eps = 1e-8  # torch.optim.Adam's epsilon, in units of the (normalized) gradient

    def step(self, loss_fn):
        """One update; returns (loss before it, gradient there) as (float, ndarray (n,)).

        ``loss_fn`` maps a list of n 0-d arrays to a 0-d loss.
        """
        loss, grad = self._evaluator(loss_fn)(self._u)
        self._k += 1
        self._m = self._beta1 * self._m + (1 - self._beta1) * grad
        self._v = self._beta2 * self._v + (1 - self._beta2) * grad * grad
        m_hat = self._m / (1 - self._beta1**self._k)
        v_hat = self._v / (1 - self._beta2**self._k)
        step = self._rate * m_hat / (np.sqrt(v_hat) + self._eps)
        self._u = np.clip(self._u - step, self._lower, self._upper)
        return loss, grad


class LBFGS(_Steps):
    """L-BFGS over the variables, one iteration (a strong-Wolfe line search) per step.

    Parameters as in :class:`Adam`; ``learning_rate`` scales the first step
    (along the steepest descent, before any curvature is known).  A line
    search that fails backs off along the steepest descent and restarts the
    memory, as L-BFGS codes do; a step that would leave the bounds is
    projected onto them.
    """

    def __init__(self, values, learning_rate, lower=None, upper=None):
        super().__init__(values, learning_rate, lower, upper)
        self._pairs: list[tuple[np.ndarray, np.ndarray]] = []

    def step(self, loss_fn):
        """One iteration; returns (loss before it, gradient there) as (float, ndarray (n,))."""
        evaluate = self._evaluator(loss_fn)
        loss, grad = evaluate(self._u)
        # No curvature yet: a first step of about learning_rate.
        direction = -self._inverse_hessian_times(grad) if self._pairs else self._steepest(grad)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "The line search")  # a failure is handled below
            alpha, *_ = line_search(
                lambda u: evaluate(u)[0],
                lambda u: evaluate(u)[1],
                self._u,
                direction,
                gfk=grad,
                old_fval=loss,
                amax=MAX_STEP_GROWTH,
                maxiter=LINE_SEARCH_EVALUATIONS,
            )
        if alpha is not None and np.isfinite(alpha) and alpha > 0:
            projected = np.clip(self._u + alpha * direction, self._lower, self._upper)
            if not evaluate(projected)[0] < loss:  # the bounds cut the step: not a descent
                alpha = None
        if alpha is None or not np.isfinite(alpha) or alpha <= 0:
            # No Wolfe point (the loss not finite ahead: rays lost): back off along the
            # steepest descent until the loss falls, and forget the curvature.
            self._pairs.clear()
            alpha, direction = self._backtrack(evaluate, loss, grad)
            if alpha is None:
                self.stalled = (
                    f"no step along the steepest descent lowers the merit (down to "
                    f"{0.5 ** (LINE_SEARCH_EVALUATIONS - 1):.1g} of the first step)"
                )
                return loss, grad
        trial = np.clip(self._u + alpha * direction, self._lower, self._upper)
        s, y = trial - self._u, evaluate(trial)[1] - grad
        if float(s @ y) > _EPS * float(y @ y):  # keeps H positive
            self._pairs = (self._pairs + [(s, y)])[-HISTORY:]
        self._u = trial
        return loss, grad

    def _backtrack(self, evaluate, loss, grad):
        """(alpha, direction) of the first halving of a steepest step that lowers the loss."""
        direction = self._steepest(grad)
        alpha = 1.0
        for _ in range(LINE_SEARCH_EVALUATIONS):
            value = evaluate(np.clip(self._u + alpha * direction, self._lower, self._upper))[0]
            if np.isfinite(value) and value < loss + 1e-4 * alpha * float(grad @ direction):
                return alpha, direction
            alpha *= 0.5
        return None, direction

    def _steepest(self, grad):
        """The steepest-descent step whose largest component is the learning rate."""
        return -grad * (self._rate / max(float(np.abs(grad).max()), _EPS))

    def _inverse_hessian_times(self, grad):
        """The two-loop recursion: H g with H the L-BFGS inverse Hessian of the stored pairs."""
        q, alphas = grad.copy(), []
        for s, y in reversed(self._pairs):
            a = float(s @ q) / float(y @ s)
            alphas.append(a)
            q -= a * y
        if self._pairs:
            s, y = self._pairs[-1]
            q *= float(s @ y) / float(y @ y)
        for (s, y), a in zip(self._pairs, reversed(alphas)):
            q += (a - float(y @ q) / float(y @ s)) * s
        return q


#: The algorithms, by driver name.
ALGORITHMS = {"adam": Adam, "lbfgs": LBFGS}


def gradient_steps(algorithm, values, learning_rate, lower=None, upper=None):
    """The optimizer ``algorithm`` ("adam" or "lbfgs") over the variables.

    Raises
    ------
    ConfigurationError
        When the configured backend does not differentiate (the message names
        those that do), or the algorithm is unknown.
    """
    require_autograd(f"the {algorithm!r} driver")
    if algorithm not in ALGORITHMS:
        raise ConfigurationError(
            f"unknown gradient algorithm {algorithm!r}; choose one of {tuple(ALGORITHMS)}"
        )
    return ALGORITHMS[algorithm](values, learning_rate, lower, upper)
