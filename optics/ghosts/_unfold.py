"""The unfolded sequential system of one two-reflection ghost (reflect at i, then at j < i)."""

from __future__ import annotations

import dataclasses

from ..errors import ConfigurationError
from ..materials import MIRROR
from ..system import Optic


def ghost_pairs(optic) -> list[tuple[int, int]]:
    """Every (i, j), i > j, of surfaces that can reflect a ghost: refracting optical surfaces.

    Surfaces 1 .. image-1 that are not mirrors, ordered by i then j.  A pair whose
    surfaces have no index step still appears; its reflectance is then 0.

    Parameters
    ----------
    optic : Optic

    Returns
    -------
    list of (int, int)
        Surface numbers (object 0), i > j.
    """
    last = optic.image_index - 1
    usable = [k for k in range(1, last + 1) if not optic.surfaces[k].is_mirror]
    return [(i, j) for i in usable for j in usable if j < i]


def check_pair(optic, i: int, j: int):
    """ConfigurationError unless (i, j) is one of :func:`ghost_pairs`."""
    if (i, j) not in ghost_pairs(optic):
        raise ConfigurationError(
            f"ghost ({i}, {j}) is not a pair of reflecting surfaces of {optic.name or 'the lens'}: "
            f"it needs 1 <= j < i <= {optic.image_index - 1} (surface numbers, object 0), "
            "neither of them a mirror"
        )


def ghost_optic(optic, i: int, j: int) -> Optic:
    """The sequential Optic of ghost (i, j): the primary path with two reflections added.

    Light travels forward to surface i, reflects there (a mirror copy of i), travels
    back through copies of surfaces i-1 .. j+1, reflects at a mirror copy of j and
    travels forward again through j+1 .. image.  Thicknesses after a reflection are
    negative (the convention of :func:`optics.surfaces.media`); every copy keeps its
    geometry, semi-diameter, aperture, decenter and tilt, and the reversed copy of a
    surface k gets the medium before k.  No surface is marked the stop: trace the
    ghost with rays launched by the original optic (:func:`optics.ghosts.ghost_rays`).

    Parameters
    ----------
    optic : Optic
    i, j : int
        Surface numbers (object 0), 1 <= j < i <= image - 1.

    Returns
    -------
    Optic
        Surfaces: 0 .. i-1, i (mirror), i-1 .. j+1 reversed, j (mirror), j+1 .. image;
        ``len(optic.surfaces) + 2 (i - j)`` of them.
    """
    check_pair(optic, i, j)
    surfaces = optic.surfaces

    def copy(k, **changes):
        return dataclasses.replace(surfaces[k], is_stop=False, **changes)

    unfolded = [copy(k) for k in range(i)]
    unfolded.append(copy(i, material=MIRROR, thickness=-surfaces[i - 1].thickness))
    for k in range(i - 1, j, -1):
        material = surfaces[k].material if surfaces[k].is_mirror else surfaces[k - 1].material
        unfolded.append(copy(k, material=material, thickness=-surfaces[k - 1].thickness))
    unfolded.append(copy(j, material=MIRROR, thickness=surfaces[j].thickness))
    unfolded.extend(copy(k) for k in range(j + 1, len(surfaces)))
    return dataclasses.replace(
        optic,
        surfaces=unfolded,
        name=f"{optic.name} ghost ({i}, {j})",
        configurations=None,
        solves=[],
        optimize=None,
        tolerance=None,
    )


def ghost_path(optic, i: int, j: int) -> list[tuple[int, int]]:
    """The ghost's crossings as (surface, direction): +1 forward, -1 backward, 0 a reflection.

    Surfaces 1 .. image-1 of the original numbering, in the order the light meets them
    (the image is not listed).

    Parameters
    ----------
    optic : Optic
    i, j : int
        The ghost: reflected back at surface i, forward again at surface j (object 0;
        1 <= j < i <= image - 1).

    Returns
    -------
    list of (int, int)
        (surface, direction): 1 .. i-1 forward, (i, 0), i-1 .. j+1 backward, (j, 0),
        then j+1 .. image-1 forward.  The pair is not checked here.
    """
    last = optic.image_index - 1
    path = [(k, 1) for k in range(1, i)] + [(i, 0)]
    path += [(k, -1) for k in range(i - 1, j, -1)] + [(j, 0)]
    return path + [(k, 1) for k in range(j + 1, last + 1)]
