"""What keys a user's kernel: its file and the local modules it imports, regular files only — never a
sibling FIFO (which would block), a folder named `*.py`, a dangling link or a link loop."""

from __future__ import annotations

import os
import threading

import pytest

from ttinspect.files.source_files import digests, local_imports, read_regular, sha256_or_empty


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "kern.py").write_text("import helpers\nfrom pkg import sub\nfrom pkg.deep import leaf\nimport triton\n")
    (tmp_path / "helpers.py").write_text("from . import nothing_here\nimport chained\n")
    (tmp_path / "chained.py").write_text("X = 1\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "sub.py").write_text("Y = 2\n")
    (tmp_path / "pkg" / "deep").mkdir()
    (tmp_path / "pkg" / "deep" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "deep" / "leaf.py").write_text("Z = 3\n")
    (tmp_path / "unrelated.py").write_text("not imported\n")
    os.mkfifo(tmp_path / "fifo.py")
    (tmp_path / "dir.py").mkdir()
    (tmp_path / "dangling.py").symlink_to("nowhere.py")
    (tmp_path / "loop.py").symlink_to("loop.py")
    return tmp_path


def test_the_files_a_kernel_imports_and_no_others(folder):
    names = sorted(os.path.relpath(p, folder) for p in local_imports(folder / "kern.py"))
    assert names == ["chained.py", "helpers.py", "kern.py", "pkg/__init__.py", "pkg/deep/__init__.py",
                     "pkg/deep/leaf.py", "pkg/sub.py"]
    assert set(digests(folder / "kern.py")) == set(names)


@pytest.mark.parametrize("name", ["fifo.py", "dir.py", "dangling.py", "loop.py", "missing.py"])
def test_special_files_are_not_read(folder, name):
    result: list = []
    reader = threading.Thread(target=lambda: result.append(read_regular(folder / name)), daemon=True)
    reader.start()
    reader.join(timeout=5)
    assert not reader.is_alive(), f"reading {name} blocked"
    assert result == [None] and sha256_or_empty(folder / name) == ""


@pytest.mark.parametrize("importer", ["import fifo\n", "import dir\n", "import dangling\n", "import loop\n"])
def test_an_import_of_a_special_file_is_skipped(folder, importer):
    (folder / "k2.py").write_text(importer)
    assert [p.name for p in local_imports(folder / "k2.py")] == ["k2.py"]


def test_an_edit_of_an_unrelated_sibling_keeps_the_key(folder):
    before = digests(folder / "kern.py")
    (folder / "unrelated.py").write_text("edited\n")
    assert digests(folder / "kern.py") == before
    (folder / "pkg" / "deep" / "leaf.py").write_text("Z = 4\n")
    assert digests(folder / "kern.py") != before
