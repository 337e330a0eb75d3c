"""The allocator settings shared/peerbench's harness gives every peer (its README, "glibc
malloc"): the one definition that benches/peer_table.py and benches/python_peers.py run with."""

MALLOC_ENV = {"MALLOC_MMAP_THRESHOLD_": str(32 << 20), "MALLOC_TRIM_THRESHOLD_": str(1 << 30)}
