"""The LLVM and Python backends and native code: code generation, AOT kernels, entry points,
threads, processes, the disk cache, Dask."""
