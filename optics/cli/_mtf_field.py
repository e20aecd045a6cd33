"""``optics mtf-field``: tangential and sagittal MTF at chosen frequencies against field."""

from __future__ import annotations

from ._common import (
    add_aiming_option,
    add_backend_options,
    add_lens_options,
    positive_int,
    samples_option,
    table,
)
from ._mtf import parse_frequencies
from ._report import add_report_options, run_report
from ._spectrum import add_polychromatic_option, polychromatic_of, spectrum_line
from ._wavefront import add_wavelength_option


class _Record:
    """An MTFResult with the as_dict of this command."""

    def __init__(self, result):
        self.result = result

    def __getattr__(self, name):
        return getattr(self.result, name)

    def as_dict(self):
        from .. import backend as be

        r = self.result
        t, s = be.to_numpy(r.tangential), be.to_numpy(r.sagittal)
        return {
            "fields": [float(f[1]) for f in r.fields],
            "frequencies": [float(v) for v in be.to_numpy(r.frequencies)],
            "tangential": [[float(v) for v in t[:, k]] for k in range(t.shape[1])],
            "sagittal": [[float(v) for v in s[:, k]] for k in range(s.shape[1])],
            "wavelength": float(r.wavelength),
            "wavelengths": [float(w) for w in r.wavelengths],
            "weights": [float(w) for w in r.weights],
            "polychromatic": bool(r.polychromatic),
            "samples": int(r.samples),
            "accuracy": {"mtf": float(r.accuracy), "tolerance": 0.01},
        }


def register(subparsers):
    parser = subparsers.add_parser(
        "mtf-field",
        help="tangential and sagittal MTF at chosen frequencies against field height",
        description="Print the diffraction MTF of LENS (polychromatic when it has several "
        "wavelengths) at each of --frequencies for --points fields (0, y), y from 0 to 1.",
    )
    add_report_options(parser, "write the MTF-versus-field curves to an image file")
    parser.add_argument("--frequencies", required=True, metavar="F1,F2,...", help="cycles/mm")
    parser.add_argument("--points", type=positive_int, default=11, help="field points (default 11)")
    add_wavelength_option(parser)
    add_polychromatic_option(parser)
    parser.add_argument(
        "--samples", type=samples_option, default=None, help="pupil samples N (8-1024)"
    )
    add_backend_options(parser)
    add_aiming_option(parser)
    add_lens_options(parser)
    parser.set_defaults(func=run)


def run(args):
    from ..analysis._through_focus import mtf_vs_field
    from ..plot_wavefront import mtf_field_figure
    from ._common import UsageError

    frequencies = parse_frequencies(args.frequencies)
    if not 2 <= args.points <= 101:
        raise UsageError(f"--points must be 2..101, not {args.points}")
    poly = polychromatic_of(args)

    def compute(optic):
        result = mtf_vs_field(
            optic,
            frequencies,
            points=args.points,
            wavelength=args.wavelength,
            polychromatic=poly,
            samples=args.samples,
        )
        return _Record(result)

    def text(result, record):
        print(
            f"MTF versus field, {spectrum_line(record)}; accuracy {record['accuracy']['mtf']:.2g}"
        )
        for k, frequency in enumerate(record["frequencies"]):
            print()
            print(f"{frequency:g} cycles/mm")
            rows = zip(record["fields"], record["tangential"][k], record["sagittal"][k])
            print(table(["field y", "tangential", "sagittal"], rows))

    return run_report(args, compute, {"plot": lambda r, o: mtf_field_figure(r.result, o)}, text)
