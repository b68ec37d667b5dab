"""The authoring tools' logic: the ``init`` scaffold, the ``mcp-import`` listing reader and
the ``convert`` reader of ``evals.json`` files in other layouts.

Everything here is a function of its input (and, for ``convert``, of the files an
``evals.json`` names); it writes nothing and prints nothing, which is ``cli/``'s job. It
imports ``suite/`` only, so the YAML it produces is checked by the loader that will read it.
"""
