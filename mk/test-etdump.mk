# The etdump unit group runs zoo models, so it links the kernel library (like kernels_*).
UNIT_etdump_EXTRA_LIBS = $(KERNELS_LINK)
UNIT_etdump_EXTRA_DEPS = $(KERNELS_LIBS)
$(O)/test/unit/etdump/test_etdump: $(KERNELS_LIBS)
