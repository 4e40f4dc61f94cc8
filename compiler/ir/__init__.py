"""The IR: types, variables, equations and graphs (`core`), the primitive table
(`primitive`), and the tools every layer above uses on graphs (builder, printer, parser,
verifier, reference evaluator, transforms). Importing the package does nothing more."""
