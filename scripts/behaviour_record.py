"""Record what the CLI answers for the shipped variants, to prove a refactor changed nothing.

    python scripts/behaviour_record.py record OUT_DIR     # on the old commit, then on the new one
    python scripts/behaviour_record.py compare OLD NEW     # every output byte-identical, or the differences

Each command's stdout, stderr and exit code go to one file per command. Run both recordings from the same
checkout path (outputs name the kernel files) with the same Triton. Each recording starts from an empty cache of
its own, because what is cached can show: `check` quotes a kernel's pass history when one is cached for it
(another command, or a user's `ttinspect passes`, may have made it). The HTML pages are compared too (they
embed no time or path of this machine).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGETS = ("sm_89", "sm_90", "sm_100", "gfx942")
PAIRS = (("naive", "opt"), ("opt", "opt:num_stages=3"), ("opt@sm_80", "opt@sm_90"), ("naive", "opt_tma"))
USER_FILE = "tests/data/user_kernel.py"


def _variants() -> list[str]:
    out = subprocess.run([sys.executable, "-m", "ttinspect", "list", "--json"], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout
    return [entry["name"] for entry in json.loads(out)]


def commands() -> list[list[str]]:
    """The commands whose answers must not change: every shipped variant through every inspecting command."""
    cmds: list[list[str]] = [["list", "--json"], ["list"], ["targets", "--json"], ["targets"], ["list", USER_FILE]]
    for name in _variants():
        for arch in TARGETS:
            cmds.append(["report", name, "--arch", arch, "--json"])
            cmds.append(["check", name, "--arch", arch, "--json"])
        cmds.append(["report", name, "--arch", "sm_90"])
        cmds.append(["check", name, "--arch", "sm_90"])
        cmds.append(["check", name, "--arch", "sm_90", "--format", "sarif"])
        for stage in ("ttir", "ttgir", "ptx", "sass"):
            cmds.append(["dump", name, "--stage", stage, "--arch", "sm_90", "--loop"])
        cmds.append(["dump", name, "--stage", "amdgcn", "--arch", "gfx942"])
        cmds.append(["html", name, "--arch", "sm_90", "-o", "{tmp}/page.html"])
        cmds.append(["passes", name, "--arch", "sm_90", "--json"])
    for left, right in PAIRS:
        cmds.append(["diff", left, right, "--json"])
        cmds.append(["diff", left, right])
        cmds.append(["diff", left, right, "--stage", "ptx"])
        cmds.append(["diff", left, right, "--format", "markdown"])
        cmds.append(["html", left, right, "-o", "{tmp}/page.html"])
    cmds.append(["diff", "naive", "opt", "--arch", "gfx942", "--json"])
    cmds.append(["report", "opt", "--config", "all", "--arch", "sm_90", "--json"])
    return cmds


def record(out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="ttinspect-record-") as cache_dir:
        env = dict(os.environ, COLUMNS="120", NO_COLOR="1", TTINSPECT_DEBUG="", TTINSPECT_CACHE_DIR=cache_dir)
        for index, cmd in enumerate(commands()):
            _record_one(out_dir, index, cmd, env)


def _record_one(out_dir: Path, index: int, cmd: list[str], env: dict[str, str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        argv = [arg.replace("{tmp}", tmp) for arg in cmd]
        done = subprocess.run([sys.executable, "-m", "ttinspect", *argv], capture_output=True, text=True,
                              cwd=ROOT, env=env)
        page = Path(tmp) / "page.html"
        html = page.read_text() if page.exists() else ""
    out, err = done.stdout.replace(tmp, "{tmp}"), done.stderr.replace(tmp, "{tmp}")
    text = (f"$ ttinspect {' '.join(cmd)}\nexit {done.returncode}\n"
            f"--- stdout\n{out}--- stderr\n{err}--- html\n{html}")
    (out_dir / f"{index:04d}.txt").write_text(text)
    print(f"{index:4d} exit {done.returncode} {' '.join(cmd)}", flush=True)


def compare(old: Path, new: Path) -> int:
    names = sorted({p.name for p in old.glob("*.txt")} | {p.name for p in new.glob("*.txt")})
    different = [n for n in names if not (old / n).exists() or not (new / n).exists()
                 or (old / n).read_bytes() != (new / n).read_bytes()]
    for name in different:
        first = (old / name).read_text().splitlines()[0] if (old / name).exists() else name
        print(f"differs: {name} {first}")
    print(f"{len(names) - len(different)}/{len(names)} outputs byte-identical")
    return 1 if different else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "record":
        record(Path(sys.argv[2]))
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        sys.exit(compare(Path(sys.argv[2]), Path(sys.argv[3])))
    else:
        sys.exit(__doc__)
