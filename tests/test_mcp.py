"""`ttinspect mcp` with a real client: the MCP SDK's own stdio client starts `python -m ttinspect mcp` (one server
for the module, in a tmp_path root with tiny kernel files), lists the tools, calls each on cheap inputs, checks
their structured results, text summaries and errors, and plays the scenario of docs/agents.md: a draft matmul
whose K loop is not pipelined -> check names it with the fix -> the edit -> check clean -> diff shows the depth."""

from __future__ import annotations

import asyncio
import os
import sys
import textwrap
import threading
from pathlib import Path

import pytest

mcp = pytest.importorskip("mcp", reason="the MCP SDK (pip install 'ttinspect[mcp]')")
types = pytest.importorskip("mcp_types")
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

TINY = '''\
import subprocess
import sys
import threading

import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


# what a user's file may print while it is imported: none of it may reach the protocol (stdout)
print("tiny.py: a print at import")
threading.Thread(target=print, args=("tiny.py: a thread's print",)).start()
subprocess.run([sys.executable, "-c", "print('tiny.py: a child process prints to its stdout')"])

TTINSPECT_EXAMPLES = {"small": {"kernel": add_kernel, "args": {"x_ptr": "*fp32", "y_ptr": "*fp32",
                                                               "out_ptr": "*fp32", "n": 4096},
                                "config": {"BLOCK": 1024}}}
'''

# The agent's draft (docs/agents.md's scenario): the K loop asks for one stage, so the launch's num_stages=3 is lost.
DRAFT = '''\
import triton
import triton.language as tl


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, K, stride_am, stride_bk, stride_cm,
           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, K, BLOCK_K, num_stages=1):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], acc.to(tl.float16))
'''
LAUNCH = {"signature": "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 64, 64, 32",
          "settings": {"num_stages": 3}, "arch": "sm_90"}
LOOP_LINE = 1 + DRAFT.split("\n").index("    for k in tl.range(0, K, BLOCK_K, num_stages=1):")
DOT_LINE = LOOP_LINE + 1


class Client:
    """The SDK's stdio client on an event loop of its own thread: one server for many (synchronous) tests."""

    def __init__(self, cwd: Path, roots: list[Path] | None, *extra: str):
        self.roots = roots
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.params = StdioServerParameters(command=sys.executable, args=["-m", "ttinspect", "mcp", *extra],
                                            env=dict(os.environ), cwd=str(cwd))
        self.ready = asyncio.run_coroutine_threadsafe(self._ready_event(), self.loop).result(10)
        self.done = asyncio.run_coroutine_threadsafe(self._run(), self.loop)
        asyncio.run_coroutine_threadsafe(self.ready.wait(), self.loop).result(120)

    async def _ready_event(self):
        self.stop = asyncio.Event()
        return asyncio.Event()

    async def _list_roots(self, context):
        return types.ListRootsResult(roots=[types.Root(uri=root.as_uri(), name=root.name) for root in self.roots or []])

    async def _run(self):
        callback = self._list_roots if self.roots is not None else None
        async with stdio_client(self.params) as (read, write):
            async with ClientSession(read, write, list_roots_callback=callback) as session:
                await session.initialize()
                self.session = session
                self.ready.set()
                await self.stop.wait()

    def run(self, coroutine, timeout: float = 300):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def call(self, name: str, arguments: dict, timeout: float = 300):
        return self.run(self.session.call_tool(name, arguments), timeout)

    def ok(self, name: str, arguments: dict) -> dict:
        result = self.call(name, arguments)
        assert not result.is_error, result.content[0].text
        assert result.content[0].text.strip()  # the short summary first, the JSON after it
        assert isinstance(result.structured_content, dict)
        return result.structured_content

    def error(self, name: str, arguments: dict) -> tuple[str, int]:
        result = self.call(name, arguments)
        assert result.is_error, result.content[0].text
        text = result.content[0].text
        assert text.startswith("ttinspect: error: ") and "\n" not in text.split("\nexit code:")[0], text
        return text, result.structured_content["exit_code"]

    def close(self):
        self.loop.call_soon_threadsafe(self.stop.set)
        self.done.result(60)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("root")
    (folder / "tiny.py").write_text(TINY)
    return folder


