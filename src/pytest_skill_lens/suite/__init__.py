"""The eval-file world as data: no pytest, no agent frameworks."""
