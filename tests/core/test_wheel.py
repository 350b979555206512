"""The built wheel carries rules/ and grounding/ and the engine finds them once installed."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

CHECK = """
import json, stategraph
from stategraph.resources import data_root, list_resources
from stategraph.cli.demo import run
root = str(data_root("rules"))
assert "site-packages" in stategraph.__file__, stategraph.__file__
assert "_data" in root and "site-packages" in root, root
assert "core/stable.lp" in list_resources("rules", "core", ".lp")
assert "packs/relocation.lp" in list_resources("rules", "packs", ".lp")
from stategraph.bench.cases import shipped_cases
assert len(shipped_cases()) >= 100
from stategraph.bench.mquake import load_instances  # the vendored MQuAKE-hard file
assert len(load_instances()) == 429
text = run("zh", text_only=True)  # the grounding data and the rule packs, from the wheel
from stategraph.pictures import Picture, to_html  # the picture page's template and script
page = to_html(Picture(title="t", scope="s", states=(), supports=()))
assert "stategraph picture page" in page and "@@" not in page, page[:200]
assert text.invalidated == ["m2", "m3"], text.invalidated
print(json.dumps({"rules": root, "invalidated": run("en").invalidated}))
"""


@pytest.mark.wheel
def test_installed_wheel_finds_its_encodings(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(ROOT)],
        check=True,
    )
    wheel = next(dist.glob("stategraph-*.whl"))
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "-q", str(wheel)], check=True)
    # dependencies come from the test environment; stategraph itself only from the wheel
    # (an editable install is a .pth file, which PYTHONPATH entries do not process)
    env = {**os.environ, "PYTHONPATH": sysconfig.get_paths()["purelib"]}
    env.pop("PYTHONHOME", None)
    out = subprocess.run(
        [str(python), "-c", CHECK],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert '"invalidated": ["m2", "m3"]' in out.stdout