@pytest.fixture(scope="module")
def client(root):
    elsewhere = root.parent / "server-cwd"
    elsewhere.mkdir(exist_ok=True)
    started = Client(elsewhere, [root])  # the roots come from the client, not the server's working directory
    yield started
    started.close()


def test_every_tool_is_listed_with_both_schemas(client):
    tools = {tool.name: tool for tool in client.run(client.session.list_tools()).tools}
    assert set(tools) == {"list_kernels", "list_capture", "report", "dump", "export_stages", "diff", "check", "sweep"}
    for tool in tools.values():
        assert tool.input_schema["type"] == "object" and tool.output_schema["type"] == "object", tool.name
        assert tool.description
    assert "kernel" in tools["report"].input_schema["properties"]
    assert "code" in tools["check"].input_schema["properties"]


def test_list_kernels(client):
    shipped = client.ok("list_kernels", {})
    assert {"naive", "opt"} <= {row["name"] for row in shipped["variants"]}
    listing = client.ok("list_kernels", {"file": "tiny.py"})  # relative to the first root
    assert [k["name"] for k in listing["kernels"]] == ["add_kernel"]
    assert [e["name"] for e in listing["examples"]] == ["small"]


def test_report_and_dump(client):
    facts = client.ok("report", {"kernel": "tiny.py:small", "arch": "sm_90"})
    assert facts["target"] == "sm_90" and facts["config"]["BLOCK"] == 1024
    assert facts["facts"]["tensor_core_path"]["value"] == "none"
    loop = client.ok("dump", {"kernel": "opt", "arch": "sm_90", "stage": "ptx", "loop": True, "max_lines": 12})
    assert loop["selection"].startswith("main loop") and loop["truncated"] and loop["next_line"]
    assert len(loop["text"].split("\n")) == 12
    page = client.ok("dump", {"kernel": "opt", "arch": "sm_90", "stage": "ptx", "loop": True,
                              "first_line": loop["next_line"], "max_lines": 3})
    assert page["first_line"] == loop["next_line"]


def test_sweep_and_export(client, root):
    swept = client.ok("sweep", {"kernel": "tiny.py:small", "arch": "sm_90", "grid": {"BLOCK": [256, 512]},
                                "jobs": 1})
    assert swept["points"] == 2 and {row["point"]["BLOCK"] for row in swept["rows"]} == {256, 512}
    written = client.ok("export_stages", {"kernel": "tiny.py:small", "arch": "sm_90", "out": "stages"})
    assert (root / "stages" / "metadata.json").is_file() and written["written"]


def test_list_capture_refuses_what_is_not_one(client):
    text, code = client.error("list_capture", {"capture": "tiny.py"})
    assert code == 2 and "not a capture" in text


def test_errors_carry_the_clis_line_and_exit_code(client, root):
    text, code = client.error("report", {"kernel": "nope"})
    assert code == 2 and "unknown variant 'nope'" in text
    outside = root.parent / "outside.py"
    outside.write_text(TINY)
    for tool, arguments in [("report", {"kernel": f"{outside}:add_kernel"}), ("list_kernels", {"file": str(outside)}),
                            ("report", {"kernel": "../outside.py:add_kernel"}),
                            ("export_stages", {"kernel": "opt", "out": str(root.parent / "out")})]:
        text, code = client.error(tool, arguments)
        assert code == 2 and "outside the client's roots" in text, (tool, text)
    text, code = client.error("report", {"kernel": "opt", "arch": 90})  # refused by the input schema
    assert code == 2 and "arch" in text


