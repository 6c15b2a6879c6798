# Build rules for guest-tests/ (included by the top-level Makefile).
