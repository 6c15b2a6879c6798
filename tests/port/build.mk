# A maintainer's git tree and kmatrix port on a small repository made on the
# spot (tests/port/run.sh): clean, 3-way and conflicting patches, the draft,
# run refusing it, their repository unchanged; about half a minute.
.PHONY: check-port
check-unit: check-port
check-port: $(B)/kmatrix
	tests/port/run.sh $(CURDIR)/$(B)/kmatrix