def test_scenario_draft_not_pipelined_then_fixed(client, root):
    found = client.ok("check", {"kernel": "matmul", "code": DRAFT, **LAUNCH})
    tti001 = [f for f in found["findings"] if f["id"] == "TTI001"]
    assert tti001, found["findings"]
    finding = tti001[0]
    assert "num_stages=1" in finding["fix"] and finding["severity"] == "warning"
    assert finding["edit"]["kind"] == "code"
    assert LOOP_LINE in [line["line"] for line in finding["edit"]["lines"]]  # a line of the agent's own text
    assert "num_stages=1" in next(line["text"] for line in finding["edit"]["lines"] if line["line"] == LOOP_LINE)
    assert Path(finding["edit"]["file"]).read_text() == DRAFT
    assert Path(finding["edit"]["file"]).is_relative_to(root)  # the drafts' scratch folder is in the first root
    dot = client.ok("dump", {"kernel": "matmul", "code": DRAFT, **LAUNCH, "stage": "ttgir", "python_line": DOT_LINE})
    assert dot["lines"] and "dot" in dot["text"]

    edited = DRAFT.replace("tl.range(0, K, BLOCK_K, num_stages=1)", "tl.range(0, K, BLOCK_K)")
    clean = client.ok("check", {"kernel": "matmul", "code": edited, **LAUNCH})
    assert not [f for f in clean["findings"] if f["id"] == "TTI001"], clean["findings"]
    changed = client.ok("diff", {"a": "matmul", "code_a": DRAFT, "b": "matmul", "code_b": edited, **LAUNCH})
    depth = next(c for c in changed["changes"] if c["key"] == "pipeline_depth")
    assert (depth["a"], depth["b"]) == (1, 3)
    summary = client.call("diff", {"a": "matmul", "code_a": DRAFT, "b": "matmul", "code_b": edited, **LAUNCH})
    assert "pipeline_depth: 1 -> 3" in summary.content[0].text


def test_no_roots_means_the_working_directory_and_calls_are_bounded(root, tmp_path):
    (tmp_path / "slow.py").write_text(textwrap.dedent("""\
        import time
        time.sleep(60)
    """))
    plain = Client(tmp_path, None, "--call-timeout", "3")
    try:
        text, code = plain.error("list_kernels", {"file": str(root / "tiny.py")})  # root is not this server's
        assert "outside the client's roots" in text and code == 2
        text, code = plain.error("list_kernels", {"file": "slow.py"})
        assert "time limit of 3 s" in text and code == 2
        assert plain.ok("list_kernels", {})["variants"]  # the server lives on
    finally:
        plain.close()


def test_stdout_carries_only_the_protocol(root):
    """A raw JSON-RPC session over pipes: every line on stdout is a JSON-RPC message, while the user's file prints
    (a print, a thread's print, a child process's) at import; those land on stderr."""
    import json
    import select
    import subprocess

    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "list_kernels",
                                                                       "arguments": {"file": "tiny.py"}}},
    ]
    server = subprocess.Popen([sys.executable, "-m", "ttinspect", "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, cwd=root, env=dict(os.environ))
    try:
        server.stdin.write("".join(json.dumps(m) + "\n" for m in messages))
        server.stdin.flush()  # kept open until the answer came: a closed stdin ends the session
        lines = []
        while not any(line.get("id") == 2 for line in lines):
            ready, _, _ = select.select([server.stdout], [], [], 120)
            assert ready, "no answer within 120 s"
            text = server.stdout.readline()
            assert text, "the server ended without answering"
            lines.append(json.loads(text))  # each line one JSON-RPC message
        server.stdin.close()
        server.wait(60)
        rest, err = server.stdout.read(), server.stderr.read()
    finally:
        if server.poll() is None:
            server.kill()
    assert not rest.strip() or all(json.loads(line) for line in rest.splitlines())
    assert all(line.get("jsonrpc") == "2.0" for line in lines), lines
    answer = next(line for line in lines if line.get("id") == 2)
    assert not answer["result"].get("isError") and answer["result"]["structuredContent"]["kernels"]
    assert "a print at import" in err and "a child process prints" in err and "a thread's print" in err


def test_without_the_extra_one_line_says_how_to_install_it(tmp_path):
    import subprocess

    code = ("import sys; sys.modules['mcp'] = None; sys.argv = ['ttinspect', 'mcp']; "
            "from ttinspect.cli.main import main; main()")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=60,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "ttinspect: error: `ttinspect mcp` needs the MCP Python SDK: pip install 'ttinspect[mcp]'"]
