"""Gemini CLI, described: the real ``gemini``, headless, with skills in ``.gemini/skills``.

Its trace (``--output-format stream-json``) is read by :mod:`.gemini_cli_trace`. A
skill's load is the model's ``activate_skill`` call that the product reports as a
success; a case's ``tools:`` reach it as the MCP server ``skill-lens``, whose tools
it names ``mcp_skill-lens_<tool>``.
"""

from __future__ import annotations

from ...mcp_bridge.dispatch import SERVER_NAME

PRODUCT = "gemini-cli"
SKILL_TOOL = "activate_skill"
MCP_PREFIX = f"mcp_{SERVER_NAME}_"  # how Gemini CLI names a tool of the bridge's server
ENDPOINT_VARIABLE = "GOOGLE_GEMINI_BASE_URL"
