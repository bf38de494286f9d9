"""docs/ci.md's workflow on a GEMM-heavy library, timed cold and warm as GitHub's runner runs its steps.

The library is made in a temporary repository from this project's own kernels (kernels/): an autotuned grouped
matmul (Triton's tutorial, four triton.Config lines, one example each), the persistent TMA matmul (two tiles), the
square-tile matmul (two tiles) and a row softmax — 9 examples × 2 targets (sm_80, sm_90) = 18 entries. Its snapshot
is made first (`ttinspect snapshot`, as a maintainer commits it), then action.yml runs twice, each step's shell as
the runner invokes it (tests/action_runner.py: `bash --noprofile --norc -eo pipefail`, expressions substituted,
`if:`s evaluated; pip and gh are stand-ins, nothing is installed or posted):

- cold: a push on the default branch with an empty cache (ttinspect's and Triton's), as the first run after a
  cache expired; its ~/.cache/ttinspect is then saved under the key the action's cache step computes;
- warm: a pull request's run on a fresh HOME (Triton's own cache empty too, as on a new runner), ttinspect's cache
  restored from that key — exactly, or by the restore-keys prefix, as actions/cache would.

`uses:` steps (setup-python, actions/cache, upload-sarif) are GitHub's: the cache's restore and save are done
here by tar with the action's key; the others are not timed. Not run by GitHub, nor by `act` (its binary is a
download this machine cannot make, and it needs Docker).

    python benchmarks/gate_times.py            # prints each step's seconds, cold and warm, and the machine's load
"""

from __future__ import annotations

import ast
import os
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from action_runner import Runner  # noqa: E402  (tests/ on the path: the harness the tests run action.yml with)

HEADER = "import triton\nimport triton.language as tl\n\n\n"
AUTOTUNE = '''CONFIGS = [
    triton.Config({"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8}, num_stages=3,
                  num_warps=8),
    triton.Config({"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8}, num_stages=4,
                  num_warps=4),
    triton.Config({"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8}, num_stages=4,
                  num_warps=4),
    triton.Config({"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8}, num_stages=5,
                  num_warps=2),
]


@triton.autotune(configs=CONFIGS, key=["M", "N", "K"])
'''
MATMUL_ARGS = ('{"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": 4096, "N": 4096, "K": 4096, '
               '"stride_am": 4096, "stride_ak": 1, "stride_bk": 4096, "stride_bn": 1, "stride_cm": 4096, '
               '"stride_cn": 1}')
EXAMPLES = {
    "gemm.py": (("tutorial.py", "matmul_grouped_kernel"), AUTOTUNE, f'''
ARGS = {MATMUL_ARGS}
TTINSPECT_EXAMPLES = {{f"config{{n}}": {{"kernel": matmul_grouped_kernel, "args": ARGS, "autotune_config": n}}
                      for n in (1, 2, 3, 4)}}
'''),
    "persistent.py": (("hopper.py", "matmul_tma_persistent_kernel"), "", '''
def tiles(m, n, k):
    return f"tensordesc<fp16[{m}, {k}]>, tensordesc<fp16[{k}, {n}]>, tensordesc<fp16[{m}, {n}]>, i32:16, i32:16, i32:16"


TTINSPECT_EXAMPLES = {
    "wide": {"kernel": matmul_tma_persistent_kernel, "signature": tiles(128, 256, 64),
             "config": {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8,
                        "NUM_SMS": 132, "num_warps": 8, "num_stages": 3}},
    "square": {"kernel": matmul_tma_persistent_kernel, "signature": tiles(128, 128, 64),
               "config": {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8,
                          "NUM_SMS": 132, "num_warps": 4, "num_stages": 4}},
}
'''),
    "square.py": (("square.py", "matmul_square_kernel"), "", f'''
ARGS = {MATMUL_ARGS}
TTINSPECT_EXAMPLES = {{
    "tile64": {{"kernel": matmul_square_kernel, "args": ARGS, "config": {{"BLOCK_SIZE": 64, "num_warps": 4}}}},
    "tile128": {{"kernel": matmul_square_kernel, "args": ARGS, "config": {{"BLOCK_SIZE": 128, "num_warps": 8}}}},
}}
'''),
    "softmax.py": (("elementwise.py", "softmax_kernel"), "", '''
TTINSPECT_EXAMPLES = {
    "rows": {"kernel": softmax_kernel, "args": {"i_ptr": "*fp32", "o_ptr": "*fp32", "i_stride": 1024,
                                                "o_stride": 1024, "n_rows": 4096, "n_cols": 1024},
             "config": {"BLOCK_SIZE": 1024, "num_stages": 2, "num_warps": 4}},
}
'''),
}
PYPROJECT = '[tool.ttinspect]\nkernels = ["mylib/ops/*.py"]\ntargets = ["sm_80", "sm_90"]\nfail-on = "error"\n'


