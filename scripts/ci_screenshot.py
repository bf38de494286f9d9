"""docs/img/ci-summary.png: what a reviewer sees of `snapshot --check --format markdown` on a pull request.

A small library (tests/data/user_kernels/my_mm.py) is snapshotted, then edited to lose its pipelining and
to spill; the Markdown report is rendered to HTML (markdown-it, which rich brings, with GitHub-like CSS) and
photographed in headless Chromium (Debian's chromium, as the browser tests use).

    python scripts/ci_screenshot.py [OUT.png]
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CSS = """body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;font-size:14px;line-height:1.5;
color:#1f2328;max-width:980px;margin:24px auto;padding:0 16px}table{border-collapse:collapse;margin:8px 0}
th,td{border:1px solid #d1d9e0;padding:6px 13px}tr:nth-child(2n){background:#f6f8fa}
code{background:#eff1f3;padding:.2em .4em;border-radius:6px;font-size:85%}details{margin:6px 0}"""


def main() -> None:
    from markdown_it import MarkdownIt

    out = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "docs" / "img" / "ci-summary.png").resolve()
    with tempfile.TemporaryDirectory(prefix="ttinspect-ci-shot-") as scratch:
        lib = Path(scratch) / "lib"
        (lib / "mylib" / "ops").mkdir(parents=True)
        shutil.copyfile(ROOT / "tests" / "data" / "user_kernels" / "my_mm.py", lib / "mylib" / "ops" / "mm.py")
        (lib / "pyproject.toml").write_text('[tool.ttinspect]\nkernels = ["mylib/ops/*.py"]\ntargets = ["sm_80"]\n'
                                            'fail-on = "warning"\n')
        env = {**os.environ, "TTINSPECT_CACHE_DIR": str(Path(scratch) / "cache")}

        def ttinspect(*argv: str) -> str:
            return subprocess.run([sys.executable, "-m", "ttinspect", *argv], cwd=lib, env=env, capture_output=True,
                                  text=True).stdout

        ttinspect("snapshot")
        source = lib / "mylib" / "ops" / "mm.py"
        second = '),\n    triton.Config({"BLOCK_M": 128, "BLOCK_N": 64'
        text = source.read_text().replace("num_warps=4, num_stages=3" + second, "num_warps=4, num_stages=1" + second)
        source.write_text(text.replace('"autotune_config": 3,', '"autotune_config": 3, "config": {"maxnreg": 96},'))
        markdown = ttinspect("snapshot", "--check", "--format", "markdown")
        page = Path(scratch) / "summary.html"
        html = MarkdownIt("commonmark").enable("table").render(markdown)
        page.write_text(f"<!doctype html><meta charset=utf-8><style>{CSS}</style><body>{html}</body>")
        profile = Path(scratch) / "profile"
        subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                        "--disable-background-networking", "--disable-component-update", "--disable-sync",
                        f"--user-data-dir={profile}", "--hide-scrollbars", "--window-size=1000,700",
                        f"--screenshot={out}", page.as_uri()], check=True, capture_output=True, timeout=120)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
