"""Least-squares Zernike fits of a wavefront sampled over the pupil (Fringe or Noll).

The fit minimises sum_k w_k (W_k - sum_j c_j Z_j(px_k, py_k))^2 with the pupil
quadrature weights w_k (zero for invalid rays), so with the Gauss–Legendre
pupil rule of :func:`optics.sampling.gauss_pupil` it is the continuous
least-squares fit over the unit disk.  Everything is backend arithmetic (one
J x J solve), so coefficients keep their gradients on torch.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import backend as be
from ..polynomials.zernike import FRINGE_MAX_INDEX, zernike_basis

__all__ = ["FitBasis", "ZernikeFit", "fit_basis", "zernike_fit", "zernike_evaluate"]


@dataclass(frozen=True)
class FitBasis:
    """The fit's basis at fixed pupil points, in both orientations (reusable across fits).

    rows : array (J, P), Z_j at the points; columns : array (P, J), its transpose.
    """

    rows: object
    columns: object


def fit_basis(terms, px, py, ordering="fringe"):
    """The first ``terms`` Zernike terms at (px, py) as a :class:`FitBasis`."""
    columns = zernike_basis(terms, px, py, ordering, axis=-1)
    return FitBasis(zernike_basis(terms, px, py, ordering, axis=0), columns)


@dataclass(frozen=True)
class ZernikeFit:
    """Coefficients of a Zernike fit and what is left over.

    Attributes
    ----------
    coefficients : array, shape (..., J)
        ``coefficients[..., j - 1]`` multiplies Z_j, in the unit of the fitted
        values (waves for a wavefront).
    ordering : str
        "fringe" (Zemax / CODE V Fringe, unnormalized) or "noll" (orthonormal).
    residual_rms : array, shape (...)
        Weighted RMS of the fit residual over the pupil.
    """

    coefficients: object
    ordering: str
    residual_rms: object

    def as_list(self) -> list:
        """The coefficients of a single fit as Python floats (for JSON)."""
        return [float(v) for v in be.to_numpy(self.coefficients).reshape(-1)]


def zernike_fit(px, py, values, weights, terms=FRINGE_MAX_INDEX, ordering="fringe", basis=None):
    """Weighted least-squares Zernike coefficients of values sampled at pupil points.

    Parameters
    ----------
    px, py : arrays, shape (P,)
        Normalized pupil coordinates (unit circle), angle measured from +x toward +y.
    values : array, shape (..., P)
        The sampled function (e.g. OPD in waves); leading axes are separate fits.
    weights : array, shape (..., P) or (P,)
        Non-negative quadrature weights; zero removes a sample (invalid ray).
    terms : int
        Number of terms J (37 for the full Fringe set).
    ordering : {"fringe", "noll"}
    basis : FitBasis, optional
        ``fit_basis(terms, px, py, ordering)`` (or any J functions of the
        points) when the caller has it: fits at fixed points reuse it.

    Returns
    -------
    ZernikeFit
    """
    basis = fit_basis(terms, px, py, ordering) if basis is None else basis
    basis_t = basis.rows
    weights = weights + be.zeros_like(values)  # (..., P)
    weighted_t = basis_t * weights[..., None, :]  # (..., J, P)
    gram = be.matmul(weighted_t, basis.columns)  # (..., J, J)
    rhs = be.matmul(weighted_t, values[..., :, None])[..., 0]  # (..., J)
    # A vignetted pupil can leave a term without support (and no valid sample leaves
    # none): a ridge of a few ulps of the largest entry (at least of 1, the scale of
    # unit-sum weights) keeps the solve defined without moving a supported term.
    scale = be.maximum(be.max(gram, axis=(-2, -1), keepdims=True), 1.0)
    ridge = 64 * be.machine_eps(values) * scale
    gram = gram + ridge * be.eye(terms, dtype=values.dtype)
    coefficients = be.solve(gram, rhs[..., None])[..., 0]
    fitted = be.sum(basis_t * coefficients[..., :, None], axis=-2)
    total = be.maximum(be.sum(weights, axis=-1), be.machine_eps(values))
    residual = be.sum(weights * (values - fitted) ** 2, axis=-1) / total
    return ZernikeFit(coefficients, ordering, be.sqrt(residual))


def zernike_evaluate(coefficients, px, py, ordering="fringe"):
    """sum_j c_j Z_j at normalized pupil points.

    Parameters
    ----------
    coefficients : array, shape (J,)
        c_j for terms 1..J, in the unit of the result (e.g. waves).
    px, py : arrays, shape (P,)
        Normalized pupil coordinates (inside the unit circle).
    ordering : {"fringe", "noll"}
        The terms' indexing and normalization, as in
        :func:`optics.polynomials.zernike_basis` (Fringe: unnormalized, at most
        37 terms; Noll: unit-RMS).

    Returns
    -------
    array, shape (P,)
        The sum at each point, in the coefficients' unit.
    """
    basis_t = zernike_basis(int(coefficients.shape[-1]), px, py, ordering, axis=0)
    return be.sum(basis_t * coefficients[:, None], axis=0)
