"""`python -m ringbus.bench`: end-to-end latency between two Python processes, ringbus
against multiprocessing.Queue, multiprocessing.shared_memory with Events, and pyzmq over
ipc://, for 64 B and 1 MiB numpy payloads (see ``__main__``)."""
