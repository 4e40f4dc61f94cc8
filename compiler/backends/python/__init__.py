"""Python backend: IR -> gast -> ast -> astor source, compiled with `exec`."""

from .codegen import compile_graph, graph_to_source

__all__ = ["compile_graph", "graph_to_source"]
