"""The words for how a case ended and which arm ran it.

Top level, next to settings.py, because both are shared from score/ (which
decides a status) up to gate/ and plugin/ (which read arms), and neither
belongs to any one layer.
"""

from __future__ import annotations

from typing import Literal

Status = Literal["passed", "failed", "errored"]
Arm = Literal["candidate", "baseline"]
