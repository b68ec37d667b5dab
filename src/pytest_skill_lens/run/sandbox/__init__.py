"""The OS sandbox: one bubblewrap builder, and the decisions for bundled scripts and products."""
