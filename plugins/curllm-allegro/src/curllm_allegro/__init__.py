"""curllm-allegro: allegro.pl tools for curllm (``extraction.products_allegro``, ``validation.allegro_smart_only``)."""

__version__ = "0.1.0"
