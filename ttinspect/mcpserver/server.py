"""The stdio MCP server (the MCP Python SDK's low-level `Server`): it lists the tools of tools.py and runs each
call in a worker process of its own (worker.py) under the client's roots, within a time limit.

Stdout carries only the protocol: the SDK's stdio transport answers on a private copy of descriptor 1 and
points descriptor 1 at stderr while it serves, and every worker prints to stderr only. The roots are asked of
the client at each call (MCP roots); a client that offers none gets the server's working directory (or
`--root`). Every call's input is checked against its schema, and its output too before it is sent."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sys
import tempfile
import warnings
from dataclasses import dataclass, field
from subprocess import PIPE
from typing import Any
from urllib.parse import unquote, urlparse
from urllib.request import url2pathname

import anyio
import mcp_types as types
from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server

from ttinspect.errors import EXIT_INTERNAL, EXIT_USAGE
from ttinspect.mcpserver.paths import scratch_folder
from ttinspect.mcpserver.tools import BY_NAME, TOOLS

DEFAULT_CALL_TIMEOUT = 300.0
KEEP_STDERR = 64 * 1024  # of a worker's stderr, the last bytes kept for the server's own stderr
CODE_KEYS = ("code", "code_a", "code_b")
INSTRUCTIONS = ("ttinspect compiles Triton kernels for any GPU target without a GPU and says what the compiler did "
                "(facts), what is wrong (check: findings with the fix and the edit it implies) and what changed "
                "(diff). Pass your draft kernel as `code` to any tool that takes a kernel. docs/agents.md")


@dataclass
class Settings:
    call_timeout: float = DEFAULT_CALL_TIMEOUT
    roots: list[str] = field(default_factory=list)  # when the client names none; empty: the working directory
    parallel: int = 2  # calls running at once; more wait their turn
    private_scratch: list[str] = field(default_factory=list)  # a temporary folder made on demand, removed at exit


def tool_error(message: str, exit_code: int) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=f"{message}\nexit code: {exit_code}")],
                                structured_content={"message": message, "exit_code": exit_code}, is_error=True)


def path_of(uri: str) -> str | None:
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return url2pathname(unquote(parsed.path))


async def roots_of(ctx: Any, settings: Settings) -> list[str]:
    """The client's roots (file:// URIs), else --root, else the working directory."""
    capabilities = ctx.session.client_capabilities
    if capabilities is not None and capabilities.roots is not None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # roots are deprecated from protocol 2026-07-28 on; still served
                listed = await ctx.session.list_roots()
            found = [p for p in (path_of(str(root.uri)) for root in listed.roots) if p]
            if found:
                return [os.path.realpath(p) for p in found]
        except Exception as error:  # a client that declared roots but cannot list them: the fallback, said once
            print(f"ttinspect mcp: the client's roots could not be listed ({type(error).__name__}: {error}); "
                  "using the fallback root", file=sys.stderr)
    return [os.path.realpath(p) for p in (settings.roots or [os.getcwd()])]


def scratch_for(roots: list[str], settings: Settings) -> str:
    folder = scratch_folder(roots)
    if folder is not None:
        return str(folder)
    if not settings.private_scratch:
        settings.private_scratch.append(tempfile.mkdtemp(prefix="ttinspect-mcp-"))
    return settings.private_scratch[0]


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


async def _read_all(stream: Any, into: bytearray, keep: int | None = None) -> None:
    async for chunk in stream:
        into.extend(chunk)
        if keep is not None and len(into) > keep:
            del into[:len(into) - keep]


def _forward(tool: str, err: bytearray) -> None:
    """What the worker (the user's code, warnings) wrote to stderr, passed on to the server's stderr."""
    if err.strip():
        text = err.decode(errors="replace").rstrip("\n")
        sys.stderr.write("".join(f"ttinspect mcp [{tool}]: {line}\n" for line in text.split("\n")))
        sys.stderr.flush()


def _last_error_line(err: bytearray) -> str | None:
    lines = [line for line in err.decode(errors="replace").splitlines() if line.startswith("ttinspect: error:")]
    return lines[-1] if lines else None


