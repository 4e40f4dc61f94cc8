"""Entry point of `python -m benchmarks`: runs every workload and prints ratio tables."""

import sys

if __name__ == "__main__":
    print("no workloads yet: the compiler benchmarks arrive with the LLVM backend")
    sys.exit(0)
