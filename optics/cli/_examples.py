"""The examples that end each subcommand's ``--help``: command lines that run as written.

Each example runs on the built-in samples in an empty folder, in the order
given, so a later line may read what an earlier one wrote; a file an example
reads that no command writes is shown in the help with its content
(:data:`FILES`).  tests/test_cli_help_examples.py runs every example of
every command, so they are kept cheap (few rings, points and samples).  A
new subcommand adds its examples here (the test fails for a command that has
none).
"""

from __future__ import annotations

EXAMPLES = {
    "analyze": ("optics analyze cooke_triplet", "optics analyze singlet --json --rings 3"),
    "trace": (
        "optics trace singlet --rays rays.csv",
        "optics trace singlet --rays rays.csv --json",
    ),
    "plot": ("optics plot cooke_triplet -o layout.png --rings 3",),
    "demo": ("optics demo --no-optimize -o demo.png",),
    "gradcheck": (
        "optics gradcheck singlet --param surfaces[1].radius --metric efl",
        "optics gradcheck singlet --param surfaces[1].radius --param surfaces[1].thickness",
    ),
    "optimize": (
        "optics optimize singlet -o best_form.toml --steps 5 --quiet",
        "optics optimize singlet -o best_form.toml --steps 5 --quiet --json",
    ),
    "wavefront": ("optics wavefront cooke_triplet --rings 6 --field 0",),
    "mtf": (
        "optics mtf cooke_triplet --frequencies 10,20,40 --samples 32",
        "optics mtf cooke_triplet --max-frequency 50 --geometric --json",
    ),
    "psf": ("optics psf cooke_triplet --field 0 --samples 32 --grid 64",),
    "through-focus": (
        "optics through-focus cooke_triplet --spot --defocus -0.05,0.05 --steps 5 --rings 3",
        "optics through-focus cooke_triplet --frequency 20 --defocus 0.1 --steps 5 --samples 16",
    ),
    "mtf-field": ("optics mtf-field cooke_triplet --frequencies 10,20 --points 3 --samples 16",),
    "convert": (
        "optics convert cooke_triplet cooke.json",
        "optics convert cooke.json cooke.seq",
        "optics convert cooke.seq cooke.toml",
    ),
    "tolerance": (
        "optics tolerance cooke_triplet_tolerance --monte-carlo 4 --seed 1 --workers 1 --quiet",
    ),
    "seidel": ("optics seidel cooke_triplet", "optics seidel achromat --json"),
    "field-curvature": ("optics field-curvature cooke_triplet --points 5",),
    "distortion": ("optics distortion cooke_triplet --points 5 --reference f-tan",),
    "chromatic-focal-shift": (
        "optics chromatic-focal-shift achromat --from 0.45 --to 0.65 --points 5",
    ),
    "lateral-color": ("optics lateral-color cooke_triplet --points 5",),
    "illumination": ("optics illumination cooke_triplet --points 5",),
    "footprint": ("optics footprint cooke_triplet --surface 3 --rings 3",),
    "fan": ("optics fan cooke_triplet --points 11 --opd",),
    "prescription": ("optics prescription double_gauss",),
    "spots": ("optics spots cooke_triplet --rings 3 --field 0 --field 2",),
    "simulate": (
        "optics plot singlet -o scene.png --rings 2",
        "optics simulate cooke_triplet scene.png -o sensor.png --sensor 64x48@0.02 "
        "--psf-grid 2 --wavelengths-per-channel 1 --pupil-samples 16",
    ),
    "thermal": ("optics thermal cooke_triplet --from 0 --to 40 --steps 3",),
    "polarization": (
        "optics polarization singlet --points 3 --samples 5",
        "optics polarization cooke_triplet --points 3 --samples 5 --json",
    ),
    "ghosts": ("optics ghosts cooke_triplet --top 5 --rings 2", "optics ghosts singlet --json"),
    "beam": (
        "optics beam singlet --waist 0.5",
        "optics beam singlet --waist 0.5 --fibre 0.005 --json",
    ),
}
"""Command name -> its example command lines, run in order."""

FILES = {
    "trace": {
        "rays.csv": "hx,hy,px,py,wavelength\n0,0,0,0.5,0.5876\n0,1,0,-0.5,0.4861\n",
    },
}
"""Command name -> {file name: content} of the files its examples read and no command writes."""


def epilog(command, epilog=None):
    """The end of ``optics COMMAND --help``: ``epilog`` (if any), then the examples.

    Paragraphs are separated by a blank line; the lines of an example (and of a
    file's content) are indented by two spaces, which the help formatter keeps as
    they are (``optics.cli._HelpFormatter``).
    """
    parts = [epilog] if epilog else []
    lines = EXAMPLES.get(command, ())
    if lines:
        parts.append("examples:\n" + "\n".join(f"  {line}" for line in lines))
    for name, content in FILES.get(command, {}).items():
        body = "\n".join(f"  {line}" for line in content.splitlines())
        parts.append(f"{name} holds:\n{body}")
    return "\n\n".join(parts) or None
