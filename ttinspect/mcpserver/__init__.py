"""`ttinspect mcp`: a Model Context Protocol server whose tools are ttinspect's commands (docs/agents.md).

- `tools`: each tool's name, description and JSON schemas (input and structured output), as data;
- `paths`: the client's roots, what may be read or written under them, and the agent's drafts (code as text);
- `calls`, `calls_compare`, `edits`, `summaries`: what each tool does, with the library functions the CLI
  calls, and the short text beside its JSON;
- `worker`: one tool call in a process of its own (bounded in time, its prints kept off the protocol);
- `server`: the stdio server itself (the MCP Python SDK, the optional extra `ttinspect[mcp]`).
"""
