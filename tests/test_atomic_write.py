"""optics._atomic: the one atomic writer behind lens files, figures and tolerance results."""

from __future__ import annotations

import os
import stat

import pytest

from optics._atomic import write_atomically, write_bytes_atomically


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")

    def failing(temporary):
        with open(temporary, "w") as handle:
            handle.write("half")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        write_atomically(target, failing)
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_a_replaced_file_keeps_its_mode_and_a_new_one_follows_the_umask(tmp_path):
    kept = tmp_path / "kept.bin"
    kept.write_bytes(b"x")
    os.chmod(kept, 0o600)
    write_bytes_atomically(kept, b"new")
    assert kept.read_bytes() == b"new"
    assert stat.S_IMODE(os.stat(kept).st_mode) == 0o600
    umask = os.umask(0)
    os.umask(umask)
    fresh = write_bytes_atomically(tmp_path / "fresh.bin", b"y")
    assert stat.S_IMODE(os.stat(fresh).st_mode) == 0o666 & ~umask


def test_a_symbolic_link_is_written_through_not_over(tmp_path):
    real = tmp_path / "real.txt"
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    write_bytes_atomically(link, b"new")
    assert link.is_symlink()
    assert real.read_text() == "new"
