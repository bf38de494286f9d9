"""Regenerate the captured stage texts the parser tests read, with the installed Triton:

    python tests/data/capture.py            # writes tests/data/triton-<version>/<variant>-<arch>.<stage>

Run it once per Triton version you want covered (e.g. from /work/venv36 and /work/venv39). The set is
kept small (well under 1 MB per version): naive and opt on sm_80 / sm_90 / sm_100 (ptx, ttgir, ttir,
sass), LLVM IR for naive on sm_90 only, the ptx of add and softmax on sm_90, one sm_120 ptx, and
`cuobjdump -sass` of naive on sm_90 (`.cuobjdump`, the SASS parser's fallback format).
A variant that fails to compile is reported and skipped; the others are still written.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

CAPTURES: list[tuple[str, str, tuple[str, ...]]] = [
    *[(variant, arch, ("ptx", "ttgir", "ttir", "sass"))
      for variant in ("naive", "opt") for arch in ("sm_80", "sm_90", "sm_100")],
    ("naive", "sm_90", ("llir",)),
    ("add", "sm_90", ("ptx",)),
    ("softmax", "sm_90", ("ptx",)),
    ("naive", "sm_120", ("ptx",)),
    ("naive", "sm_90", ("cuobjdump",)),
]


def _make_importable() -> None:
    """`ttinspect` and `ttinspect_kernels` from this checkout, installed or not."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    if importlib.util.find_spec("ttinspect_kernels") is None:
        package = types.ModuleType("ttinspect_kernels")
        package.__path__ = [str(ROOT / "kernels")]  # type: ignore[attr-defined]
        package.__file__ = str(ROOT / "kernels" / "__init__.py")
        sys.modules["ttinspect_kernels"] = package


def _text(artifacts, stage: str) -> str:
    if stage != "cuobjdump":
        return artifacts.text(stage)
    import tempfile

    from ttinspect.engine.tools import run_tool

    with tempfile.TemporaryDirectory() as tmp:
        cubin = Path(tmp) / "kernel.cubin"
        cubin.write_bytes(artifacts.data("cubin"))
        return run_tool("cuobjdump", ["-sass", str(cubin)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=HERE, help="parent folder (default: tests/data)")
    args = parser.parse_args(argv)
    _make_importable()
    from ttinspect.engine.builds import build
    from ttinspect.targets.releases import triton_version

    out = args.out / f"triton-{triton_version()}"
    out.mkdir(parents=True, exist_ok=True)
    failures = 0
    for variant, arch, stages in CAPTURES:
        try:
            artifacts = build(variant, {}, arch).artifacts
            for stage in stages:
                (out / f"{variant}-{arch}.{stage}").write_text(_text(artifacts, stage))
        except Exception as exc:  # report and go on: one broken variant must not block the rest
            failures += 1
            print(f"skipped {variant} {arch}: {type(exc).__name__}: {exc}", file=sys.stderr)
            continue
        print(f"{variant} {arch}: {', '.join(stages)}")
    total = sum(f.stat().st_size for f in out.iterdir() if f.is_file())
    print(f"{out}: {total / 1e6:.2f} MB")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
