"""Optiland 0.6.3 on a design problem of benchmarks/dls/ (runs under Optiland's interpreter).

Never imports optics.  It reads the same lens file (TOML, stdlib ``tomllib``)
and builds the same problem with Optiland's public API: the surfaces, the
aperture (EPD), angle fields, wavelengths; a catalog glass name as
``(name, "schott")``, ``{index}`` as ``IdealMaterial`` and ``{nd, vd}`` as the
two-term Cauchy law that optics' ``Abbe`` material is (n(λd) = nd,
nF − nC = (nd − 1)/vd), so both codes see the same dispersion; the
``[optimize]`` variables (``surfaces[i].radius``, ``.curvature`` as
``reciprocal_radius``, ``.thickness``, with the same bounds) and operands:
``rms_spot`` (rings R) as one ``rms_spot_size`` operand per field and
wavelength (hexapolar, R rings, weight 1/√(F·W): the sum is optics' mean of
the squared RMS spots), ``efl`` as ``f2`` and ``real_y`` as
``real_y_intercept`` at the image, each with weight 1.

Usage::

    OMP_NUM_THREADS=1 python _optiland_design.py LENS.toml {ls,de,start} [--cpu-seconds S]
        [--maxiter N] [--no-polish]

``ls``: ``LeastSquares.optimize(method_choice="trf", tol=1e-12, maxiter=N)``
(N: SciPy's ``max_nfev``).  ``de``: ``DifferentialEvolution.optimize(maxiter=N,
workers=1, disp=False)`` (SciPy's defaults otherwise: popsize 15, polish
with L-BFGS-B; ``--no-polish`` turns the polish off, so that a budget stops
the whole run).  ``--cpu-seconds``: a budget of this process's CPU time
(``time.process_time``: on a shared machine the wall time of a capped run
would depend on the load), checked after each iteration (callback); past it
the run stops at its best point so far.  ``start``: only the start merit.
Prints one JSON line: merit before and after, wall and CPU seconds, number
of evaluations, the variables' final (scaled) values and whether the budget
stopped it.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import time

import optiland.backend as obe
import tomllib
from optiland import optimization
from optiland.materials import IdealMaterial
from optiland.materials.base import BaseMaterial
from optiland.optic import Optic

LAMBDA_D, LAMBDA_F, LAMBDA_C = 0.5875618, 0.4861327, 0.6562725


class CauchyAbbe(BaseMaterial):
    """n(λ) = nd + B (λd − λ)(λd + λ) / (λ² λd²), B = (nd − 1) / (vd (1/λF² − 1/λC²))."""

    def __init__(self, nd, vd):
        super().__init__()
        self.nd, self.vd = float(nd), float(vd)
        self.b = (self.nd - 1.0) / (self.vd * (1.0 / LAMBDA_F**2 - 1.0 / LAMBDA_C**2))

    def _cache_state(self):
        return self._state_key((self.nd, self.vd))

    def _calculate_n(self, wavelength, **kwargs):
        lam = obe.array(wavelength)
        return self.nd + self.b * (LAMBDA_D - lam) * (LAMBDA_D + lam) / (lam**2 * LAMBDA_D**2)

    def _calculate_k(self, wavelength, **kwargs):
        return 0.0 * obe.array(wavelength)


def _material(value):
    if isinstance(value, str):
        return (value, "schott")
    if "index" in value:
        return IdealMaterial(n=value["index"])
    return CauchyAbbe(value["nd"], value["vd"])


def build(data):
    """The Optiland ``Optic`` of a parsed lens file."""
    lens = Optic()
    last = len(data["surfaces"]) - 1
    for i, row in enumerate(data["surfaces"]):
        curvature = row.get("curvature")
        radius = row.get("radius", math.inf if not curvature else 1.0 / curvature)
        kwargs = {"index": i, "radius": radius, "thickness": row.get("thickness", 0.0)}
        if i == last:
            kwargs["thickness"] = 0.0
        if "material" in row:
            kwargs["material"] = _material(row["material"])
        if row.get("stop"):
            kwargs["is_stop"] = True
        lens.surfaces.add(**kwargs)
    assert data["aperture"]["type"] == "epd" and data["fields"]["type"] == "angle"
    lens.set_aperture(aperture_type="EPD", value=data["aperture"]["value"])
    lens.fields.set_type(field_type="angle")
    for y in data["fields"]["values"]:
        lens.fields.add(y=y)
    waves = data["wavelengths"]["values"]
    primary = data["wavelengths"].get("primary", 0)
    for j, w in enumerate(waves):
        lens.wavelengths.add(value=w, is_primary=j == primary)
    return lens


def problem(lens, data):
    """The Optiland ``OptimizationProblem`` of the file's ``[optimize]`` section."""
    section = data["optimize"]
    prob = optimization.OptimizationProblem()
    fields = data["fields"]["values"]
    waves = data["wavelengths"]["values"]
    primary = waves[data["wavelengths"].get("primary", 0)]
    top = max(fields)
    for op in section["operands"]:
        kind = op["type"]
        if kind == "rms_spot":
            weight = (1.0 / (len(fields) * len(waves))) ** 0.5
            for y in fields:
                for w in waves:
                    prob.add_operand(
                        operand_type="rms_spot_size",
                        target=0.0,
                        weight=weight,
                        input_data={
                            "optic": lens,
                            "surface_number": -1,
                            "Hx": 0.0,
                            "Hy": y / top,
                            "num_rays": op.get("rings", 6),
                            "wavelength": w,
                            "distribution": "hexapolar",
                        },
                    )
        elif kind == "efl":
            prob.add_operand(
                operand_type="f2", target=op["target"], weight=1.0, input_data={"optic": lens}
            )
        elif kind == "real_y":
            prob.add_operand(
                operand_type="real_y_intercept",
                target=op["target"],
                weight=1.0,
                input_data={
                    "optic": lens,
                    "surface_number": -1,
                    "Hx": op.get("hx", 0.0),
                    "Hy": op.get("hy", 0.0),
                    "Px": op.get("px", 0.0),
                    "Py": op.get("py", 0.0),
                    "wavelength": primary,
                },
            )
        else:
            raise ValueError(f"operand {kind!r} is not mapped to Optiland")
    for var in section["variables"]:
        surface, what = re.fullmatch(r"surfaces\[(\d+)\]\.(\w+)", var["path"]).groups()
        kind = {"radius": "radius", "curvature": "reciprocal_radius", "thickness": "thickness"}
        prob.add_variable(
            lens, kind[what], surface_number=int(surface), min_val=var["min"], max_val=var["max"]
        )
    return prob


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("lens")
    parser.add_argument("driver", choices=("ls", "de", "start"))
    parser.add_argument("--cpu-seconds", type=float, default=math.inf)
    parser.add_argument("--maxiter", type=int, default=1000)
    parser.add_argument("--no-polish", action="store_true")
    args = parser.parse_args()
    if args.no_polish:  # Optiland passes no polish option: SciPy's default is wrapped
        import scipy.optimize

        full = scipy.optimize.differential_evolution
        scipy.optimize.differential_evolution = lambda *a, **k: full(*a, **{**k, "polish": False})
    obe.set_backend("numpy")
    with open(args.lens, "rb") as f:
        data = tomllib.load(f)
    lens = build(data)
    prob = problem(lens, data)
    before = float(prob.sum_squared())
    if args.driver == "start":
        print(json.dumps({"merit_before": before}))
        return
    t0, c0 = time.perf_counter(), time.process_time()
    stopped = []

    def budget(*_args, **_kw):
        if time.process_time() - c0 > args.cpu_seconds:
            stopped.append(True)
            raise StopIteration  # SciPy halts on it (Optiland drops a callback's return value)
        return False

    if args.driver == "ls":
        result = optimization.LeastSquares(prob).optimize(
            maxiter=args.maxiter, tol=1e-12, method_choice="trf", callback=budget
        )
        for i, var in enumerate(prob.variables):  # the solver's final (best) point
            var.update(result.x[i])
        prob.update_optics()
    else:
        result = optimization.DifferentialEvolution(prob).optimize(
            maxiter=args.maxiter, disp=False, workers=1, callback=budget
        )
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(
        json.dumps(
            {
                "lens": args.lens,
                "driver": args.driver,
                "merit_before": before,
                "merit_after": float(prob.sum_squared()),
                "wall_s": wall,
                "cpu_s": cpu,
                "nfev": int(result.nfev),
                "stopped_by_budget": bool(stopped),
                "message": str(result.message),
                "x": [float(v) for v in result.x],
            }
        )
    )


if __name__ == "__main__":
    main()
