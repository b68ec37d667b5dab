"""Executing one case: results, runners, tools, workspaces."""
