"""Each `check` finding of a capture whose fix is a setting (`--set maxnreg=255`, "Set num_warps=4"), measured:
`ttinspect bench FILE.ttcap:KERNEL#N FILE.ttcap:KERNEL#N:KEY=VALUE` on this GPU — the captured launch replayed
beside the fix, the fix's result compared with the original's (docs/check.md, docs/capture.md).

    python scripts/capture_fixes.py run.ttcap check.json > fixes.json

A fix that is a code change (a `tl.range` loop, tensor descriptors) is listed with `measured: false`: a replay
changes launch settings, not the kernel's source.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

# "`--set maxnreg=255`", "--set num_warps=32", "Set num_warps=4."
SETTING = re.compile(r"(?:--set |\bSet )(?P<key>num_warps|num_stages|maxnreg|num_ctas)=(?P<value>\d+)")


def main(capture: str, check_path: str) -> int:
    rows = []
    for compile_row in json.loads(open(check_path).read())["compiles"]:
        if not compile_row.get("launches"):
            continue  # compiled and never launched (an autotuner's losing config): nothing to replay
        ref = f"{capture}:{compile_row['kernel']}#{compile_row['number']}"
        for finding in compile_row.get("findings") or []:
            settings = sorted({(m["key"], m["value"]) for m in SETTING.finditer(finding.get("fix") or "")})
            row = {"ref": ref, "finding": finding["id"], "title": finding["title"], "settings": settings}
            if not settings:
                rows.append({**row, "measured": False})
                continue
            variants = [f"{ref}:{key}={value}" for key, value in settings]
            done = subprocess.run([sys.executable, "-m", "ttinspect", "bench", ref, *variants, "--json"],
                                  capture_output=True, text=True, timeout=600)
            if done.returncode:
                rows.append({**row, "measured": False, "error": (done.stderr or done.stdout).strip()[-600:]})
                continue
            rows.append({**row, "measured": True, "bench": json.loads(done.stdout)})
            for replay in rows[-1]["bench"]["replays"]:
                print(f"{finding['id']} {replay['label']}: {replay['ms']:.4f} ms ({replay['ratio_to_first']:.2f}x), "
                      f"max |d| {replay['max_abs_diff']}", file=sys.stderr)
    print(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
