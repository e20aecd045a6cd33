"""Polynomial families for freeform surfaces: values and analytic derivatives on any backend.

* :mod:`.chebyshev` - Chebyshev T_n by stable recurrences (1-D and tensor-product 2-D);
* :mod:`.zernike` - Zernike polynomials (Noll and Fringe orderings), Cartesian gradients;
* :mod:`.forbes` - Forbes Q^bfs (2007) and freeform Q^m_n (2012), with prepared data
  for repeated evaluation.

Inputs are arrays of any shape on NumPy or Torch; coefficients may be arrays or
(nested) sequences holding 0-d grad-carrying tensors.  Everything is polynomial
arithmetic, so values, first derivatives and their autograd are finite at the
ends of the interval and at the centre of the disk.
"""

from .chebyshev import chebyshev_2d, chebyshev_sum, chebyshev_t
from .forbes import (
    Q2DPrepared,
    QbfsPrepared,
    prepare_q2d,
    prepare_qbfs,
    q2d_polynomials,
    q2d_sum,
    qbfs_polynomials,
    qbfs_sum,
)
from .zernike import (
    FRINGE_MAX_INDEX,
    fringe_to_nm,
    noll_to_nm,
    zernike_basis,
    zernike_nm,
    zernike_sum,
)

__all__ = [
    "chebyshev_t",
    "chebyshev_sum",
    "chebyshev_2d",
    "noll_to_nm",
    "fringe_to_nm",
    "zernike_nm",
    "zernike_sum",
    "zernike_basis",
    "FRINGE_MAX_INDEX",
    "qbfs_polynomials",
    "q2d_polynomials",
    "prepare_qbfs",
    "prepare_q2d",
    "qbfs_sum",
    "q2d_sum",
    "QbfsPrepared",
    "Q2DPrepared",
]
