"""Shared-memory segments that storages live in, and the two ways to hand them to another process.

A shared storage uses the memory of a :class:`Segment` (an ``mmap`` subclass). Segments come in
two kinds, chosen by the sharing strategy when a storage is first shared:

- ``file_descriptor`` (default): an anonymous ``memfd``. It has no name, so nothing can leak: the
  kernel frees it when the last mapping and the last descriptor are gone, even after SIGKILL.
  Another process gets it as a file descriptor passed over a Unix socket
  (``multiprocessing.reduction.DupFd``).
- ``file_system``: a named file in :data:`SEGMENT_DIR` (``/dev/shm``), sent by path. Every
  process that maps it holds a shared ``flock`` on it, which the kernel drops when the process
  dies, even by SIGKILL; 8 bytes after the data count the messages in flight (the sender adds
  one, the receiver removes it once it holds its lock), so the sender may exit first. A process
  that lets go of a segment (its mapping freed, or at exit) unlinks it if it can take an
  exclusive lock (nobody holds it) and no message is in flight. If the last holder is killed
  after the others let go, nobody is left to check: the creator also registers the name with
  ``multiprocessing``'s resource tracker, which unlinks it once the whole process tree is gone.

Each process maps a segment at most once: :func:`attach` looks it up in a cache, so a storage
sent twice (or two views of it) arrives as one storage.
"""

import errno
import fcntl
import os
import secrets
import struct
import threading
import weakref
from mmap import mmap

# resource_sharer: reduction.DupFd imports it on first use, which may be in a Queue's feeder
# thread; a fork meanwhile would give the child that module's import lock, held for ever (the
# child then hangs unpickling its first tensor). Imported now, before any thread or fork.
from multiprocessing import reduction, resource_sharer, resource_tracker, util  # noqa: F401

import torch

STRATEGIES = ("file_descriptor", "file_system")
_strategy = "file_descriptor"

# Where file_system segments go; the resource tracker cleans up after crashes only in /dev/shm.
SEGMENT_DIR = os.environ.get("TORCH_SHM_DIR", "/dev/shm")

_IN_FLIGHT = struct.Struct("q")  # file_system: messages not yet received, after the data


def get_sharing_strategy():
    """The strategy used for storages shared from now on."""
    return _strategy


def set_sharing_strategy(new_strategy):
    """Choose how storages shared from now on are handed to other processes."""
    global _strategy
    if new_strategy not in STRATEGIES:
        raise ValueError(
            f"set_sharing_strategy: unknown strategy {new_strategy!r}; "
            f"valid strategies are {', '.join(STRATEGIES)}"
        )
    if new_strategy == "file_system":
        # Started now, the tracker is inherited by the children forked later, so the whole
        # tree shares one tracker and a segment outlives any single process that uses it.
        resource_tracker.ensure_running()
    _strategy = new_strategy


def get_all_sharing_strategies():
    """The names of the sharing strategies this platform supports (a set; see
    :func:`set_sharing_strategy`)."""
    return set(STRATEGIES)


class Segment(mmap):
    """A shared mapping that storages live in; ``path`` is None for a memfd."""

    path = None
    nbytes = 0  # the storage's size (the mapping is at least 1 byte)
    key = None  # this segment's key in the cache
    fd = None  # a memfd segment's descriptor


# key -> _Entry; key is (st_dev, st_ino) for a memfd, the path for a named segment.
_cache = {}
_cache_lock = threading.RLock()  # re-entered when a collected segment leaves the cache
_share_lock = threading.Lock()
_count_lock = threading.Lock()


def _reset_lock_in_child():  # another thread may hold them at fork time
    global _cache_lock, _share_lock, _count_lock
    _cache_lock, _share_lock, _count_lock = threading.RLock(), threading.Lock(), threading.Lock()


os.register_at_fork(after_in_child=_reset_lock_in_child)


class _Entry:
    """What this process holds of one segment: the mapping and, if alive, a tensor on it."""

    def __init__(self, key, segment):
        self.segment = weakref.ref(segment, lambda _: _forget(key, self))
        self.tensor = None

    def storage(self, nbytes):
        segment = self.segment()
        if segment is None:
            return None
        tensor = self.tensor and self.tensor()
        if tensor is not None:  # the very storage the first arrival built, unless set_ moved it
            storage = tensor.untyped_storage()
            if segment_of(storage) is segment and storage.nbytes() == nbytes:
                return storage
        return _storage_over(segment, nbytes)


