"""Example code that README and docs name (``examples.my_agents:MyAgent``); importable from the repository root."""
