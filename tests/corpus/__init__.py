"""Whole programs: the scalar and array corpora, the seed examples, random programs, real
programs, ADBench GMM and the regressions of outside audits."""