def _forget(key, entry):
    with _cache_lock:
        if _cache.get(key) is entry:
            del _cache[key]


def _remember(key, segment):
    entry = _Entry(key, segment)
    with _cache_lock:
        _cache[key] = entry
    return entry


def _storage_over(segment, nbytes):
    buffer = segment if len(segment) == nbytes else memoryview(segment)[:nbytes]
    return torch.UntypedStorage._from_buffer(buffer)


def segment_of(storage):
    """The Segment whose memory `storage` uses, or None."""
    owner = storage._buffer_owner()
    if isinstance(owner, memoryview):
        owner = owner.obj
    return owner if isinstance(owner, Segment) else None


def _out_of_memory(nbytes, where, err):
    stat = os.statvfs(where)
    free, total = stat.f_bavail * stat.f_frsize, stat.f_blocks * stat.f_frsize
    return RuntimeError(
        f"torch.multiprocessing: cannot allocate {nbytes} bytes of shared memory in {where} "
        f"({err.strerror}; {free} bytes free of {total}, per os.statvfs). Raise the limit "
        "(docker run --shm-size=8g, or mount -o remount,size=8G /dev/shm), share less at once, "
        "or point TORCH_SHM_DIR at a bigger tmpfs with the file_system strategy."
    )


def _reserve(fd, nbytes, asked, where):
    """Allocate the pages now: past the limit, a sparse file would SIGBUS on first touch."""
    try:
        os.posix_fallocate(fd, 0, nbytes)
    except OSError as err:
        if err.errno in (errno.ENOSPC, errno.EFBIG, errno.ENOMEM, errno.EDQUOT):
            raise _out_of_memory(asked, where, err) from None
        raise


def share(storage):
    """Move `storage` into a new segment (if it is not in one) and return its segment."""
    segment = segment_of(storage)
    if segment is not None:
        return segment
    with _share_lock:  # a Queue's feeder thread may be sharing the same storage right now
        return segment_of(storage) or _move_to_new_segment(storage)


def _move_to_new_segment(storage):
    nbytes = storage.nbytes()
    size = max(nbytes, 1)
    if _strategy == "file_descriptor":
        fd = os.memfd_create("torch-shared", os.MFD_CLOEXEC)
        path = None
        try:
            _reserve(fd, size, nbytes, "/dev/shm")
            segment = _memfd_segment(fd, size)
        except BaseException:
            os.close(fd)
            raise
        st = os.fstat(fd)
        key = (st.st_dev, st.st_ino)
    else:
        path = os.path.join(SEGMENT_DIR, f"torch_{os.getpid()}_{secrets.token_hex(8)}")
        lock_fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(lock_fd, fcntl.LOCK_SH)  # we use it
            _reserve(lock_fd, size + _IN_FLIGHT.size, nbytes, SEGMENT_DIR)
            os.pwrite(lock_fd, _IN_FLIGHT.pack(0), size)
            segment = _map_path(path, size)
        except BaseException:
            os.unlink(path)
            os.close(lock_fd)
            raise
        if os.path.dirname(path) == "/dev/shm":
            resource_tracker.register(path[len("/dev/shm") :], "shared_memory")
        _hold(segment, path, lock_fd)
        key = path
    segment.path, segment.nbytes, segment.key = path, nbytes, key
    storage._move_into(segment)
    _remember(key, segment)
    return segment


def _memfd_segment(fd, size):
    """A segment over a memfd that keeps `fd` (mmap keeps a private copy we cannot reach) to
    pass it on; the fd is closed with the segment."""
    segment = Segment(fd, size)
    segment.fd = fd
    weakref.finalize(segment, os.close, fd)
    return segment


def _map_path(path, size):
    # A descriptor of its own: mmap keeps a copy of it, which must not carry our flock.
    fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
    try:
        return Segment(fd, size)
    finally:
        os.close(fd)


