"""Merit contexts of several configurations that share one batched trace.

The configurations a merit uses are usually one prescription with a few
numbers changed (a zoom's spacings, a focus distance).  When
:func:`optics.configurations.stacked` can stack them into one optic whose
differing numbers carry a leading axis of length C, every ray bundle an
operand asks for is traced once for all C configurations (rays laid out
(C, W, F, P)) and its first-order data come from one paraxial trace of
shape (C, 1, 1, 1); each configuration's :class:`ConfigurationContext` hands
its operands its own slice.  The values are those of tracing each
configuration alone (the same arithmetic, ray by ray); only the number of
array operations, which dominates small merit traces, stops growing with C.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .. import accel
from .. import backend as be
from .._paraxial import ParaxialData
from ..configurations import stacked
from ..limits import check_wavelength
from ..sampling import hexapolar_count, hexapolar_range
from ..trace import prepare
from ..trace.aim import launch, warn_if_off_centre
from ..trace.bundle import Bundle
from ..trace.methods import Blocked, Eager, resolve
from ..trace.object_field import object_space_field
from .operands import MeritContext


def batched_contexts(optic, numbers, method=None) -> dict:
    """One :class:`ConfigurationContext` per configuration number, sharing one batch.

    Parameters
    ----------
    optic : Optic
        With configurations; variables already set on it.
    numbers : sequence of int
        The configurations the merit uses (two or more).
    method : TraceMethod or str, optional
        The merit's trace method; only the default, ``"blocked"`` and
        ``"eager"`` batch (the others keep one trace per configuration).

    Returns
    -------
    dict
        Configuration number -> context; empty when the configurations do
        not stack (:func:`optics.configurations.stacked`).
    """
    if not isinstance(resolve(method), (Eager, Blocked)):
        return {}
    members = [optic.configuration(n) for n in numbers]
    stack = stacked(optic, numbers, members)
    if stack is None:
        return {}
    batch = _Batch(stack, members)
    return {
        n: ConfigurationContext(m, batch, i, method=method)
        for i, (n, m) in enumerate(zip(numbers, members))
    }


class ConfigurationContext(MeritContext):
    """The merit context of configuration ``batch.numbers[index]``, traced with the others.

    Its optic and prepared system are the configuration's own (operands read
    its fields, weights and surfaces as usual); the first-order data and the
    ray bundles are its slice of the batch's.
    """

    def __init__(self, optic, batch, index, *, method=None):
        super().__init__(optic, method=method)
        self._batch, self._index = batch, index

    @property
    def first_order(self):
        """This configuration's first-order data (its slice of the stacked paraxial trace)."""
        return self._batch.first_order(self._index)

    def bundle(self, fields, wavelengths, rings, pupil=None):
        """This configuration's Bundle of (wavelengths, fields, pupil), traced with the others."""
        return self._batch.bundle(self._index, (fields, wavelengths, rings, pupil))


class _Batch:
    """The stacked optic's prepared system, first-order data and bundles (each computed once)."""

    def __init__(self, stack, members):
        self.stack, self.members = stack, members
        self.system = prepare(stack.optic)
        self.size = len(stack.numbers)
        self._orders = None
        self._bundles = {}

    def first_order(self, index):
        if self._orders is None:
            self._orders = _split_first_order(self.system.first_order, self.stack)
        return self._orders[index]

    def bundle(self, index, key):
        if key not in self._bundles:
            self._bundles[key] = self._trace(*key)
        return self._bundles[key][index]

    def _trace(self, fields, wavelengths, rings, pupil):
        """Every configuration's Bundle of one request, from one trace of (C, W, F, P + 2) rays."""
        size, optic = self.size, self.system.optic
        wavelengths = tuple(check_wavelength(w) if isinstance(w, float) else w for w in wavelengths)
        if pupil is None:
            px, py = hexapolar_range(rings, 0, hexapolar_count(rings))
        else:
            px, py = be.asarray([p[0] for p in pupil]), be.asarray([p[1] for p in pupil])
        n_pupil, n_fields = be.size(px), len(fields)
        with accel.deferred_reads():
            first_order = self.system.first_order
            scale = be.reshape(be.asarray(list(self.stack.field_scales)), (size, 1, 1, 1))
            hx = be.reshape(be.asarray([float(h[0]) for h in fields]), (1, 1, n_fields, 1))
            hy = be.reshape(be.asarray([float(h[1]) for h in fields]), (1, 1, n_fields, 1))
            qx, qy = object_space_field(optic, hx * scale, hy * scale, first_order)
            # The pupil rays, then the chief ray clipped and with the apertures open.
            zero = be.zeros_like(px[:1])
            sx = be.reshape(be.concatenate([px, zero, zero]), (1, 1, 1, -1))
            sy = be.reshape(be.concatenate([py, zero, zero]), (1, 1, 1, -1))
            clip = np.ones(n_pupil + 2, dtype=bool)
            clip[-1] = False
            clip = be.reshape(be.asarray(clip), (1, 1, 1, -1))
            wavelength = be.reshape(be.asarray(list(wavelengths)), (1, -1, 1, 1))
            probe = None if optic.fields.object_telecentric else optic.stop_index
            rays = launch(optic, qx, qy, sx, sy, wavelength, first_order)
            with be.quiet_float_errors():
                traced = self.system.loop(
                    rays, wavelength, clip=clip, keep=() if probe is None else (probe,)
                )
            shape = (size, len(wavelengths), n_fields, n_pupil + 2)
            full = lambda v: be.broadcast_to(v, shape) if be.is_array(v) else v  # noqa: E731
            image = traced.rays.map(full)
            at_stop = None if probe is None else traced.kept[probe].map(full)
            q = tuple(be.broadcast_to(v, (size, 1, n_fields, 1))[:, 0, :, 0] for v in (qx, qy))
            primary = optic.wavelengths.primary_value
            if at_stop is not None:
                chief_at_stop = at_stop.map(lambda v: v[..., n_pupil + 1])
                warn_if_off_centre(
                    self.system.optic, fields, chief_at_stop, self.system.first_order
                )
            out = []
            for i in range(size):
                rays = image.map(lambda v, i=i: v[i])
                chief = rays.map(lambda v: v[..., n_pupil + 1])
                clipped = rays.map(lambda v: v[..., n_pupil])
                out.append(
                    Bundle(
                        rays=rays.map(lambda v: v[..., :n_pupil]),
                        chief=chief,
                        chief_valid=chief.valid,
                        chief_blocked=be.logical_and(chief.valid, be.logical_not(clipped.valid)),
                        fields=tuple(fields),
                        wavelengths=wavelengths,
                        px=px,
                        py=py,
                        first_order=self.first_order(i),
                        primary=wavelengths.index(primary) if primary in wavelengths else None,
                        field_parameters=(q[0][i], q[1][i]),
                    )
                )
        return out


def _split_first_order(data, stack) -> list:
    """Per-configuration ParaxialData (0-d values) from the stacked optic's."""
    size = len(stack.numbers)
    columns = {}
    for item in dataclasses.fields(ParaxialData):
        value = be.asarray(getattr(data, item.name))
        columns[item.name] = be.reshape(be.broadcast_to(value, (size, 1, 1, 1)), (size,))
    out = []
    for i in range(size):
        values = {name: column[i] for name, column in columns.items()}
        if stack.height_scales[i] != 1.0:
            values["image_height"] = values["image_height"] * stack.height_scales[i]
        out.append(ParaxialData(**values))
    return out
