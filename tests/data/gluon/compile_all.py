"""Compile every Gluon kernel of this folder offline, for each target its module's COMPILE table names.

    TRITON_DEFAULT_FP_FUSION=1 python tests/data/gluon/compile_all.py [FILE_OR_KERNEL ...]

No GPU is needed: each kernel is built as a GluonASTSource and handed to `triton.compile` with an explicit
GPUTarget("cuda", arch, 32). For each kernel and arch it prints OK with the stages Triton produced (the keys
of `asm`) and how often a few PTX markers occur, or the error. Arguments, if any, keep only the files (by
stem, e.g. `gluon_copy`) or kernels (by name) they name. The exit status is 1 if anything failed to compile.

Each module's COMPILE table maps a kernel name to
    signature   {param: type}: "*fp16", "i32", "constexpr", "tensordesc<fp16[128, 64],NVMMASharedLayout(...)>"
    constexprs  {param: value}
    attrs       {(param index,): [["tt.divisibility", 16]], ...} (optional)
    arch        the compute capabilities to build for, e.g. [90] or [90, 100]
    options     triton.compile options, e.g. {"num_warps": 4}
"""

import importlib.util
import os
import re
import shutil
import sys
import tempfile
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Loaded by file path, never with this folder on sys.path (as ttinspect loads a user's file).
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
# A fresh cache, so every run really compiles (and a stale build of an edited kernel is never reused); removed
# at the end unless the caller chose the cache.
OWN_CACHE = None if "TRITON_CACHE_DIR" in os.environ else tempfile.mkdtemp(prefix="gluon-compile-all-")
if OWN_CACHE:
    os.environ["TRITON_CACHE_DIR"] = OWN_CACHE

import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.experimental.gluon._runtime import GluonASTSource  # noqa: E402

FILES = ["gluon_copy", "hopper_matmul", "blackwell_matmul", "warp_specialized", "serialized_ring", "amd_copy"]

# PTX markers worth counting: what each kernel is meant to exercise.
MARKERS = {
    "wgmma": r"wgmma\.mma_async",
    "tcgen05.mma": r"tcgen05\.mma",
    "tcgen05.ld": r"tcgen05\.ld",
    "cp.async.bulk.tensor": r"cp\.async\.bulk\.tensor",  # all TMA copies; split below into loads and stores
    "tma.load": r"cp\.async\.bulk\.tensor\.\dd\.shared::\w+\.global",
    "tma.store": r"cp\.async\.bulk\.tensor\.\dd\.global\.shared",
    "mbarrier.try_wait": r"mbarrier\.try_wait",
    "ld.global": r"ld\.global",
    "st.global": r"st\.global",
    "setmaxnreg": r"setmaxnreg",
}


def load_module(stem):
    """Import tests/data/gluon/<stem>.py by path, under a name that cannot clash with anything installed."""
    name = f"_gluon_test_data_{stem}"
    spec = importlib.util.spec_from_file_location(name, HERE / f"{stem}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # Gluon's JIT reads the kernel source through the module
    spec.loader.exec_module(module)
    return module


def check_descriptor_strings(entry):
    """Where torch is installed, compare each tensordesc signature with the string this Triton release's own
    specializer makes for a real TensorDescriptor of that block shape and layout. Returns (number of
    descriptors checked, list of problems)."""
    try:
        import torch
        from triton.runtime.jit import mangle_type
        from triton.experimental.gluon import language as gl
        from triton.experimental.gluon.nvidia.hopper import TensorDescriptor
    except ImportError:
        return 0, []
    dtypes = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32, "fp8e4nv": torch.float8_e4m3fn}
    checked, problems = 0, []
    for param, ty in entry["signature"].items():
        m = re.fullmatch(r"tensordesc<(\w+)\[([\d, ]+)\],(.*)>", ty)
        if not m:
            continue
        checked += 1
        block = [int(s) for s in m.group(2).split(",")]
        layout = eval(m.group(3), {"NVMMASharedLayout": gl.NVMMASharedLayout})
        base = torch.empty([2 * b for b in block], dtype=dtypes[m.group(1)])
        mangled = mangle_type(TensorDescriptor.from_tensor(base, block, layout))
        if mangled != ty:
            problems.append(f"{param}: signature {ty!r} but this release mangles a descriptor as {mangled!r}")
    return checked, problems


def compile_one(fn, entry, arch):
    src = GluonASTSource(fn, entry["signature"], entry.get("constexprs", {}), entry.get("attrs", {}))
    target = GPUTarget("hip", arch, 64) if isinstance(arch, str) else GPUTarget("cuda", arch, 32)
    return triton.compile(src, target=target, options=dict(entry.get("options", {})))


def main(argv):
    wanted = set(argv)
    print(f"Triton {triton.__version__}  TRITON_DEFAULT_FP_FUSION={os.environ['TRITON_DEFAULT_FP_FUSION']}")
    failures = descriptors = 0
    for stem in FILES:
        try:
            module = load_module(stem)
        except Exception as exc:  # a module that does not even import on this release
            print(f"{stem}.py: IMPORT ERROR {type(exc).__name__}: {exc}")
            failures += 1
            continue
        for name, entry in module.COMPILE.items():
            if wanted and stem not in wanted and name not in wanted:
                continue
            checked, problems = check_descriptor_strings(entry)
            descriptors += checked
            for problem in problems:
                print(f"{stem}.{name}: DESCRIPTOR MISMATCH {problem}")
                failures += 1
            for arch in entry["arch"]:
                label = f"{stem}.{name} {arch if isinstance(arch, str) else f'sm_{arch}'}"
                try:
                    kernel = compile_one(getattr(module, name), entry, arch)
                except Exception as exc:
                    failures += 1
                    message = str(exc).strip().splitlines()
                    print(f"{label}: ERROR {type(exc).__name__}: {message[-1] if message else ''}")
                    if os.environ.get("VERBOSE"):
                        traceback.print_exc()
                    continue
                ptx = kernel.asm.get("ptx", "")
                counts = {k: len(re.findall(p, ptx)) for k, p in MARKERS.items()}
                found = " ".join(f"{k}={v}" for k, v in counts.items() if v)
                print(f"{label}: OK asm={sorted(kernel.asm)} {found}")
    if descriptors:
        print(f"{descriptors} tensordesc signature strings compared with this release's TensorDescriptor mangling")
    return 1 if failures else 0


if __name__ == "__main__":
    try:
        status = main(sys.argv[1:])
    finally:
        if OWN_CACHE:
            shutil.rmtree(OWN_CACHE, ignore_errors=True)
    sys.exit(status)
