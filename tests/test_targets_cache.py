from __future__ import annotations

import os
import subprocess
import sys

import pytest

from ttinspect.caches import store as cache
from ttinspect.errors import UsageError
from ttinspect.targets.nvidia import TARGETS
from ttinspect.targets.lookup import parse_arch


@pytest.mark.parametrize("text,name", [("sm_90", "sm_90"), ("sm90", "sm_90"), ("90", "sm_90"),
                                       ("sm_90a", "sm_90"), ("cuda:80", "sm_80"), ("SM_120", "sm_120")])
def test_parse_arch(text, name):
    assert parse_arch(text).name == name


def test_parse_arch_rejects_unknown():
    with pytest.raises(UsageError, match="valid: sm_70"):
        parse_arch("volta")
    with pytest.raises(UsageError, match="unknown arch 'sm_88': no Triton release"):
        parse_arch("sm_88")


def test_every_target_has_limits():
    for target in TARGETS.values():
        assert target.max_shared_per_block <= target.shared_per_sm
        assert target.max_warps_per_sm in (32, 48, 64)
        assert target.shared_reserved_per_block == (1024 if target.capability >= 80 else 0)


def test_cache_root_override(monkeypatch, tmp_path):
    monkeypatch.setenv("TTINSPECT_CACHE_DIR", str(tmp_path / "c"))
    assert cache.cache_root() == tmp_path / "c"
    monkeypatch.delenv("TTINSPECT_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_root() == tmp_path / "xdg" / "ttinspect"


def test_key_depends_on_every_part():
    base = {"kernel": "m:f", "config": {"num_stages": 3}, "target": "sm_90", "triton": "3.6.0"}
    keys = {cache.content_key(base)}
    for part, value in [("kernel", "m:g"), ("config", {"num_stages": 4}), ("target", "sm_80"),
                        ("triton", "3.9.0")]:
        keys.add(cache.content_key({**base, part: value}))
    assert len(keys) == 5
    assert cache.content_key(dict(reversed(list(base.items())))) == cache.content_key(base)


def test_compile_env_ignores_locations(monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", "/somewhere")
    monkeypatch.setenv("TRITON_DISABLE_LINE_INFO", "1")
    env = cache.compile_env()
    assert "TRITON_CACHE_DIR" not in env and env["TRITON_DISABLE_LINE_INFO"] == "1"


def test_store_is_atomic_and_keeps_the_first_writer(tmp_path):
    entry = cache.store("ab" * 32, {"metadata.json": b"{}", "kernel.ptx": b"one"}, root=tmp_path)
    assert cache.lookup("ab" * 32, root=tmp_path) == entry
    again = cache.store("ab" * 32, {"metadata.json": b"{}", "kernel.ptx": b"two"}, root=tmp_path)
    assert again == entry and (entry / "kernel.ptx").read_bytes() == b"one"
    assert [p.name for p in entry.parent.iterdir()] == [entry.name]  # no staging leftovers
    cache.add_file(entry, "kernel.sass", b"sass")
    assert (entry / "kernel.sass").read_bytes() == b"sass"


def test_warm_dump_imports_neither_triton_nor_torch(tmp_path):
    env = {**os.environ, "TTINSPECT_CACHE_DIR": str(tmp_path)}
    subprocess.run([sys.executable, "-m", "ttinspect", "dump", "opt", "--stage", "ptx"], env=env,
                   check=True, capture_output=True)
    probe = ("import sys; from ttinspect.cli.main import main; sys.argv=['ttinspect','dump','opt','--stage','ptx'];\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\n"
             "bad = [m for m in ('triton', 'torch', 'rich', 'numpy') if m in sys.modules]\n"
             "sys.stderr.write('IMPORTED:' + ','.join(bad))")
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    assert done.stderr.strip().endswith("IMPORTED:"), done.stderr[-300:]
    assert ".target sm_89" in done.stdout
