"""The MCP bridge: a case's mock tools served to an agent product over stdio.

``python -m pytest_skill_lens.mcp_bridge --spec FILE --calls FILE`` is a Model
Context Protocol server (JSON-RPC 2.0, one message a line) that the product starts
itself. It lists the case's tools and answers every call by the rules of
:mod:`pytest_skill_lens.run.tools.mocktools`, the same code every other runner uses, and
appends what it served to the calls file so the runner can read it back. It is
built on the standard library: it starts once per session of every case, and the
``mcp`` SDK's server import alone costs seconds (``benchmarks/mcp_bridge_start.py``).

Importing this package starts nothing. The harness side is
:mod:`pytest_skill_lens.run.tools.bridge_config`; the files both sides read and write
(:mod:`~pytest_skill_lens.run.tools.bridge_spec`,
:mod:`~pytest_skill_lens.run.tools.bridge_calls`) are in ``run/tools/`` beside the mock
tools, below both, so ``run/`` never imports this package.
"""

from __future__ import annotations
