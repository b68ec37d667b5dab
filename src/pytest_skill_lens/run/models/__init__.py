"""The model side of a keyed run: providers and endpoints, prices and where they came from,
retries, and the system prompt."""
