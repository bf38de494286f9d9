"""Registers and spills of every compile in a capture, as the GPU driver reports them for the cubin the run
loaded, beside what ttinspect's offline compile reports (`ttinspect check FILE.ttcap --json`): on the GPU
machine, after the run, with the run's Triton cache still there (scripts/device_issue29_replay.sh).

    python scripts/capture_loaded.py run.ttcap check.json > loaded.json

Each row: the compile, the driver's n_regs and n_spills (Triton's own load_binary: LOCAL_SIZE_BYTES / 4, what
Triton's launcher reports) for the cubin in the run's cache entry, ttinspect's registers and spills, and
whether both agree. A compile whose cache entry or cubin is gone is a row saying so.
"""

from __future__ import annotations

import glob
import json
import os
import sys


def loaded(entry_dir: str) -> dict:
    import torch
    from triton.runtime.driver import driver

    cubins = glob.glob(os.path.join(entry_dir, "*.cubin"))
    if len(cubins) != 1:
        return {"error": f"{len(cubins)} cubin(s) in {entry_dir}"}
    metadata = json.loads(open(cubins[0][:-len(".cubin")] + ".json").read())
    with open(cubins[0], "rb") as handle:
        binary = handle.read()
    device = torch.cuda.current_device()
    _, _, n_regs, n_spills, *_ = driver.active.utils.load_binary(metadata["name"], binary, metadata["shared"], device)
    return {"n_regs": n_regs, "n_spills": n_spills}


def main(capture_path: str, check_path: str) -> int:
    from ttinspect.capture.format import read

    capture = read(capture_path)
    checked = {(row["kernel"], row["number"]): row for row in json.loads(open(check_path).read())["compiles"]}
    rows = []
    for record in capture.compiles:
        row = {"kernel": record.name, "number": record.number}
        mine = checked.get((record.name, record.number), {})
        row.update(offline_registers=mine.get("registers"), offline_spills=mine.get("spills"))
        if not record.triton_cache_dir or not os.path.isdir(record.triton_cache_dir):
            row["error"] = "the run's cache entry is not here"
        else:
            row.update(loaded(record.triton_cache_dir))
        row["equal"] = ("n_regs" in row and row["n_regs"] == row["offline_registers"]
                        and row["n_spills"] == row["offline_spills"])
        rows.append(row)
    equal = sum(row["equal"] for row in rows)
    print(json.dumps({"compiles": len(rows), "equal": equal, "rows": rows}, indent=1))
    print(f"registers and spills equal to the loaded cubin's: {equal} of {len(rows)}", file=sys.stderr)
    return 0 if equal == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
