"""adlite.compiler: Python source -> static IR -> adjoint IR -> native code (in progress)."""
