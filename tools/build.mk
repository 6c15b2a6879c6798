# Build rules for tools/ (included by the top-level Makefile).
