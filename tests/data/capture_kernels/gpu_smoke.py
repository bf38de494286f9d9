"""A small GPU program for trying the capture by hand, and a checker of what it recorded.

    ttinspect capture -o run.ttcap -- python tests/data/capture_kernels/gpu_smoke.py
    python tests/data/capture_kernels/gpu_smoke.py check run.ttcap [FOLDER]

The program launches an autotuned kernel with heuristics, a plain kernel 100 times and a torch.compile'd
function. `check` prints every record and re-makes each JIT compile's PTX offline from its record (signature
text, constexprs and options as --set, the captured target), compared with the run's Triton cache entry;
FOLDER receives the two PTX of a compile whose offline PTX differs."""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def program() -> None:
    import time

    import torch
    import triton

    import capture_shapes
    from capture_tuned import add_one

    for n in (1 << 20, 1 << 20, 1000):
        x = torch.randn(n, device="cuda")
        y = torch.empty_like(x)
        add_one[lambda meta: (triton.cdiv(meta["n"], meta["BLOCK"]),)](x, y, n)
    a = torch.randn(256, 256, device="cuda", dtype=torch.float16)
    for _ in range(100):
        capture_shapes.copy_rows[(256,)](a, a, 256, 256, 256, 1, BLOCK=256)
    compiled = torch.compile(lambda u, v: (u * 2 + v).relu().sum(dim=1))
    start = time.time()
    for _ in range(5):
        compiled(a, a)  # the site of its kernel's launches
    torch.cuda.synchronize()
    print(f"torch.compile'd function ran in {time.time() - start:.1f} s")


def check(path: str, folder: str | None) -> None:
    import triton

    from ttinspect.capture import format as capture_format
    from ttinspect.capture.signature_text import literal
    from ttinspect.kernel.overrides import parse_settings
    from ttinspect.refs.resolver import RefOptions, resolve_one

    capture = capture_format.read(path)
    print("ptxas here:", triton.knobs.nvidia.ptxas.path, "TRITON_PTXAS_PATH =", os.environ.get("TRITON_PTXAS_PATH"))
    print("header device:", capture.header.device, "triton", capture.header.triton, "torch", capture.header.torch)
    for record in capture.compiles:
        print(f"compile {record.id} {record.name} inductor={record.inductor} target={record.target} "
              f"file={Path(record.file).name}:{record.def_line} sig=[{record.signature}] "
              f"constexprs={record.constexprs} options={record.options} cache={bool(record.triton_cache_dir)}")
    for entry in capture.launches:
        print(f"launches {entry.compile} x{entry.count} grids={entry.grids} site={Path(entry.site).name} "
              f"args={entry.args[:1]}")
    for tuned in capture.autotune:
        print(f"autotune {tuned.name} key={tuned.key} timings={tuned.timings_ms} best={tuned.best} "
              f"compiles={tuned.compiles}")
    for values in capture.heuristics:
        print(f"heuristics {values.name} {values.values} {values.compile}")
    same = checked = 0
    for record in capture.compiles:
        ptx_files = list(Path(record.triton_cache_dir).glob("*.ptx")) if record.triton_cache_dir else []
        if not ptx_files:
            continue
        settings = [f"{k}={v if isinstance(v, str) else literal(v, {})}"
                    for k, v in {**record.constexprs, **record.options}.items() if v is not None]
        try:
            build = resolve_one(f"{record.file}:{record.name}",
                                RefOptions(parse_settings(settings), {}, record.signature, None,
                                           f"sm_{record.target['arch']}"))
            ok = build.artifacts.text("ptx") == ptx_files[0].read_text()
        except Exception as error:  # reported, the others still checked
            print(f"offline {record.id} {record.name}: {type(error).__name__}: {str(error)[:300]}")
            continue
        checked += 1
        same += ok
        print(f"offline {record.id} {record.name}: PTX {'identical' if ok else 'DIFFERENT'}")
        if not ok and folder:
            Path(folder, f"{record.id}-run.ptx").write_text(ptx_files[0].read_text())
            Path(folder, f"{record.id}-offline.ptx").write_text(build.artifacts.text("ptx"))
    print(f"offline PTX identical for {same} of {checked} compiles with a cache entry")


if __name__ == "__main__":
    if sys.argv[1:2] == ["check"]:
        check(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
    else:
        program()
