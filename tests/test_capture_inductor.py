"""torch.compile's kernels compiled in Inductor's compile workers (ttinspect/capture/inductor.py): the program
never sees the compile, only the launcher Inductor sends back — whose JITFunction has lost its Python function
(`CachingAutotuner.prepare_for_pickle`). The record is made from what Inductor keeps: the generated file, the
kernel's name, the compile's meta and options, and the Triton cache entry the worker wrote (named by the
launcher's `cache_hash`). Inductor itself makes Triton kernels only for a GPU, so its autotuner is a stand-in
here with the attributes the capture reads; the compile is a real one for sm_90, as a worker makes it."""

from __future__ import annotations

import base64
import importlib.util
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

triton = pytest.importorskip("triton")

from capture_programs import Recorder  # noqa: E402
from ttinspect.capture import inductor, triton_hooks  # noqa: E402
from ttinspect.kernel.overrides import parse_settings  # noqa: E402
from ttinspect.refs.resolver import RefOptions, resolve_one  # noqa: E402

GENERATED = '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers


@triton.jit
def triton_poi_fused_add_relu_0(in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    tmp0 = tl.load(in_ptr0 + (xindex), xmask)
    tl.store(out_ptr0 + (xindex), tl.maximum(tmp0 + 1.0, 0.0), xmask)
'''


def worker_compile(folder: Path):
    """The generated file, compiled for sm_90 as a compile worker does; the kernel loaded as the program gets it
    back (its Python function dropped)."""
    from triton.backends.compiler import GPUTarget
    from triton.compiler.compiler import ASTSource

    path = folder / "cgen4zq3x.py"
    path.write_text(GENERATED.replace("from torch._inductor.runtime import triton_helpers\n", ""))
    spec = importlib.util.spec_from_file_location("cgen4zq3x", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    fn = module.triton_poi_fused_add_relu_0
    signature = {"in_ptr0": "*fp32", "out_ptr0": "*fp32", "xnumel": "i32", "XBLOCK": "constexpr"}
    constants = {"XBLOCK": 256}
    attrs = {(0,): [["tt.divisibility", 16]], (1,): [["tt.divisibility", 16]], (2,): [["tt.divisibility", 16]]}
    options = {"num_warps": 4, "num_stages": 1, "debug": True}
    kernel = triton.compile(ASTSource(fn, signature, constants, attrs), target=GPUTarget("cuda", 90, 32),
                            options=options)
    meta = {"signature": signature, "constants": constants, "configs": [attrs], "device_type": "cuda", "cc": 90}
    fn.fn = None  # what CachingAutotuner.prepare_for_pickle does before the worker sends it back
    autotuner = SimpleNamespace(fn=fn, filename=str(path), device_props=SimpleNamespace(warp_size_or_default=32),
                                _create_compile_meta=lambda config: meta,
                                _create_compile_options=lambda config, meta: dict(options))
    path_key = base64.b32encode(bytes.fromhex(kernel.hash)).decode().rstrip("=")
    return kernel, autotuner, SimpleNamespace(config=None, cache_hash=path_key), path


def test_a_kernel_compiled_in_an_inductor_worker_is_recorded_where_it_lives_with_its_cache_entry(tmp_path):
    kernel, autotuner, launcher, path = worker_compile(tmp_path)
    session = Recorder()
    assert inductor._record_from_autotuner(session, autotuner, launcher) == "k1"
    record = session.compiles[0]
    assert record["name"] == "triton_poi_fused_add_relu_0" and record["file"] == str(path)
    assert path.read_text().splitlines()[record["def_line"] - 1].startswith("def triton_poi_fused_add_relu_0(")
    assert record["inductor"] is True and record["sha256"] == session.add_source(str(path))
    assert record["triton_cache_dir"] == triton_hooks.kernel_cache_dir(kernel)  # the folder the worker wrote
    assert any(name.endswith(".ptx") for name in os.listdir(record["triton_cache_dir"]))
    version = record["options"]["ptx_version"]  # read from the entry's PTX, as hooks.py reads the kernel's
    assert f".version {version // 10}.{version % 10}\n" in kernel.asm["ptx"]
    settings = [f"{k}={v}" for k, v in {**record["constexprs"], **record["options"]}.items() if v is not None]
    build = resolve_one(f"{path}:{record['name']}", RefOptions(parse_settings(settings), {}, record["signature"],
                                                               None, "sm_90"))
    assert build.artifacts.text("ptx") == kernel.asm["ptx"]  # the run's PTX, byte for byte


def test_without_the_generated_file_or_the_cache_entry_nothing_is_made_up(tmp_path):
    kernel, autotuner, launcher, path = worker_compile(tmp_path)
    path.unlink()
    launcher.cache_hash = "NOTAKEY"
    session = Recorder()
    inductor._record_from_autotuner(session, autotuner, launcher)
    record = session.compiles[0]
    assert record["file"] is None and record["triton_cache_dir"] is None and record["params"][0] == "in_ptr0"
