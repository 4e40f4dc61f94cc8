"""Helpers the tests share (not tests): example functions the compiler reads from source, corpora,
the op table, reference gradients, import graphs."""