def _add_in_flight(path, size, delta):
    """Count a message in flight (+1) or received (-1), under a POSIX lock on the counter."""
    with _count_lock:  # POSIX locks do not exclude this process's other threads
        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX, _IN_FLIGHT.size, size)
            (count,) = _IN_FLIGHT.unpack(os.pread(fd, _IN_FLIGHT.size, size))
            os.pwrite(fd, _IN_FLIGHT.pack(count + delta), size)
        finally:
            os.close(fd)  # releases the POSIX lock


def _unlink_if_unused(path, size):
    """Unlink a named segment if no process holds it (flock) and no message is in flight."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
    except FileNotFoundError:
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return  # another process still maps it
        (in_flight,) = _IN_FLIGHT.unpack(os.pread(fd, _IN_FLIGHT.size, size))
        if in_flight == 0:
            os.unlink(path)
            if os.path.dirname(path) == "/dev/shm":
                resource_tracker.unregister(path[len("/dev/shm") :], "shared_memory")
    finally:
        os.close(fd)


def _release(path, size, lock_fd):
    os.close(lock_fd)
    _unlink_if_unused(path, size)


def _hold(segment, path, lock_fd):
    """This process holds `segment` through a shared flock on `lock_fd`: the kernel drops it
    when the process dies, even by SIGKILL. Released (and the file unlinked if it was the last
    holder) when the mapping goes or at exit; multiprocessing's Finalize runs in children too,
    which skip atexit. A forked child shares the parent's lock and releases its copy."""
    util.Finalize(segment, _release, args=(path, len(segment), lock_fd), exitpriority=0)
    util.register_after_fork(segment, lambda seg: _hold(seg, seg.path, lock_fd))


def handle(storage, tensor=None):
    """A picklable description of `storage` for another process (moves it to shared memory).

    `tensor` (one on `storage`) lets this process get the same storage back if it is returned."""
    segment = share(storage)
    if tensor is not None:
        with _cache_lock:
            entry = _cache.get(segment.key)
        if entry is not None and (entry.tensor is None or entry.tensor() is None):
            entry.tensor = weakref.ref(tensor)
    nbytes = storage.nbytes()
    if segment.path is None:
        return ("fd", reduction.DupFd(segment.fd), nbytes, segment.key)
    _add_in_flight(segment.path, len(segment), +1)  # keeps the file until it is received
    return ("fs", segment.path, nbytes)


def attach(handle):
    """The storage a :func:`handle` describes, in this process: (storage, cache entry)."""
    kind, source, nbytes = handle[:3]
    if kind == "fd":
        return _attach_memfd(source, nbytes, handle[3])
    path = source
    with _cache_lock:
        entry = _cache.get(path)
    storage = entry and entry.storage(nbytes)
    size = max(nbytes, 1)
    if storage is None:
        lock_fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
        try:
            fcntl.flock(lock_fd, fcntl.LOCK_SH)  # before the message's count goes
            segment = _map_path(path, size)
        except BaseException:
            os.close(lock_fd)
            raise
        segment.path, segment.nbytes, segment.key = path, nbytes, path
        _hold(segment, path, lock_fd)
        entry = _remember(path, segment)
        storage = _storage_over(segment, nbytes)
    _add_in_flight(path, size, -1)
    return storage, entry


def _attach_memfd(dup, nbytes, key):
    with _cache_lock:
        entry = _cache.get(key)
    storage = entry and entry.storage(nbytes)
    try:
        fd = dup.detach()  # always fetched: the sender holds a copy until we do
    except (OSError, EOFError) as err:
        if storage is not None:  # the sender is gone, but we have the memory already
            return storage, entry
        raise RuntimeError(
            "torch.multiprocessing: the process that sent this tensor exited before it was "
            "received, taking its shared memory with it; keep the sender alive until the "
            "receiver got it, or use set_sharing_strategy('file_system')"
        ) from err
    if storage is not None:
        os.close(fd)
        return storage, entry
    try:
        segment = _memfd_segment(fd, max(nbytes, 1))
    except BaseException:
        os.close(fd)
        raise
    segment.nbytes, segment.key = nbytes, key
    return _storage_over(segment, nbytes), _remember(key, segment)
