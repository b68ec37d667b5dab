"""Starting a program and bounding it: the process layer, its output pipes, and the temporary
directories a run owns (their one parent, and the sweep of those a dead run left)."""
