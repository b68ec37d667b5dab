"""``pytest-skill-lens merge``: shard reports judged again as one run.

Outside pytest (a CI job that only downloads the shards' JSON reports), so nothing
here imports pytest or the plugin: it reads reports (``report.json_read``), merges and
judges them (:mod:`.combine`, with ``gate/``) and writes them with ``report/``.
"""

from __future__ import annotations
