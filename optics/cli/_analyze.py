"""``optics analyze``: first-order data and the spot table of a lens."""

from __future__ import annotations

from ._common import (
    add_aiming_option,
    add_backend_options,
    add_lens_options,
    backend_context,
    json_number,
    lens_from_args,
    print_json,
    rings_option,
    table,
)

PARAXIAL_KEYS = (
    "efl",
    "bfl",
    "ffl",
    "fno",
    "epd",
    "ep_position",
    "xpd",
    "xp_position",
    "image_height",
    "total_track",
    "magnification",
)


def register(subparsers):
    parser = subparsers.add_parser(
        "analyze",
        help="first-order data and spot sizes of a lens",
        description="Print the paraxial (first-order) data of LENS (with the paraxial "
        "magnification for an object at a finite distance) and a spot table: RMS radius "
        "about the chief ray and about the centroid, centroid and geometric radius per field "
        "and wavelength (hexapolar pupil sampling), with the rays each field loses (vignetted: "
        "blocked by clear apertures or obscurations, missed or totally reflected) and the "
        "aiming mode.",
    )
    parser.add_argument(
        "lens", metavar="LENS", help="lens file (.toml/.json) or built-in sample name"
    )
    add_aiming_option(parser)
    add_backend_options(parser)
    parser.add_argument(
        "--rings", type=rings_option, default=6, help="hexapolar rings (default 6: 127 rays)"
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object instead of tables"
    )
    add_lens_options(parser)
    parser.set_defaults(func=run)


def analysis_report(optic, rings, backend_name):
    """The analyze report as plain data (the --json object)."""
    from .._paraxial import paraxial
    from ..analysis import spot_diagram
    from ..trace.aim import aiming_mode

    first_order = paraxial(optic).as_floats()
    spots = [s.as_dict() for s in spot_diagram(optic, pupil=rings)]
    for spot in spots:
        for key in ("rms_radius_chief", "rms_radius_centroid", "geo_radius"):
            spot[key] = json_number(spot[key])
        spot["centroid"] = [json_number(v) for v in spot["centroid"]]
        spot["vignetted_fraction"] = spot["n_invalid"] / spot["n_rays"] if spot["n_rays"] else None
    paraxial_data = {k: json_number(first_order[k]) for k in PARAXIAL_KEYS}
    if optic.object_at_infinity:
        paraxial_data["magnification"] = None  # no finite conjugate: not defined
    return {
        "name": optic.name,
        "backend": backend_name,
        "aiming": aiming_mode(optic),
        "paraxial": paraxial_data,
        "spot": spots,
        "materials": _materials(optic),
    }


def _materials(optic):
    """One entry per surface with a medium after it: the material and where its data come from."""
    from ..materials import Air, material_source

    entries = []
    for number, surface in enumerate(optic.surfaces):
        material = getattr(surface, "material", None)
        if material is None or isinstance(material, Air):
            continue
        entries.append(
            {"surface": number, "material": material.to_spec(), "source": material_source(material)}
        )
    return entries


def run(args):
    from .. import backend as be

    with backend_context(args):
        optic = lens_from_args(args)
        report = analysis_report(optic, args.rings, be.get_backend())
    if args.json:
        print_json(report)
        return 0
    print(
        f"{report['name'] or args.lens}  ({report['backend']}, {len(report['spot'])} spots, "
        f"{report['aiming']} aiming)"
    )
    print()
    rows = [
        (k, v)
        for k, v in report["paraxial"].items()
        if not (k == "magnification" and v is None)  # only for a finite object
    ]
    print(table(["quantity", "value"], rows))
    print()
    rows = [
        (
            f"({s['field'][0]:g}, {s['field'][1]:g})",
            s["wavelength"],
            _um(s["rms_radius_chief"]),
            _um(s["rms_radius_centroid"]),
            s["centroid"][1] if s["centroid"][1] is not None else float("nan"),
            _um(s["geo_radius"]),
            f"{s['n_rays'] - s['n_invalid']}/{s['n_rays']}",
            f"{100 * s['vignetted_fraction']:.1f} %",
        )
        for s in report["spot"]
    ]
    headers = [
        "field",
        "wavelength",
        "rms chief um",
        "rms centroid um",
        "centroid y",
        "geo um",
        "valid",
        "vignetted",
    ]
    print(table(headers, rows))
    return 0


def _um(value):
    return float("nan") if value is None else value * 1000.0