def kernel_source(file: str, name: str) -> str:
    """The @triton.jit function `name` of kernels/FILE, decorator included, as its file spells it."""
    text = (ROOT / "kernels" / file).read_text()
    node = next(n for n in ast.parse(text).body if isinstance(n, ast.FunctionDef) and n.name == name)
    lines = text.splitlines()
    return "\n".join(lines[node.decorator_list[0].lineno - 1:node.end_lineno]) + "\n"


def make_repository(repo: Path) -> int:
    ops = repo / "lib" / "mylib" / "ops"
    ops.mkdir(parents=True)
    (repo / "lib" / "pyproject.toml").write_text(PYPROJECT)
    examples = 0
    for name, ((file, kernel), before, declared) in EXAMPLES.items():
        (ops / name).write_text(HEADER + before + kernel_source(file, kernel) + "\n" + declared)
        examples += 4 if name == "gemm.py" else declared.count('"kernel"')
    return examples


def environment(home: Path) -> None:
    """A runner's HOME: ~/.cache/ttinspect is what the action's cache step saves; Triton's cache under it too."""
    home.mkdir(parents=True, exist_ok=True)
    os.environ["HOME"] = str(home)
    os.environ["TRITON_CACHE_DIR"] = str(home / ".triton" / "cache")
    for name in ("TTINSPECT_CACHE_DIR", "XDG_CACHE_HOME", "TRITON_HOME"):
        os.environ.pop(name, None)


def timed_run(repo: Path, scratch: Path, event: str) -> tuple[int, list[tuple[str, float]], dict]:
    runner = Runner(repo, scratch, {"working-directory": "lib", "comment": "true"}, event=event)
    times: list[tuple[str, float]] = []
    shell = runner._shell

    def timed(index: int, step: dict) -> int:
        start = time.perf_counter()
        try:
            return shell(index, step)
        finally:
            times.append((step.get("name") or f"step {index}", time.perf_counter() - start))

    runner._shell = timed  # type: ignore[method-assign]
    return runner.run(), times, runner.uses


def cache_key(uses: list[dict]) -> tuple[str, str]:
    (cache,) = [step for step in uses if step["uses"].startswith("actions/cache@")]
    return cache["with"]["key"], cache["with"]["restore-keys"]


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="gate-times-") as folder:
        base = Path(folder)
        repo = base / "repo"
        examples = make_repository(repo)
        load = os.getloadavg()
        print(f"library: {examples} examples x 2 targets = {examples * 2} entries; {os.cpu_count()} cores, "
              f"load average {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f} at the start")
        environment(base / "maintainer")
        from cli_helpers import run_process

        start = time.perf_counter()
        run_process("snapshot", cwd=repo / "lib", check=True)
        print(f"ttinspect snapshot (the maintainer's, committed): {time.perf_counter() - start:.1f} s")

        environment(base / "runner-push")  # the default branch, cache empty
        (base / "push").mkdir()
        status, cold, uses = timed_run(repo, base / "push", "push")
        key, prefix = cache_key(uses)
        saved = base / "caches" / f"{key}.tar"
        saved.parent.mkdir()
        start = time.perf_counter()
        with tarfile.open(saved, "w") as tar:
            tar.add(base / "runner-push" / ".cache" / "ttinspect", arcname="ttinspect")
        save_s = time.perf_counter() - start

        environment(base / "runner-pr")  # a pull request on a new runner: ttinspect's cache restored by the key
        (base / "pr").mkdir()
        start = time.perf_counter()
        restored = base / "caches" / f"{key}.tar"
        if not restored.exists():
            restored = max((p for p in saved.parent.glob(f"{prefix}*.tar")), key=lambda p: p.stat().st_mtime)
        (base / "runner-pr" / ".cache").mkdir(parents=True)
        with tarfile.open(restored) as tar:
            tar.extractall(base / "runner-pr" / ".cache", filter="data")
        restore_s = time.perf_counter() - start
        warm_status, warm, _ = timed_run(repo, base / "pr", "pull_request")

        size = sum(p.stat().st_size for p in (base / "runner-pr" / ".cache").rglob("*") if p.is_file())
        print(f"cache key {key}; {size / 2**20:.1f} MiB saved in {save_s:.1f} s, restored in {restore_s:.1f} s")
        for title, steps, verdict in (("cold (push, empty cache)", cold, status),
                                      ("warm (pull request, cache restored)", warm, warm_status)):
            print(f"{title}: exit {verdict}, {sum(s for _, s in steps):.1f} s in the action's run steps")
            for name, seconds in steps:
                print(f"    {seconds:7.2f} s  {name}")
        print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
