"""The README's two set-up commands (``./dev demo``, ``./dev test``) are what .ci/run runs."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
CI = (ROOT / ".ci" / "run").read_text()
DEV = (ROOT / "dev").read_text()


def _section(title):
    return README.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def _first_bash_block(text):
    block = re.search(r"```bash\n(.*?)```", text, re.S).group(1)
    return [line.split("#")[0].strip() for line in block.splitlines()]


def test_the_readme_install_and_test_sections_are_one_command_each():
    assert _first_bash_block(_section("Install and run (the main job)")) == ["./dev demo"]
    assert _first_bash_block(_section("Test")) == ["./dev test"]


def test_ci_runs_the_two_readme_commands_then_the_compile_step():
    calls = re.findall(r"^step \"[^\"]*\" (\./dev \S+)", CI, re.M)
    assert calls == ["./dev demo", "./dev test", "./dev compile-tests", "./dev docs"]
    assert re.search(r"^step \"[^\"]*\" \.ci/wheel-check$", CI, re.M)
    assert "OPTICS_VENV=.ci-venv" in CI  # its own fresh environment on a clean clone


def test_dev_pins_torch_before_the_project_and_splits_off_the_compile_tests():
    assert 'TORCH="torch==2.13.0"' in DEV
    assert DEV.index('pip install -q "$TORCH"') < DEV.index('pip install -q -e ".[all]"')
    assert '-m "not compile"' in DEV and "-m compile" in DEV


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
def test_dev_without_a_known_command_is_one_usage_line_and_exit_2(tmp_path):
    venv = tmp_path / "venv"
    done = subprocess.run(
        ["bash", str(ROOT / "dev"), "bogus"],
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "OPTICS_VENV": str(venv)},
    )
    assert done.returncode == 2
    assert done.stderr.startswith("usage: ./dev demo") and done.stderr.count("\n") == 1
    assert not venv.exists()  # refused before any install
