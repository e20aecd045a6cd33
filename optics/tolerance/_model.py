"""The tolerance model: a nominal optic, its perturbations, the criterion and the compensators.

Everything the sensitivity analysis and the Monte Carlo ask of a perturbed
lens goes through :meth:`ToleranceModel.evaluate`: copy the nominal optic,
apply a vector of component values, re-optimize the compensators with a few
steps of an :mod:`optics.optimize` driver, and read the criterion.  The model
is plain data (it pickles), so Dask workers receive it whole.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import warnings

import numpy as np

from .. import backend as be
from ..errors import LensFileError, OpticsError
from ..optimize import Merit, MeritContext, Problem, apply_solves, optimize
from ..params import get_param
from ..trace import PupilAimWarning
from ._perturb import bind
from ._section import ToleranceSection, read_section


class ToleranceWarning(UserWarning):
    """A [tolerance] section that runs but probably does not mean what it says."""


#: Relative merit change and gradient size at which a compensation stops.  Tighter stops
#: change a criterion by ~1e-14 on the Cooke triplet but cost 3x more evaluations with
#: finite-difference gradients.
COMPENSATOR_TOL = 1e-8


class ToleranceModel:
    """A lens with a checked ``[tolerance]`` section, ready to evaluate perturbed copies.

    Parameters
    ----------
    optic : Optic
        The nominal design; copied, never modified.
    section : ToleranceSection, dict or None
        The checked section, or the raw table (default ``optic.tolerance``).
    where : str
        Prefix of error messages, e.g. ``"lens.toml: [tolerance]"``.
    compensate_nominal : bool
        Re-optimize the compensators on the nominal design first (as every
        trial does), so that the nominal criterion is the compensated one.

    Attributes
    ----------
    nominal : Optic
        The (compensated) nominal design every evaluation starts from.
    section : ToleranceSection
    labels : list of str
        One per component (a decenter or tilt item has an x and a y component).
    half_widths : ndarray, shape (m,)
        Tolerance half-widths of the components, in their items' units.
    distributions : list of str
        ``"uniform"`` or ``"normal"`` per component.
    items : ndarray of int, shape (m,)
        The item number of each component.

    Raises
    ------
    LensFileError
        A bad key, or a path, surface or material that does not fit the optic.
    """

    def __init__(self, optic, section=None, where="[tolerance]", *, compensate_nominal=True):
        if not isinstance(section, ToleranceSection):
            section = read_section(optic.tolerance if section is None else section, where)
        self.section = section
        self.nominal = copy.deepcopy(optic)
        self.perturbations = [
            bind(item, self.nominal, f"{where} items[{i}]") for i, item in enumerate(section.items)
        ]
        self.labels = _unique(
            [(label, i) for i, p in enumerate(self.perturbations) for label in p.labels]
        )
        self.half_widths = np.array([w for p in self.perturbations for w in p.half_widths])
        self.distributions = [
            item.distribution
            for item, p in zip(section.items, self.perturbations)
            for _ in p.labels
        ]
        self.items = np.array([i for i, p in enumerate(self.perturbations) for _ in p.labels])
        self._check(where)
        if compensate_nominal and section.compensators:
            self.compensate(self.nominal)

    def __len__(self):
        return len(self.labels)

    def _check(self, where):
        try:
            self.criterion(self.nominal)
        except OpticsError as exc:
            raise LensFileError(f"{where} criterion: {exc}") from exc
        for i, variable in enumerate(self.section.compensators):
            try:
                get_param(self.nominal, variable.path)
            except OpticsError as exc:
                raise LensFileError(f"{where} compensators[{i}]: key 'path': {exc}") from exc
            toleranced = [
                j
                for j, p in enumerate(self.perturbations)
                if getattr(p, "path", None) == variable.path
            ]
            if toleranced:  # legal (it measures what compensation recovers), but never silent
                warnings.warn(
                    f"{where} compensators[{i}]: {variable.path} is also toleranced "
                    f"(items[{toleranced[0]}]): the compensator re-optimizes away its own "
                    "perturbation, so that item's sensitivity and trials show only what "
                    "compensation leaves",
                    ToleranceWarning,
                    stacklevel=3,
                )
        solved = {x.path for x in self.nominal.solves}
        for j, p in enumerate(self.perturbations):
            path = getattr(p, "path", None)
            if path is not None and path.replace(".radius", ".curvature") in solved:
                warnings.warn(
                    f"{where} items[{j}]: {path} is solved (a solve or pickup sets it): every "
                    "trial re-solves it, so its perturbation has no effect",
                    ToleranceWarning,
                    stacklevel=3,
                )
        if self.section.compensators:
            try:
                Problem(copy.deepcopy(self.nominal), self.section.compensators, self._merit())
            except OpticsError as exc:
                raise LensFileError(f"{where} compensators: {exc}") from exc

    def _merit(self):
        return Merit(list(self.section.compensator_operands))

    # --- one perturbed lens ---------------------------------------------------------------

    def perturbed(self, values):
        """A copy of the nominal optic with component ``values`` applied.

        Parameters
        ----------
        values : sequence of m floats or 0-d arrays
            Component values in their items' units; 0-d arrays that require
            grad stay attached.
        """
        if len(values) != len(self):
            raise OpticsError(f"{len(values)} values for {len(self)} tolerance components")
        optic = copy.deepcopy(self.nominal)
        start = 0
        for perturbation in self.perturbations:
            stop = start + len(perturbation.labels)
            perturbation.apply(optic, list(values[start:stop]))
            start = stop
        if optic.solves:  # a perturbed lens re-solves, as OpticStudio's tolerancing does
            apply_solves(optic)
        return optic

    def criterion(self, optic):
        """The criterion operand's value on ``optic`` (0-d array, gradients kept).

        With ``config = n`` on configuration n of ``optic``; with ``config = "worst"``
        the largest value over its configurations (docs/configurations.md).
        """
        operand = self.section.criterion
        if getattr(operand, "worst_configuration", False):
            from ..configurations import each_configuration

            values = [operand.value(MeritContext(c)) for c in each_configuration(optic)]
            return functools.reduce(be.maximum, values)
        if operand.config is not None:
            optic = optic.configuration(operand.config)
        return operand.value(MeritContext(optic))

    def compensate(self, optic):
        """Re-optimize the compensators on ``optic`` in place.

        Returns
        -------
        float or None
            The criterion afterwards when the compensators minimize the
            criterion itself (read from the driver's final report, saving an
            evaluation); None otherwise or without compensators.
        """
        if not self.section.compensators:
            return None
        problem = Problem(optic, self.section.compensators, self._merit())
        result = optimize(
            problem,
            self.section.compensator_driver,
            steps=self.section.compensator_steps,
            merit_tol=COMPENSATOR_TOL,
            grad_tol=COMPENSATOR_TOL,
        )
        if result.interrupted:  # a compensation cut short is no trial: the run stops
            raise KeyboardInterrupt("interrupted while the compensators were re-optimized")
        if self.section.compensator_operands == [self.section.criterion]:
            return float(result.operands_after[0]["value"])
        return None

    def evaluate(self, values, *, compensate=True) -> float:
        """The criterion of the perturbed lens (NaN when it cannot be traced or compensated).

        Parameters
        ----------
        values : array_like, shape (m,)
            Component values (floats).
        compensate : bool
            Re-optimize the compensators first.
        """
        values = [float(v) for v in np.asarray(values, dtype=float)]
        try:
            with quiet_aiming():
                return self._evaluate(values, compensate)
        except OpticsError:
            return float("nan")

    def _evaluate(self, values, compensate):
        optic = self.perturbed(values)
        if compensate:
            value = self.compensate(optic)
            if value is not None:
                return value
        with be.no_grad():
            return float(be.item(self.criterion(optic)))

    def nominal_value(self) -> float:
        """The criterion of the (compensated) nominal design."""
        with be.no_grad():
            return float(be.item(self.criterion(self.nominal)))


@contextlib.contextmanager
def quiet_aiming():
    """Silence :class:`~optics.trace.PupilAimWarning` (perturbed lenses would repeat it).

    The nominal lens warns once, when the model is built; every perturbed
    copy is aimed the same way, with numbers that differ a little per trial.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PupilAimWarning)
        yield


def _unique(labelled) -> list:
    """Labels, with ``(items[i])`` added to any that more than one component shares."""
    labels = [label for label, _ in labelled]
    return [f"{label} (items[{i}])" if labels.count(label) > 1 else label for label, i in labelled]


def model_from_lens(optic, where="[tolerance]") -> ToleranceModel:
    """:class:`ToleranceModel` of ``optic.tolerance`` (checked against the optic).

    Parameters
    ----------
    optic : Optic
        The nominal design, with its ``[tolerance]`` table (``optic.tolerance``); it is
        copied, never modified.
    where : str
        Prefix of error messages, e.g. ``"lens.toml: [tolerance]"``.

    Returns
    -------
    ToleranceModel
        Its nominal design with the compensators (if any) re-optimized.

    Raises
    ------
    LensFileError
        No ``[tolerance]`` section, a bad key, or a path, surface or material that does
        not fit the optic.
    """
    return ToleranceModel(optic, optic.tolerance, where)
