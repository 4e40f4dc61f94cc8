"""The compiler's structure: IR round trips and verifier, the pipeline and `show`, the marks
optimisations leave, import layers, logging, import-time work."""
