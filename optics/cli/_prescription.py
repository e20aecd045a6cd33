"""``optics prescription``: the lens's surfaces as a table (radius, thickness, glass, ...)."""

from __future__ import annotations

from ._common import add_lens_options, backend_context, lens_from_args, print_json


def register(subparsers):
    parser = subparsers.add_parser(
        "prescription",
        help="the prescription table: surfaces, radius, thickness, glass, semi-diameter, conic",
        description="Print the prescription of LENS: per surface (the object is 0) its type, "
        "radius and thickness (mm), the glass after it with its catalog and source, the "
        "stated clear semi-diameter (mm), the conic constant; above it the aperture, the "
        "fields (degrees or mm) and the wavelengths (docs/analyses.md).",
    )
    parser.add_argument("lens", metavar="LENS", help="lens file or built-in sample name")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    add_lens_options(parser)
    parser.set_defaults(func=run)


def run(args):
    from ..analysis._prescription import prescription, prescription_text

    with backend_context(args):
        optic = lens_from_args(args)
        record = prescription(optic)
    if args.json:
        print_json(record)
        return 0
    fields = record["fields"]
    unit = "°" if fields["unit"] == "deg" else " mm"
    values = ", ".join(
        f"{y:g}{unit}" if x == 0 else f"({x:g}, {y:g}){unit}" for x, y in fields["values"]
    )
    waves = ", ".join(f"{w:g}" for w in record["wavelengths"])
    print(f"{record['name'] or args.lens}")
    print(
        f"aperture {record['aperture']['type']} {record['aperture']['value']:g}; "
        f"fields ({fields['type']}) {values}; wavelengths {waves} µm, primary "
        f"{record['primary']:g}; aiming {record['aiming']}"
    )
    print(prescription_text(record))
    return 0
