"""A package whose `__init__.py` fails here: the retry skips only the failing `__init__.py`, runs nothing
again that the failed attempt already loaded, and the error line names the first cause (refs/init_retry.py)."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import pytest

from cli_helpers import run_cli
from ttinspect.errors import EXIT_USAGE
from ttinspect.refs.loading import import_package_module
from ttinspect.refs.packages import package_of

_names = itertools.count()
REGISTRY = """
KINDS = []


def register(kind):
    if kind in KINDS:
        raise ValueError(f"type {{kind}} registered twice")
    KINDS.append(kind)
"""


def write_package(root: Path, files: dict[str, str]) -> str:
    """root/<top>/... from {relative path: text} ("{top}" in a text is the package's name); returns <top>."""
    top = f"retrypkg{next(_names)}_{abs(hash(str(root))) % 10**6}"
    for relative, text in files.items():
        path = root / top / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.format(top=top))
    return top


@pytest.fixture
def package_root(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    before = set(sys.modules)
    yield tmp_path
    for name in set(sys.modules) - before:
        del sys.modules[name]


def load(root: Path, top: str, module: str):
    path = root / top / (module.replace(".", "/") + ".py")
    return import_package_module(package_of(path), path)


def test_what_the_failed_attempt_loaded_is_not_run_again(package_root, capsys):
    top = write_package(package_root, {
        "__init__.py": "from .ops import kinds\nraise RuntimeError('no engine without a GPU')\n",
        "registry.py": REGISTRY,
        "ops/__init__.py": "",
        "ops/kinds.py": "from {top}.registry import register\nregister('fp8')\n",
        "ops/kernel.py": "from .kinds import register\nfrom {top}.registry import KINDS\n",
    })
    module = load(package_root, top, "ops.kernel")
    assert module.KINDS == ["fp8"]  # registered once: kinds.py ran in the failed attempt only
    warning = capsys.readouterr().err.strip().splitlines()
    assert len(warning) == 1 and f"{top}/__init__.py raised RuntimeError: no engine without a GPU" in warning[0]
    assert f"{top}/__init__.py:2)" in warning[0] and f"without running {top}/__init__.py " in warning[0]


def test_only_the_failing_init_is_skipped(package_root, capsys):
    top = write_package(package_root, {
        "__init__.py": "raise RuntimeError('needs its plugins')\n",
        "ops/__init__.py": "CONFIG = {{'BLOCK': 128}}\n",
        "ops/kernel.py": "from . import CONFIG\nBLOCK = CONFIG['BLOCK']\n",
    })
    assert load(package_root, top, "ops.kernel").BLOCK == 128  # ops/__init__.py ran: only the top one failed
    assert f"without running {top}/__init__.py " in capsys.readouterr().err


def test_an_init_failing_inside_a_subpackage_leaves_both_unrun_and_keeps_the_rest(package_root, capsys):
    top = write_package(package_root, {
        "__init__.py": "from .ops import fused\n",
        "registry.py": REGISTRY,
        "ops/__init__.py": "from . import kinds\nfrom . import fused\n",
        "ops/kinds.py": "from {top}.registry import register\nregister('bf16')\n",
        "ops/fused.py": "import a_plugin_nobody_has\n",
        "ops/kernel.py": "from .kinds import register\nfrom {top}.registry import KINDS\n",
    })
    assert load(package_root, top, "ops.kernel").KINDS == ["bf16"]
    err = capsys.readouterr().err
    assert "ModuleNotFoundError: No module named 'a_plugin_nobody_has'" in err and f"{top}/ops/fused.py:1" in err
    assert f"without running {top}/__init__.py, {top}/ops/__init__.py" in err
    assert sys.modules[f"{top}.ops"].kinds is sys.modules[f"{top}.ops.kinds"]


def test_when_the_retry_fails_too_the_first_cause_is_named_first(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    top = write_package(tmp_path, {
        "__init__.py": "\nfrom .engine import start\nstart()\n",
        "engine.py": "def start():\n    raise RuntimeError('no GPU to start on')\n",
        "ops/__init__.py": "",
        "ops/kernel.py": "from {top} import VERSION\n",
    })
    result = run_cli("report", f"{top}.ops.kernel:k", "--signature", "*fp32")
    assert result.exit_code == EXIT_USAGE and "Traceback" not in result.stderr, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("ttinspect: error")]
    assert len(errors) == 1 and "raised RuntimeError: no GPU to start on" in errors[0], result.stderr
    line = errors[0]
    assert line.index("no GPU to start on") < line.index("ImportError")
    assert f"{top}/engine.py:2" in line and f"{top}/ops/kernel.py:1" in line
