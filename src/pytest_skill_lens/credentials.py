"""Which environment variable names hold a credential: one rule for every place that asks.

A product's ``pass_env`` that names one signs it in; a cassette marker replaces the
values of such variables before it keeps an error line. The words are matched in any
case and anywhere in the name (``OPENAI_API_KEY``, ``GH_TOKEN``, ``DB_PASSWD``,
``BASIC_AUTH``, ``SESSION_COOKIE``); a region or a profile name is not one.
"""

from __future__ import annotations

import re

_CREDENTIAL = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE", re.IGNORECASE)


def names_credential(name: str) -> bool:
    """Whether the variable ``name`` is one whose value is a credential."""
    return _CREDENTIAL.search(name) is not None
