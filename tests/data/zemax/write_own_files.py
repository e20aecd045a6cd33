"""Writes our own small .zmx files into tests/data/zemax (run once; the files are committed)."""

import codecs
import sys
from pathlib import Path

out = Path(sys.argv[1])

HEAD = """VERS 190513 80 123457 L123457
MODE SEQ
NAME {name}
UNIT MM X W X CM MR CPMM
{aperture}
GCAT SCHOTT
{fields}
PWAV {pwav}
"""


def surf(i, *lines, indent="  "):
    return f"SURF {i}\n" + "".join(f"{indent}{l}\n" for l in lines)


def cb(i, dx=0, dy=0, tx=0, ty=0, tz=0, order=0, disz=0):
    return surf(
        i,
        "TYPE COORDBRK",
        "CURV 0.0 0 0.0 0.0 0",
        f"PARM 1 {dx}",
        f"PARM 2 {dy}",
        f"PARM 3 {tx}",
        f"PARM 4 {ty}",
        f"PARM 5 {tz}",
        f"PARM 6 {order}",
        f"DISZ {disz}",
    )


def std(i, curv, disz, glass=None, diam=None, stop=False, extra=()):
    lines = (["STOP"] if stop else []) + [
        "TYPE STANDARD",
        f'CURV {curv} 0 0 0 0 ""',
        *extra,
        f"DISZ {disz}",
    ]
    if glass:
        lines.append(f"GLAS {glass} 0 0 1.5 40 0 0 0 0 0 0")
    if diam is not None:
        lines.append(f'DIAM {diam} 0 0 0 1 ""')
    return surf(i, *lines)


OBJECT_INF = std(0, "0.0", "INFINITY")

# 1. An even-asphere singlet (EVENASPH: CONI and PARM 2, 3), three angle fields and the
#    F, d, C lines; ASCII with CRLF line ends.
asphere = (
    HEAD.format(
        name="ours asphere singlet",
        aperture="ENPD 12",
        fields="FTYP 0 0 3 3 0 0 0\nXFLN 0 0 0\nYFLN 0 5 10\nFWGN 1 1 1\n"
        "WAVM 1 0.4861327 1\nWAVM 2 0.5875618 1\nWAVM 3 0.6562725 1",
        pwav=2,
    )
    + OBJECT_INF
    + surf(
        1,
        "STOP",
        "TYPE EVENASPH",
        'CURV 0.025 0 0 0 0 ""',
        "CONI -0.6",
        "PARM 1 0",
        "PARM 2 -2.0E-6",
        "PARM 3 -1.5E-9",
        "DISZ 6",
        "GLAS N-BK7 0 0 1.5 40 0 0 0 0 0 0",
        'DIAM 7 0 0 0 1 ""',
    )
    + std(2, "-0.004", "63", diam=7)
    + std(3, "0.0", "0")
)
(out / "ours-asphere_singlet.zmx").write_bytes(asphere.replace("\n", "\r\n").encode("ascii"))

# 2. A cemented achromat folded by a 45-degree mirror between coordinate breaks (the
#    image behind the fold at negative thickness); UTF-8, LF, tab-indented.
fold = (
    HEAD.format(
        name="ours folded achromat",
        aperture="ENPD 20",
        fields="FTYP 0 0 2 1 0 0 0\nXFLN 0 0\nYFLN 0 2\nFWGN 1 1\nWAVM 1 0.55 1",
        pwav=1,
    )
    + OBJECT_INF
    + std(1, 1 / 62.8, "4.0", "N-BK7", 12.7, stop=True)
    + std(2, -1 / 45.7, "2.5", "SF5", 12.7)
    + std(3, -1 / 128.2, "40", diam=12.7)
    + cb(4, tx=45)
    + std(5, "0.0", "0", "MIRROR", 20)
    + cb(6, tx=45)
    + std(7, "0.0", "-57", diam=5)
    + std(8, "0.0", "0")
)
(out / "ours-folded_achromat.zmx").write_text(fold.replace("  ", "\t"), encoding="utf-8")

# 3. A finite object (object heights 0, 3, 5 mm at 150 mm), two singlets and a separate
#    stop; UTF-16 LE with a byte-order mark, as OpticStudio writes.
finite = (
    HEAD.format(
        name="ours finite conjugate pair",
        aperture="ENPD 8",
        fields="FTYP 1 0 3 2 0 0 0\nXFLN 0 0 0\nYFLN 0 3 5\nFWGN 1 1 1\n"
        "WAVM 1 0.55 1\nWAVM 2 0.65 0.5",
        pwav=1,
    )
    + std(0, "0.0", "150")
    + std(1, "0.0", "2", diam=4, stop=True)
    + std(2, 1 / 60, "5", "N-BK7", 9)
    + std(3, -1 / 60, "1", diam=9)
    + std(4, 1 / 80, "3", "F2", 9)
    + std(5, "0.0", "60", diam=9)
    + std(6, "0.0", "0")
)
(out / "ours-finite_pair_utf16.zmx").write_bytes(
    codecs.BOM_UTF16_LE + finite.replace("\n", "\r\n").encode("utf-16-le")
)

# 4. A floating stop (FLOA with the stop's DIAM) and a singlet decentered and tilted
#    between two coordinate breaks, angle fields in x and y.
decenter = (
    HEAD.format(
        name="ours decentered singlet",
        aperture="FLOA",
        fields="FTYP 0 0 3 1 0 0 0\nXFLN 0 0 1\nYFLN 0 3 2\nFWGN 1 1 1\nWAVM 1 0.5875618 1",
        pwav=1,
    )
    + OBJECT_INF
    + std(1, "0.0", "5", diam=5, stop=True)
    + cb(2, dx=0.2, dy=0.5, tx=1.5)
    + std(3, 1 / 50, "4", "N-SF11", 10)
    + std(4, -1 / 200, "0", diam=10)
    + cb(5, dx=-0.2, dy=-0.5, tx=-1.5, disz=40)
    + std(6, "0.0", "0")
)
(out / "ours-decentered_singlet.zmx").write_text(decenter, encoding="ascii")
