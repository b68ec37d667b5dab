"""The skill's history in git: its previous version (the ``previous`` baseline) and whether it
changed since a ref (``--skill-lens-changed``)."""
