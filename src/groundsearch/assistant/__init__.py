"""The grounded conversational assistant: dossier (no LLM), tools, a turn loop, persistence (docs/assistant.md)."""
