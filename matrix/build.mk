# Build rules for matrix/ (included by the top-level Makefile).
