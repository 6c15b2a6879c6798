# Test targets (included by the top-level Makefile).
