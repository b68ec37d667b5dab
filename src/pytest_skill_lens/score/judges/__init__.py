"""The built-in LLM judges (``pydantic-ai``, ``langchain``) and what they share."""
