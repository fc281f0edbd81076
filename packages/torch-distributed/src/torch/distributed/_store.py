"""Key-value stores for the rendezvous of ``init_process_group`` (``tcp://``, ``env://`` and
``file://``).

They only carry a few small keys while the processes meet (the MPI port name, who has
joined); every collective runs over MPI. Values are bytes (``str`` is encoded as UTF-8).

Wire format of :class:`TCPStore` (one request, one reply, on a persistent connection): a
4-byte big-endian length, then a pickled tuple. Only processes of the same job talk to it,
as in PyTorch, whose store is equally trusted.
"""

import fcntl
import json
import pickle
import socket
import struct
import threading
import time
from datetime import timedelta

__all__ = ["FileStore", "Store", "TCPStore"]


def _seconds(timeout):
    return timeout.total_seconds() if isinstance(timeout, timedelta) else float(timeout)


def _bytes(value):
    return value.encode() if isinstance(value, str) else bytes(value)


class Store:
    """The interface: ``set``, ``get`` (waits for the key), ``add`` (an atomic counter),
    ``wait`` and ``check``. Subclasses implement ``_set``, ``_get`` (None when missing)
    and ``add``."""

    def __init__(self, timeout=timedelta(seconds=300)):
        self.timeout = _seconds(timeout)

    def set(self, key, value):
        """Store ``value`` (bytes or str) under ``key``, replacing any earlier value."""
        self._set(key, _bytes(value))

    def get(self, key):
        """The value of ``key`` as bytes, waiting up to the store's timeout for it to be set."""
        self.wait([key])
        return self._get(key)

    def check(self, keys):
        """True when every key in ``keys`` is set (does not wait)."""
        return all(self._get(k) is not None for k in keys)

    def wait(self, keys, timeout=None):
        """Wait until every key in ``keys`` is set; raise ``TimeoutError`` after ``timeout``
        seconds (the store's own timeout by default)."""
        limit = self.timeout if timeout is None else _seconds(timeout)
        deadline = time.monotonic() + limit
        pause = 0.001
        while not self.check(keys):
            if time.monotonic() > deadline:
                missing = [k for k in keys if self._get(k) is None]
                raise TimeoutError(
                    f"torch.distributed store: keys {missing} were not set within {limit:g} s "
                    "(did every rank call init_process_group with the same init_method?)"
                )
            time.sleep(pause)
            pause = min(pause * 2, 0.05)


class _Server(threading.Thread):
    """The TCPStore's server: a daemon thread in the process that hosts the store."""

    def __init__(self, sock):
        super().__init__(daemon=True, name="torch.distributed.TCPStore")
        self.sock = sock
        self.data = {}
        self.lock = threading.Lock()

    def run(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return  # the listening socket was closed
            threading.Thread(target=self.serve, args=(conn,), daemon=True).start()

    def serve(self, conn):
        with conn:
            while True:
                try:
                    request = _recv(conn)
                except (OSError, EOFError):
                    return
                _send(conn, self.handle(*request))

    def handle(self, op, key, value=None):
        with self.lock:
            if op == "set":
                self.data[key] = value
                return None
            if op == "get":
                return self.data.get(key)
            if op == "add":
                total = int(self.data.get(key, b"0")) + value
                self.data[key] = str(total).encode()
                return total
        raise ValueError(f"TCPStore: unknown request {op!r}")


def _send(conn, obj):
    data = pickle.dumps(obj)
    conn.sendall(struct.pack(">I", len(data)) + data)


def _recv_exact(conn, n):
    chunks = []
    while n:
        chunk = conn.recv(n)
        if not chunk:
            raise EOFError("TCPStore: connection closed")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _recv(conn):
    (n,) = struct.unpack(">I", _recv_exact(conn, 4))
    return pickle.loads(_recv_exact(conn, n))


class TCPStore(Store):
    """A key-value store served over TCP by the process created with ``is_master=True``
    (rank 0 in ``init_process_group``); the others connect to ``host_name:port``, retrying
    until ``timeout``.  ``port=0`` on the master picks a free port (see ``.port``)."""

    def __init__(self, host_name, port, world_size=None, is_master=False,
                 timeout=timedelta(seconds=300), wait_for_workers=True):  # fmt: skip
        super().__init__(timeout)
        self.host = host_name
        self._server = None
        if is_master:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind(("", int(port)))
            except OSError as e:
                sock.close()
                raise RuntimeError(
                    f"TCPStore: cannot listen on port {port} ({e}); pick another MASTER_PORT"
                ) from None
            sock.listen(128)
            self._server = _Server(sock)
            self._server.start()
            port = sock.getsockname()[1]
        self.port = int(port)
        self._conn = self._connect()
        self._lock = threading.Lock()

    def _connect(self):
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                conn = socket.create_connection((self.host, self.port), timeout=self.timeout)
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                return conn
            except OSError as e:
                if time.monotonic() > deadline:
                    raise TimeoutError(
                        f"TCPStore: cannot reach {self.host}:{self.port} within "
                        f"{self.timeout:g} s ({e}): is rank 0 running, and MASTER_ADDR/"
                        "MASTER_PORT (or the tcp:// address) the same on every rank?"
                    ) from None
                time.sleep(0.05)

    def _request(self, *request):
        with self._lock:
            _send(self._conn, request)
            return _recv(self._conn)

    def _set(self, key, value):
        self._request("set", key, value)

    def _get(self, key):
        return self._request("get", key)

    def add(self, key, amount):
        """Add ``amount`` to the integer stored under ``key`` (0 if unset); returns the sum."""
        return self._request("add", key, int(amount))

    def close(self):
        """Close the connection (and, on the master, stop serving)."""
        self._conn.close()
        if self._server is not None:
            self._server.sock.close()


class FileStore(Store):
    """A key-value store in one file shared by all processes (``file://`` init), guarded
    by ``fcntl`` locks; the file must be on a file system that every rank sees."""

    def __init__(self, file_name, world_size=-1, timeout=timedelta(seconds=300)):
        super().__init__(timeout)
        self.path = file_name
        with open(self.path, "a"):
            pass

    def _locked(self, update=None):
        with open(self.path, "r+") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                text = f.read()
                data = json.loads(text) if text else {}
                if update is None:
                    return data
                result = update(data)
                f.seek(0)
                f.truncate()
                f.write(json.dumps(data))
                f.flush()
                return result
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    def _set(self, key, value):
        self._locked(lambda d: d.__setitem__(key, value.decode("latin-1")))

    def _get(self, key):
        value = self._locked().get(key)
        return None if value is None else value.encode("latin-1")

    def add(self, key, amount):
        """Add ``amount`` to the integer stored under ``key`` (0 if unset); returns the sum."""

        def update(d):
            d[key] = str(int(d.get(key, "0")) + int(amount))
            return int(d[key])

        return self._locked(update)

    def clear(self):
        """Delete every key (rank 0 does this before the rendezvous: use a fresh file per
        job anyway, as with PyTorch, so that no rank reads an earlier job's keys)."""
        self._locked(lambda d: d.clear())

    def close(self):
        """Nothing to release: the file stays for the other ranks."""
