"""The version of curllm, in a module of its own: anything may import it without a cycle."""

__version__ = "0.1.0"
