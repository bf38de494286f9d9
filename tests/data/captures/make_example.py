"""The synthetic example capture (example.ttcap) and a maker of fresh ones for tests, written by ttinspect's own
capture writer (ttinspect.capture.session + merge): no program ran, no GPU. What it says is what a run of a
training script `train.py` calling example_kernels.py's two kernels on an H100 would record: the autotuned
`tiled_mm` (both configs compiled, timed, the second kept; its heuristic), and `scale_add` compiled for two
specializations (n = 1000 and n = 4096).

    python tests/data/captures/make_example.py --update     # rewrite tests/data/captures/example.ttcap

Tests that compile from a capture call `write_example(tmp_path)`: it copies example_kernels.py there and
writes a capture naming that copy, so the recorded paths and sha256 are those of a file that exists. The
checked-in example.ttcap records the kernels as if they were under /ttinspect-example/ (its header's "note"
says so); its source records hold their text.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
KERNELS = HERE / "example_kernels.py"
ROOT_AS_RECORDED = "/ttinspect-example"
TARGET = {"backend": "cuda", "arch": 90, "warp_size": 32}
DEVICE = {"name": "NVIDIA H100 80GB HBM3", **TARGET}
NOTE = ("synthetic: written by tests/data/captures/make_example.py through ttinspect's capture writer; "
        "no program ran")
MM_PARAMS = ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_am", "stride_ak", "stride_bk", "stride_bn",
             "stride_cm", "stride_cn", "BLOCK_M", "BLOCK_N", "BLOCK_K", "EVEN_K"]
MM_CONFIGS = [({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, 4, 3),
              ({"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 32}, 4, 4)]


def _tensor(shape: list[int], dtype: str = "float16") -> dict:
    strides = [shape[1], 1] if len(shape) == 2 else [1]
    return {"dtype": dtype, "shape": shape, "strides": strides}


def write_example(folder: Path, *, name: str = "example.ttcap", compress: bool = False,
                  recorded_root: str | None = None) -> Path:
    """Write a capture of the example run into `folder` (with a copy of example_kernels.py beside it unless
    `recorded_root` says where the kernels are recorded to be); returns its path."""
    from ttinspect.capture import process  # the writer under test, imported when used
    from ttinspect.capture.merge import merge  # the writer under test, imported when used
    from ttinspect.capture.session import Session  # the writer under test, imported when used

    folder = Path(folder)
    if recorded_root is None:
        kernel_file = folder / KERNELS.name
        shutil.copyfile(KERNELS, kernel_file)
        recorded = kernel_file
    else:
        kernel_file, recorded = KERNELS, Path(recorded_root) / KERNELS.name
    script = str(recorded.parent / "train.py")
    parts = folder / f".{name}.parts"
    parts.mkdir()
    header = {**process.header(["python", "train.py", "--steps", "3"]), "cwd": str(recorded.parent),
              "created": "2025-01-01T12:00:00.000000+00:00", "interpreter": False}
    session = Session(parts / "1-1.ttcap", header)
    session.set_device(DEVICE)
    sha = session.add_source(kernel_file)
    common = {"qualname": None, "module": "example_kernels", "file": str(recorded), "sha256": sha,
              "sources": {str(recorded): sha}, "inductor": False, "target": TARGET, "triton_cache_key": None,
              "triton_cache_dir": None}
    mm_ids = []
    for kwargs, warps, stages in MM_CONFIGS:
        constexprs = {**kwargs, "EVEN_K": True}
        signature = ("*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, "
                     + ", ".join(str(v) for v in kwargs.values()) + ", True")
        mm_ids.append(session.add_compile({
            "name": "tiled_mm", **common, "qualname": "tiled_mm", "def_line": 16, "params": MM_PARAMS,
            "signature": signature, "constexprs": constexprs,
            "options": {"num_warps": warps, "num_stages": stages, "num_ctas": 1, "maxnreg": None},
            "autotuned": {"configs": len(MM_CONFIGS)}}))
    mm_args = {"a_ptr": _tensor([1024, 1024]), "b_ptr": _tensor([1024, 1024]), "c_ptr": _tensor([1024, 1024]),
               "M": 1024, "N": 1024, "K": 1024, "stride_am": 1024, "stride_ak": 1, "stride_bk": 1024,
               "stride_bn": 1, "stride_cm": 1024, "stride_cn": 1}
    for compile_id, grid, count in ((mm_ids[0], (16, 16, 1), 10), (mm_ids[1], (8, 16, 1), 13)):
        for _ in range(count):
            session.add_launch(compile_id, f"{script}:42", grid, lambda: mm_args)
    session.add_autotune({"name": "tiled_mm", "file": str(recorded), "key": {"M": 1024, "N": 1024, "K": 1024},
                          "configs": [{"kwargs": kwargs, "num_warps": warps, "num_stages": stages, "num_ctas": 1,
                                       "maxnreg": None} for kwargs, warps, stages in MM_CONFIGS],
                          "timings_ms": [0.214, 0.171], "best": 1, "pruned_to": None, "compiles": mm_ids})
    session.add_heuristics({"name": "tiled_mm", "values": {"EVEN_K": True}, "compile": mm_ids[1]})
    for n, signature in ((1000, "*fp32:16, *fp32:16, *fp32:16, i32, fp32, 1024"),
                         (4096, "*fp32:16, *fp32:16, *fp32:16, i32:16, fp32, 1024")):
        compile_id = session.add_compile({
            "name": "scale_add", **common, "qualname": "scale_add", "def_line": 39,
            "params": ["x_ptr", "y_ptr", "out_ptr", "n", "alpha", "BLOCK"], "signature": signature,
            "constexprs": {"BLOCK": 1024}, "options": {"num_warps": 4, "num_stages": 3, "num_ctas": 1,
                                                       "maxnreg": None}, "autotuned": None})
        args = {"x_ptr": _tensor([n], "float32"), "y_ptr": _tensor([n], "float32"),
                "out_ptr": _tensor([n], "float32"), "n": n, "alpha": 0.5}
        for _ in range(3):
            session.add_launch(compile_id, f"{script}:57", (-(-n // 1024), 1, 1), args)
    session.close()
    out = folder / name
    merge(parts, out, base_header={k: header[k] for k in ("tool", "tool_version", "created", "argv", "cwd")}
          | ({"note": NOTE} if recorded_root is not None else {}), exit_code=0, compress=compress, force=True)
    if recorded_root is not None:  # the source record names the file where it is recorded to be
        _rename_source(out, str(recorded))
    return out


def _rename_source(part: Path, recorded: str) -> None:
    """The source record of the checked-in example names the path the kernels are recorded under."""
    import json  # used only by --update

    lines = part.read_text().splitlines(keepends=True)
    fixed = [line if '"type":"source"' not in line else json.dumps(
        {**json.loads(line), "path": recorded}, ensure_ascii=False, separators=(",", ":")) + "\n" for line in lines]
    part.write_text("".join(fixed))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--update", action="store_true", help="rewrite tests/data/captures/example.ttcap")
    if not parser.parse_args().update:
        parser.error("nothing to do without --update")
    sys.path.insert(0, str(HERE.parents[2]))
    (HERE / "example.ttcap").unlink(missing_ok=True)
    print(write_example(HERE, recorded_root=ROOT_AS_RECORDED))
    return 0


if __name__ == "__main__":
    sys.exit(main())
