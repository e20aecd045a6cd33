"""``optics ghosts``: the JSON record, --top, the plot and one-line errors."""

from __future__ import annotations

import json

import pytest

import optics
from optics.cli import main
from optics.ghosts import ghosts


def test_ghosts_json_lists_the_brightest_ghosts_first(capsys):
    assert main(["ghosts", "achromat", "--json", "--top", "2", "--rings", "3"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["ghost_count"] == 3 and len(record["ghosts"]) == 2
    expected = ghosts(optics.load("achromat"), rings=3).ghosts
    assert [tuple(g["surfaces"]) for g in record["ghosts"]] == [g.surfaces for g in expected[:2]]
    assert record["ghosts"][0]["focus"] == pytest.approx(expected[0].focus, rel=1e-12)


def test_ghosts_writes_its_figure_and_prints_a_table(capsys, tmp_path):
    out = tmp_path / "ghosts.png"
    assert main(["ghosts", "achromat", "--top", "0", "-o", str(out), "--rings", "3"]) == 0
    text = capsys.readouterr().out
    assert "3-1" in text and "focus_mm" in text and f"wrote {out}" in text
    assert out.stat().st_size > 1000


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["ghosts", "achromat", "--field", "9"], "--field must be 0..2 or all"),
        (["ghosts", "achromat", "--top", "-1"], "must be at least 0"),
        (["ghosts", "no_such_lens"], "no_such_lens"),
    ],
)
def test_ghosts_bad_input_is_one_line_and_status_2(capsys, argv, words):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and len(err.splitlines()) == 1


def test_ghosts_field_all_carries_one_record_per_field(capsys):
    assert (
        main(["ghosts", "achromat", "--json", "--top", "0", "--rings", "2", "--field", "all"]) == 0
    )
    record = json.loads(capsys.readouterr().out)
    optic = optics.load("achromat")
    fields = optic.fields.normalized()
    assert len(record["fields"]) == len(fields) == 3
    for one, field in zip(record["fields"], fields, strict=True):
        expected = {g.surfaces: g.energy for g in ghosts(optic, field=field, rings=2).ghosts}
        assert one["field"] == pytest.approx(list(field))
        got = {tuple(g["surfaces"]): g["energy"] for g in one["ghosts"]}
        assert got == pytest.approx(expected, rel=1e-12)
    on, edge = (
        {tuple(g["surfaces"]): g["energy"] for g in r["ghosts"]} for r in record["fields"][::2]
    )
    assert on != pytest.approx(edge, rel=1e-6)  # the energies follow the field
