"""The files a case's agent reaches: its workspace and the skill's bundle, every path contained."""
