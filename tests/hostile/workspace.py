"""The sentinel: a folder of a user's files, as hostile as a real one gets — kernel files with `:` `@` and
spaces in their names, files that misbehave at import, links (to files, to nothing, to themselves), a FIFO
and a folder named like Python files, the user's data in folders named like ttinspect's cache, a Triton
cache with a broken entry. Every case runs in it; none may change a byte of it."""

from __future__ import annotations

import os
from pathlib import Path

KERNEL = '''import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.jit
def bad_kernel(x_ptr, BLOCK: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK), 1.0)


NOT_A_KERNEL = 3
TTINSPECT_EXAMPLES = {
    "small": {"kernel": add_kernel, "signature": "*fp32:16, *fp32:16, *fp32:16, i32:16", "config": {"BLOCK": 256}},
    "odd": {"kernel": bad_kernel, "signature": "*fp32:16", "config": {"BLOCK": 100}},
}
'''

# Files that misbehave when imported: (folder name, the lines put before the kernel).
MISBEHAVING = {
    "os_exit_7": "import os\nos._exit(7)\n",
    "os_exit_0": "import os\nos._exit(0)\n",
    "os_abort": "import os\nos.abort()\n",
    "sys_exit_0": "import sys\nsys.exit(0)\n",
    "sys_exit_3": "import sys\nsys.exit(3)\n",
    "sys_exit_text": "import sys\nsys.exit('bye')\n",
    "raises_value_error": "raise ValueError('the file refuses')\n",
    "raises_system_error": "raise SystemError('odd')\n",
    "divides_by_zero": "x = 1 / 0\n",
    "recursion": "def f():\n    return f()\n\n\nf()\n",
    "raises_memory_error": "raise MemoryError()\n",
    "missing_module": "import a_module_nobody_has\n",
    "missing_helper": "from helpers_missing import something\n",
    "asks_the_gpu": "import triton\ntriton.runtime.driver.active.get_current_target()\n",
    # a stream is answered at import (nothing launches there); timing a kernel only a GPU can
    "asks_what_no_device_knows": "import triton\ntriton.runtime.driver.active.get_benchmarker()(lambda: None)\n",
    "closes_stdout": "import sys\nsys.stdout.close()\n",
    "closes_stderr": "import sys\nsys.stderr.close()\n",
    "stdout_none": "import sys\nsys.stdout = None\n",
    "syntax_error": "def broken(:\n",
    "null_byte": "x = 1\x00\n",
    "latin1_bytes": "# caf\xe9\n",
}
# Files that misbehave and still give a kernel (shadowing names, printing): (folder, {file: text}).
HARMLESS = {
    "shadows_rich": {"rich.py": "raise ImportError('the user rich.py')\n"},
    "shadows_triton": {"triton.py": "x = 1\n"},
    "shadows_click": {"click.py": "raise ImportError('the user click.py')\n"},
    "shadows_pygments": {"pygments.py": "raise ImportError('the user pygments.py')\n"},
    "chdir_at_import": {"k_prefix": "import os\nos.chdir('/')\n"},
    "prints_at_import": {"k_prefix": "print('hello from the user file')\n"},
}


def make(root: Path) -> Path:
    """Build the sentinel folder under root; returns it."""
    ws = root / "ws"
    ws.mkdir()
    for name in ("add.py", "co:lon.py", "at@sign.py", "sp ace.py", "ünïcode.py", "sub/deeper/add.py"):
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text(KERNEL)
    (ws / "notes.txt").write_text("the user's notes\n")
    (ws / "real.html").write_text("<p>the user's page</p>\n")
    (ws / "link.html").symlink_to("real.html")
    (ws / "dangling.html").symlink_to("nowhere.html")
    (ws / "real.png").write_bytes(b"\x89PNG the user's picture")
    (ws / "link.png").symlink_to("real.png")
    (ws / "dangling.png").symlink_to("nowhere.png")
    os.mkfifo(ws / "fifo.png")
    (ws / "dangling.py").symlink_to("nowhere.py")
    (ws / "loop.py").symlink_to("loop.py")
    os.mkfifo(ws / "fifo.html")
    os.mkfifo(ws / "fifo.py")
    (ws / "dir.py").mkdir()
    (ws / "adir").mkdir()
    (ws / "readonly.txt").write_text("read only\n")
    (ws / "readonly.txt").chmod(0o444)
    # the user's data in a folder laid out like ttinspect's cache (derived/, refs/, a 2-hex folder)
    data = ws / "userdata"
    for name, text in (("derived/mydata.csv", "a,b\n1,2\n"), ("refs/bib.json", "{}\n"), ("ab/keep.txt", "mine\n"),
                       ("notes.md", "# mine\n")):
        (data / name).parent.mkdir(parents=True, exist_ok=True)
        (data / name).write_text(text)
    # a home folder of dotfiles only: not ttinspect's, though every name starts with "."
    for name in (".profile", ".ssh/id_ed25519", ".config/app/settings"):
        (ws / "home" / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / "home" / name).write_text("the user's\n")
    # dump --all targets: a folder whose kernel.ptx is a link, one whose kernel.ttir is a FIFO
    (ws / "out_link").mkdir()
    (ws / "out_link" / "kernel.ptx").symlink_to("../notes.txt")
    (ws / "out_fifo").mkdir()
    os.mkfifo(ws / "out_fifo" / "kernel.ttir")
    (ws / "out_full").mkdir()
    (ws / "out_full" / "kernel.ptx").write_text("the user's old dump\n")
    for folder, prefix in MISBEHAVING.items():
        (ws / "imports" / folder).mkdir(parents=True)
        encoding = "latin-1" if folder == "latin1_bytes" else "utf-8"
        (ws / "imports" / folder / "k.py").write_bytes((prefix + KERNEL).encode(encoding))
    for folder, files in HARMLESS.items():
        (ws / "imports" / folder).mkdir(parents=True)
        prefix = files.get("k_prefix", "")
        (ws / "imports" / folder / "k.py").write_text(prefix + KERNEL)
        for name, text in files.items():
            if name != "k_prefix":
                (ws / "imports" / folder / name).write_text(text)
    # a Triton cache: an empty one, one with the user's files only, one entry without its metadata
    (ws / "tc_empty").mkdir()
    broken = ws / "tc_broken" / ("B" * 52)
    broken.mkdir(parents=True)
    for name in ("__grp__k.json", "k.ptx", "k.ttir"):
        (broken / name).write_text("{}\n" if name.endswith(".json") else "// the rest is gone\n")
    garbage = ws / "tc_garbage" / ("G" * 52)
    garbage.mkdir(parents=True)
    (garbage / "k.json").write_text("{not json")
    (garbage / "k.ptx").write_text("// ptx\n")
    return ws