async def run_worker(tool: str, arguments: dict[str, Any], roots: list[str], scratch: str,
                     timeout: float) -> dict[str, Any]:
    """The worker's outcome; a call past `timeout` ends the worker and every process it started."""
    request = json.dumps({"tool": tool, "arguments": arguments, "roots": roots, "scratch": scratch}).encode()
    env = {**os.environ, "TTINSPECT_OFFLINE": "1"}  # no Triton toolchain is downloaded on an agent's behalf
    process = await anyio.open_process([sys.executable, "-m", "ttinspect.mcpserver.worker"], stdin=PIPE, stdout=PIPE,
                                       stderr=PIPE, cwd=roots[0], env=env, start_new_session=True)
    out, err = bytearray(), bytearray()
    finished = False
    try:
        with anyio.move_on_after(timeout):
            async with anyio.create_task_group() as group:
                group.start_soon(_read_all, process.stdout, out)
                group.start_soon(_read_all, process.stderr, err, KEEP_STDERR)
                assert process.stdin is not None
                await process.stdin.send(request)
                await process.stdin.aclose()
            await process.wait()
            finished = True
    finally:
        _kill_group(process.pid)  # on time out or cancel; after a normal end, what the call left running
        with anyio.CancelScope(shield=True):
            await process.wait()
        _forward(tool, err)
    if not finished:
        return {"ok": False, "exit_code": EXIT_USAGE,
                "message": f"ttinspect: error: the call ran past its time limit of {timeout:g} s and was stopped "
                           "(`ttinspect mcp --call-timeout SECONDS` sets another)"}
    try:
        outcome = json.loads(out.decode())
    except ValueError:
        code = process.returncode if process.returncode and process.returncode > 0 else EXIT_INTERNAL
        ended = (f"ttinspect: error: the call's process ended with exit code {process.returncode} and no answer "
                 "(its stderr is in the server's log)")
        return {"ok": False, "exit_code": code, "message": _last_error_line(err) or ended}
    if not isinstance(outcome, dict):
        return {"ok": False, "exit_code": EXIT_INTERNAL,
                "message": "ttinspect: internal error: the worker's answer is not an object"}
    return outcome


def make_server(settings: Settings) -> Server:
    limiter = anyio.CapacityLimiter(max(1, settings.parallel))
    inputs = {tool.name: Draft202012Validator(tool.input_schema) for tool in TOOLS}
    outputs = {tool.name: Draft202012Validator(tool.output_schema) for tool in TOOLS}

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[
            types.Tool(name=tool.name, title=tool.title, description=tool.description, input_schema=tool.input_schema,
                       output_schema=tool.output_schema,
                       annotations=types.ToolAnnotations(title=tool.title, read_only_hint=tool.read_only,
                                                         destructive_hint=False, open_world_hint=False))
            for tool in TOOLS])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        name, arguments = params.name, dict(params.arguments or {})
        if name not in BY_NAME:
            return tool_error(f"ttinspect: error: unknown tool {name!r}; known: {', '.join(BY_NAME)}", EXIT_USAGE)
        wrong = best_match(inputs[name].iter_errors(arguments))
        if wrong is not None:
            where = ".".join(str(p) for p in wrong.absolute_path) or "arguments"
            return tool_error(f"ttinspect: error: {name}: {where}: {wrong.message}", EXIT_USAGE)
        roots = await roots_of(ctx, settings)
        scratch = scratch_for(roots, settings) if any(key in arguments for key in CODE_KEYS) else roots[0]
        async with limiter:
            outcome = await run_worker(name, arguments, roots, scratch, settings.call_timeout)
        if not outcome.get("ok"):
            return tool_error(str(outcome.get("message")), int(outcome.get("exit_code", EXIT_INTERNAL)))
        data = outcome["data"]
        wrong = best_match(outputs[name].iter_errors(data))
        if wrong is not None:  # a bug of ours: said as one, never sent as a result that breaks the schema
            return tool_error(f"ttinspect: internal error: {name}'s result does not fit its schema: {wrong.message}",
                              EXIT_INTERNAL)
        return types.CallToolResult(content=[types.TextContent(text=str(outcome.get("summary", ""))),
                                             types.TextContent(text=json.dumps(data, indent=1))],
                                    structured_content=data)

    return Server("ttinspect", version=_version(), instructions=INSTRUCTIONS, on_list_tools=list_tools,
                  on_call_tool=call_tool)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version  # once, at start

    try:
        return version("ttinspect")
    except PackageNotFoundError:
        return "0"


def serve(settings: Settings) -> None:
    """Serve on stdin/stdout until the client closes them."""
    server = make_server(settings)

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    try:
        anyio.run(main)
    finally:
        for folder in settings.private_scratch:
            shutil.rmtree(folder, ignore_errors=True)


__all__ = ["Settings", "serve", "make_server", "DEFAULT_CALL_TIMEOUT"]
