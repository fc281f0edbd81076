"""Process groups and collectives over MPI (mpi4py).

Every backend name that works on CPU tensors ("mpi", "gloo") runs on the same engine: an MPI
communicator. A collective wraps the tensor's memory in a NumPy array (no copy for a
contiguous CPU tensor; a staging copy for a non-contiguous one, or for bfloat16, which NumPy
lacks), starts the matching MPI *nonblocking* collective and returns a :class:`Work`. Waiting
polls the request against the group's timeout, so a peer that died or never arrives makes the
caller raise instead of hanging.

How the processes find each other (``init_process_group``):

- under ``mpiexec`` (or ``torchrun``, which starts its workers through ``mpiexec``) MPI
  already knows every rank: the group is a duplicate of ``MPI.COMM_WORLD``;
- otherwise (processes started by ``torch.multiprocessing.spawn``, or several ``torchrun``
  nodes, each its own MPI job), the jobs meet through a key-value store (``tcp://``,
  ``env://``, ``file://``): rank 0 opens an MPI port and publishes its name, the others
  ``Connect`` one job after the other and the communicators are merged in rank order. A
  spawned process is first made an MPI job of its own (see ``_own_mpi_job``).
"""

import atexit
import enum
import os
import pickle
import socket
import sys
import time
import traceback
from datetime import timedelta
from urllib.parse import parse_qs, urlparse

import numpy as np

import torch

__all__ = [
    "Backend",
    "DistBackendError",
    "GroupMember",
    "ProcessGroup",
    "ReduceOp",
    "Work",
    "all_gather",
    "all_gather_into_tensor",
    "all_gather_object",
    "all_reduce",
    "all_to_all",
    "all_to_all_single",
    "barrier",
    "broadcast",
    "broadcast_object_list",
    "destroy_process_group",
    "gather",
    "gather_object",
    "get_backend",
    "get_global_rank",
    "get_group_rank",
    "get_process_group_ranks",
    "get_rank",
    "get_world_size",
    "init_process_group",
    "irecv",
    "is_available",
    "is_gloo_available",
    "is_initialized",
    "is_mpi_available",
    "is_nccl_available",
    "isend",
    "new_group",
    "recv",
    "reduce",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "scatter",
    "scatter_object_list",
    "send",
]

default_pg_timeout = timedelta(minutes=30)


class DistBackendError(RuntimeError):
    """A collective failed in the engine: a peer died, left, or did not arrive in time."""


def _mpi():
    """mpi4py's MPI module, imported (and MPI initialised) on first use only."""
    try:
        from mpi4py import MPI
    except ImportError as e:  # pragma: no cover - a broken install
        raise RuntimeError(
            "torch.distributed needs mpi4py and an MPI library (pip install torch-distributed "
            f"brings mpi4py and the mpich wheel): {e}"
        ) from None
    return MPI


def is_available():
    """True: this build has ``torch.distributed`` (over MPI)."""
    return True


def is_mpi_available():
    """True when mpi4py and an MPI library can be imported."""
    import importlib.util

    return importlib.util.find_spec("mpi4py") is not None


def is_gloo_available():
    """True when the ``"gloo"`` backend name can be used: it runs on the MPI engine."""
    return is_mpi_available()


def is_nccl_available():
    """False: NCCL needs CUDA tensors and the CUDA backend, which this build lacks."""
    return False


class Backend(str):
    """A backend name, lower-cased: ``Backend("GLOO") == "gloo"``. ``"mpi"`` and ``"gloo"``
    both run over MPI; ``"nccl"`` needs the CUDA backend."""

    MPI = "mpi"
    GLOO = "gloo"
    NCCL = "nccl"
    UNDEFINED = "undefined"

    def __new__(cls, name):
        if not isinstance(name, str):
            raise ValueError(f"Backend name must be a string, but got: {name}")
        name = name.lower()
        if name.startswith("cpu:"):  # "cpu:gloo,cuda:nccl" -> the CPU part
            name = name.split(",")[0][4:]
        if name not in ("mpi", "gloo", "nccl", "undefined"):
            raise ValueError(f"Invalid backend: '{name}' (use 'gloo' or 'mpi')")
        return str.__new__(cls, name)


class ReduceOp(enum.Enum):
    """How a reducing collective combines the ranks' values. ``AVG`` is the sum divided by
    the group's size (integer tensors: floor division). ``BAND``/``BOR``/``BXOR`` need
    integer or bool tensors."""

    SUM = "sum"
    AVG = "avg"
    PRODUCT = "product"
    MIN = "min"
    MAX = "max"
    BAND = "band"
    BOR = "bor"
    BXOR = "bxor"


class _World:
    """What ``init_process_group`` sets up: the default group and the bookkeeping."""

    default = None
    store = None
    placeholder = None  # the mpiexec that gives a spawned process its own MPI job
    pids = None  # [(hostname, pid)] by global rank: names a dead peer after a timeout
    groups = []
    excepthook = None
    tag = 0


class GroupMember:
    """``GroupMember.WORLD`` is the default process group (None before init);
    ``NON_GROUP_MEMBER`` is what ``new_group`` returns on ranks outside the new group."""

    NON_GROUP_MEMBER = object()

    class _WorldDescriptor:
        def __get__(self, obj, cls):
            return _World.default

    WORLD = _WorldDescriptor()


class ProcessGroup:
    """A set of ranks that run collectives together: an MPI communicator plus the global
    ranks of its members (in group-rank order)."""

    def __init__(self, comm, ranks, backend, timeout):
        self.comm = comm
        self.ranks = list(ranks)
        self.backend = Backend(backend)
        self.timeout = timeout
        self._rank = comm.Get_rank()

    def rank(self):
        """This process's rank within the group."""
        return self._rank

    def size(self):
        """The number of processes in the group."""
        return len(self.ranks)

    def name(self):
        """The backend's name."""
        return str(self.backend)

    def __repr__(self):
        return f"ProcessGroup(backend={self.backend!r}, ranks={self.ranks})"


# ------------------------------------------------------------------ initialisation


def is_initialized():
    """True once ``init_process_group`` has run (and ``destroy_process_group`` has not)."""
    return _World.default is not None


def _require_init():
    if _World.default is None:
        raise ValueError(
            "Default process group has not been initialized, please make sure to call "
            "init_process_group."
        )
    return _World.default


def _env_int(name):
    value = os.environ.get(name)
    return None if value in (None, "") else int(value)


def _make_store(init_method, rank, world_size, timeout):
    """The rendezvous store named by ``init_method`` and the rank/world size it implies."""
    url = urlparse(init_method)
    query = {k: v[-1] for k, v in parse_qs(url.query).items()}
    if "rank" in query:
        rank = int(query["rank"])
    if "world_size" in query:
        world_size = int(query["world_size"])
    from torch.distributed._store import FileStore, TCPStore

    if url.scheme == "env":
        rank = rank if rank >= 0 else (_env_int("RANK") if _env_int("RANK") is not None else -1)
        if world_size < 0 and _env_int("WORLD_SIZE") is not None:
            world_size = _env_int("WORLD_SIZE")
        host, port = os.environ.get("MASTER_ADDR"), os.environ.get("MASTER_PORT")
        if world_size > 1 and (host is None or port is None):
            raise ValueError(
                "env:// init needs MASTER_ADDR and MASTER_PORT in the environment (torchrun "
                "sets them); or start the processes with mpiexec"
            )
        make = lambda: TCPStore(host, int(port), world_size, rank == 0, timeout)  # noqa: E731
    elif url.scheme == "tcp":
        make = lambda: TCPStore(url.hostname, url.port, world_size, rank == 0, timeout)  # noqa: E731
    elif url.scheme == "file":
        make = lambda: FileStore(url.path, world_size, timeout)  # noqa: E731
    else:
        raise ValueError(
            f"init_method {init_method!r}: use 'env://', 'tcp://host:port' or 'file:///path'"
        )
    return make, rank, world_size


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1,
                       rank=-1, store=None, group_name="", pg_options=None,
                       device_id=None):  # fmt: skip
    """Make this process rank ``rank`` of ``world_size`` in the default process group.

    ``backend``: ``"gloo"`` (the default) or ``"mpi"``; both run over MPI. ``"nccl"`` needs
    CUDA tensors and raises. Started by ``mpiexec`` (or ``torchrun``), the ranks come from MPI
    and ``init_method`` is not needed. Started otherwise, the processes meet through
    ``init_method``: ``"env://"`` (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE; the
    default), ``"tcp://host:port"`` or ``"file:///path"``, or through ``store``.

    ``timeout`` (a ``timedelta``, default 30 minutes) bounds every collective of the group:
    when peers do not arrive in time (one died, or raised) the collective raises
    :class:`DistBackendError` naming the ranks it knows to be dead. An uncaught exception in
    any rank aborts the whole job (``MPI_Abort``) after printing its traceback.
    """
    if _World.default is not None:
        raise ValueError("trying to initialize the default process group twice!")
    backend = Backend(backend or "gloo")
    if backend == "nccl":
        raise RuntimeError(
            "the NCCL backend needs CUDA tensors and the CUDA backend, which this build of torch "
            "does not have; use backend='gloo' (or 'mpi') for CPU tensors"
        )
    timeout = timeout if timeout is not None else default_pg_timeout
    seconds = timeout.total_seconds() if isinstance(timeout, timedelta) else float(timeout)
    if not _under_mpi_launcher() and "mpi4py.MPI" not in sys.modules:
        wanted = world_size
        if wanted < 0 and store is None:
            wanted = _make_store(init_method or "env://", rank, world_size, seconds)[2]
        if (wanted if wanted >= 0 else _env_int("WORLD_SIZE") or 1) > 1:
            _own_mpi_job(seconds)
    MPI = _mpi()
    world = MPI.COMM_WORLD
    if world.Get_size() > 1:  # started by mpiexec: MPI knows the ranks
        comm = _mpi_world(world, rank, world_size)
    else:
        if store is None:
            make, rank, world_size = _make_store(init_method or "env://", rank, world_size, seconds)
        else:
            make = lambda: store  # noqa: E731
        if world_size < 0:
            world_size = _env_int("WORLD_SIZE") or 1
        if rank < 0:
            rank = _env_int("RANK") or 0
        if not 0 <= rank < world_size:
            raise ValueError(f"init_process_group: rank {rank} is not in [0, {world_size})")
        if world_size == 1:
            comm = MPI.COMM_SELF.Dup()
        else:
            _World.store = make()
            comm = _connect(MPI, _World.store, rank, world_size, seconds)
    pg = ProcessGroup(comm, range(comm.Get_size()), backend, seconds)
    pg._connected = world.Get_size() < pg.size()  # joined through MPI ports: disconnect at the end
    if pg._connected:  # its own communicator, so that it never meets a user's collective
        pg.teardown = comm.Dup()
    _World.default = pg
    _World.pids = _allgather_pickled(pg, (socket.gethostname(), os.getpid()), "init")
    _install_excepthook()


_LAUNCHER_ENV = ("PMI_RANK", "PMI_FD", "PMI_PORT", "PMIX_RANK", "OMPI_COMM_WORLD_SIZE")


def _under_mpi_launcher():
    return any(k in os.environ for k in _LAUNCHER_ENV)


def _own_mpi_job(seconds):
    """Make this lone process (e.g. one started by ``torch.multiprocessing.spawn``) an MPI job
    of its own before MPI starts, so that it can connect to the other ranks' jobs.

    MPICH 5.0 refuses to connect *singleton* processes (pmodels/mpich#7805), but connects
    separate ``mpiexec`` jobs. So this asks hydra for a one-process job whose process only
    prints its PMI address and waits (``mpiexec -pmi-port``), and initialises MPI through
    that address in this process instead. The placeholder ends when this process does (its
    stdin closes). Where this is impossible (no hydra mpiexec), MPI starts as a singleton."""
    import select
    import subprocess

    mpiexec = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if not os.path.exists(mpiexec):
        return
    hold = 'echo "$PMI_PORT $PMI_ID"; exec cat > /dev/null'
    try:
        proc = subprocess.Popen(
            [mpiexec, "-n", "1", "-pmi-port", "/bin/sh", "-c", hold],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )  # fmt: skip
    except OSError:
        return
    ready, _, _ = select.select([proc.stdout], [], [], min(seconds, 30))
    fields = proc.stdout.readline().split() if ready else []
    if len(fields) != 2:
        proc.kill()
        proc.wait()
        return
    _World.placeholder = proc
    os.environ["PMI_PORT"], os.environ["PMI_ID"] = fields[0].decode(), fields[1].decode()
    import mpi4py

    # mpi4py's MPI_Finalize at exit crashes such a connected process; the job ends with the
    # placeholder instead (after destroy_process_group has disconnected it)
    mpi4py.rc.finalize = False
    try:
        _mpi()
    finally:
        for k in ("PMI_PORT", "PMI_ID"):  # not for this process's own children
            os.environ.pop(k, None)


def _mpi_world(world, rank, world_size):
    """The group of an ``mpiexec`` job; a rank/world size given (or in the environment)
    must agree with MPI's."""
    env_rank, env_world = _env_int("RANK"), _env_int("WORLD_SIZE")
    size = world.Get_size()
    if env_world is not None and env_world > size:  # several torchrun nodes: one job each
        rank = env_rank if rank < 0 else rank
        return _connect_jobs(world, rank, env_world)
    for name, given, actual in (
        ("rank", rank, world.Get_rank()),
        ("world_size", world_size, size),
        ("RANK", env_rank, world.Get_rank()),
        ("WORLD_SIZE", env_world, size),
    ):
        if given is not None and given >= 0 and given != actual:
            raise ValueError(
                f"init_process_group: {name}={given}, but mpiexec started this process as "
                f"rank {world.Get_rank()} of {size}: leave rank/world_size out under mpiexec"
            )
    return world.Dup()


def _connect_jobs(local, rank, world_size):
    """Join several MPI jobs (torchrun nodes) into one communicator through the store."""
    from torch.distributed._store import TCPStore

    host, port = os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"])
    seconds = default_pg_timeout.total_seconds()
    store = TCPStore(host, port, world_size, rank == 0, timeout=seconds)
    _World.store = store
    return _connect(_mpi(), store, rank, world_size, seconds, local=local)


def _connect(MPI, store, rank, world_size, seconds, local=None):
    """Merge the jobs into one intracommunicator ordered by rank.

    ``local`` is this job's communicator (``COMM_SELF`` for a lone process). The job that
    holds rank 0 opens a port; each other job waits until every lower rank has joined, then
    connects, and from then on helps accept the next one."""
    local = local if local is not None else MPI.COMM_SELF
    first = rank - local.Get_rank()  # the global rank of this job's first process
    try:
        if first == 0:
            comm = local
            if local.Get_rank() == 0:
                if hasattr(store, "clear"):  # a FileStore left over by an earlier job
                    store.clear()
                port = MPI.Open_port()
                store.set("mpi_port", port)
                store.set("joined", str(comm.Get_size()))
        else:
            while int(store.get("joined")) != first:
                time.sleep(0.01)
            port = store.get("mpi_port").decode()
            inter = local.Connect(port, root=0)
            comm = inter.Merge(high=True)
            inter.Disconnect()
            if comm.Get_rank() == 0:
                store.set("joined", str(comm.Get_size()))
        while comm.Get_size() < world_size:
            port = store.get("mpi_port").decode() if comm.Get_rank() else port
            inter = comm.Accept(port, root=0)
            merged = inter.Merge(high=False)
            inter.Disconnect()
            if comm is not local:
                comm.Disconnect()
            comm = merged
            if comm.Get_rank() == 0:
                store.set("joined", str(comm.Get_size()))
    except MPI.Exception as e:
        raise RuntimeError(
            f"torch.distributed: rank {rank} could not connect to the other processes through "
            f"MPI's dynamic processes ({str(e).splitlines()[0]}). The MPI library refused to "
            "join processes that were not started together (MPICH 5.0 cannot connect "
            "singleton processes, pmodels/mpich#7805). Start the workers with "
            "'torchrun --nproc-per-node N script.py' or 'mpiexec -n N python script.py' "
            "instead of torch.multiprocessing.spawn."
        ) from None
    if comm.Get_rank() != rank:
        raise RuntimeError(f"torch.distributed: rank {rank} joined as {comm.Get_rank()}")
    return comm


def _install_excepthook():
    """Print an uncaught exception with the rank, then abort the whole MPI job, so that the
    other ranks do not wait for this one until their timeout."""
    previous = sys.excepthook

    def hook(kind, value, tb):
        pg = _World.default
        if pg is None or pg.size() == 1:
            return previous(kind, value, tb)
        sys.stderr.write(
            f"torch.distributed: rank {pg.rank()} (pid {os.getpid()}) raised an uncaught "
            f"exception; aborting all {pg.size()} ranks\n"
        )
        traceback.print_exception(kind, value, tb)
        sys.stderr.flush()
        pg.comm.Abort(1)

    _World.excepthook = (previous, hook)
    sys.excepthook = hook


def destroy_process_group(group=None):
    """Release ``group`` (default: every group, and the default group's MPI communicator)."""
    if group is None or group is _World.default:
        for pg in _World.groups + ([_World.default] if _World.default else []):
            _free(pg)
        _World.groups = []
        _World.default = None
        if _World.excepthook is not None and sys.excepthook is _World.excepthook[1]:
            sys.excepthook = _World.excepthook[0]
        _World.excepthook = None
        if _World.store is not None:
            _World.store.close()
            _World.store = None
    else:
        _free(group)
        if group in _World.groups:
            _World.groups.remove(group)


def _free(pg):
    if getattr(pg, "_connected", False):
        # connected jobs must disconnect before MPI_Finalize; a barrier first, so that a dead
        # peer cannot make the (blocking) disconnect hang
        # (at most 10 s: a rank that exits on an error must not wait for the others long)
        try:
            _poll([pg.teardown.Ibarrier()], pg, "destroy_process_group", min(pg.timeout, 10))
            pg.teardown.Disconnect()
            pg.comm.Disconnect()
        except Exception:
            pass
        return
    try:
        if pg.comm.Is_inter() is False and not pg.comm.Get_name().startswith("MPI_COMM_"):
            pg.comm.Free()
    except Exception:  # a communicator already freed
        pass


@atexit.register
def _cleanup():
    if _World.default is not None:
        destroy_process_group()


def new_group(
    ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False
):
    """A process group of the global ``ranks`` (all by default). Every rank of the default
    group must call it, with the same ``ranks``; ranks outside get
    ``GroupMember.NON_GROUP_MEMBER``."""
    world = _require_init()
    ranks = sorted(range(world.size()) if ranks is None else ranks)
    for r in ranks:
        if not 0 <= r < world.size():
            raise ValueError(f"new_group: rank {r} is not in [0, {world.size()})")
    MPI = _mpi()
    comm = world.comm.Create(world.comm.Get_group().Incl(ranks))
    if comm == MPI.COMM_NULL:
        return GroupMember.NON_GROUP_MEMBER
    seconds = world.timeout if timeout is None else timeout.total_seconds()
    pg = ProcessGroup(comm, ranks, backend or world.backend, seconds)
    _World.groups.append(pg)
    return pg


def _group(group):
    world = _require_init()
    if group is None:
        return world
    if group is GroupMember.NON_GROUP_MEMBER:
        return None
    return group


def get_rank(group=None):
    """This process's rank in ``group`` (default group by default); -1 if not a member."""
    pg = _group(group)
    return -1 if pg is None else pg.rank()


def get_world_size(group=None):
    """The number of processes in ``group``; -1 if this process is not a member."""
    pg = _group(group)
    return -1 if pg is None else pg.size()


def get_backend(group=None):
    """The backend name of ``group`` ("gloo" or "mpi")."""
    pg = _group(group)
    if pg is None:
        raise ValueError("Invalid process group specified")
    return str(pg.backend)


def get_process_group_ranks(group):
    """The global ranks of ``group``'s members, in group-rank order."""
    return list(_group(group).ranks)


def get_global_rank(group, group_rank):
    """The global rank of ``group``'s member ``group_rank``."""
    return _group(group).ranks[group_rank]


def get_group_rank(group, global_rank):
    """The rank in ``group`` of the global rank ``global_rank``."""
    pg = _group(group)
    try:
        return pg.ranks.index(global_rank)
    except ValueError:
        raise ValueError(f"Global rank {global_rank} is not part of group {pg}") from None


# ------------------------------------------------------------------ Work and waiting


class Work:
    """The handle of a collective started with ``async_op=True``.

    ``wait()`` blocks until the operation is done (raising ``DistBackendError`` after the
    group's timeout) and returns True; ``is_completed()`` checks without blocking. The
    output tensors hold the result only after one of them has reported completion."""

    def __init__(self, pg, name, requests, finish=None, result=None):
        self._pg = pg
        self._name = name
        self._requests = list(requests)
        self._finish = finish
        self._result = result
        self._done = False
        self._value = None

    def _complete(self):
        self._requests = []
        self._done = True
        if self._finish is not None:
            self._value = self._finish()
            self._finish = None

    def is_completed(self):
        """True when the operation has finished (its outputs are then ready)."""
        if not self._done and _mpi().Request.Testall(self._requests):
            self._complete()
        return self._done

    def wait(self, timeout=None):
        """Block until done; True. Raises ``DistBackendError`` after ``timeout`` (a
        ``timedelta``; the group's timeout by default)."""
        if self._done:
            return True
        limit = self._pg.timeout if timeout is None else timeout.total_seconds()
        _poll(self._requests, self._pg, self._name, limit)
        self._complete()
        return True

    def result(self):
        """The output tensors (after ``wait``)."""
        self.wait()
        return self._result if self._result is not None else []

    def exception(self):
        """None: a failed operation raises from ``wait()`` instead."""
        return None

    def get_future(self):
        """A completed-on-wait future whose ``wait()``/``value()`` give ``result()``."""
        return _Future(self)


class _Future:
    def __init__(self, work):
        self._work = work

    def wait(self):
        return self._work.result()

    def value(self):
        return self._work.result()

    def done(self):
        return self._work.is_completed()


def _poll(requests, pg, name, limit):
    """Test ``requests`` until all are done; spin briefly (latency), then back off."""
    MPI = _mpi()
    statuses = [MPI.Status() for _ in requests]

    def Testall(requests):
        return MPI.Request.Testall(requests, statuses)

    try:
        for _ in range(200):
            if Testall(requests):
                return
        # MPI progresses a transfer only inside MPI calls, so test often while a big message
        # streams (yielding the core to whoever needs it); then back off to short sleeps
        start = time.monotonic()
        while not Testall(requests):
            waited = time.monotonic() - start
            if waited < 0.05:
                os.sched_yield()
                continue
            if waited > limit:
                raise DistBackendError(_timeout_message(pg, name, limit))
            time.sleep(min(0.001, waited / 100))
    except MPI.Exception as e:
        why = e.Get_error_string()
        if e.Get_error_class() == MPI.ERR_IN_STATUS:
            codes = [st.Get_error() for st in statuses if st.Get_error() != MPI.SUCCESS]
            why = "; ".join(MPI.Get_error_string(c) for c in codes) or why
        why = " ".join(why.split())
        raise DistBackendError(
            f"torch.distributed: {name} failed in MPI on rank {get_rank()}: "
            f"{why.strip()}. Did every rank pass tensors of the same size and dtype? "
            "(TORCH_DISTRIBUTED_DEBUG=DETAIL checks that before each collective)"
        ) from None


def _timeout_message(pg, name, limit):
    dead = []
    host = socket.gethostname()
    for r in pg.ranks:
        h, pid = _World.pids[r] if _World.pids and r < len(_World.pids) else (None, None)
        if h == host and pid != os.getpid():
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                dead.append(f"rank {r} (pid {pid}) has exited")
            except PermissionError:
                pass
    why = "; ".join(dead) if dead else "some rank failed, raised or did not call it"
    return (
        f"torch.distributed: {name} on rank {_World.default.rank()} did not complete within "
        f"the process group's timeout of {limit:g} s: {why}"
    )


def _run(pg, name, requests, finish, async_op, result=None):
    work = Work(pg, name, requests, finish, result)
    if async_op:
        return work
    work.wait()
    return work._value


# ------------------------------------------------------------------ buffers

_REDUCIBLE = {torch.float16: torch.float32, torch.bfloat16: torch.float32}


def _check_tensor(t, name):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name}: expected a torch.Tensor, got {type(t).__name__}")
    if t.device.type != "cpu":
        raise RuntimeError(f"{name}: the MPI/gloo backend takes CPU tensors, got {t.device}")


class _Buf:
    """A contiguous NumPy array over a tensor's memory (or over a staging copy, written
    back by ``back()``): ``reduce=True`` also stages dtypes MPI cannot reduce."""

    def __init__(self, t, reduce=False, write=True):
        self.t = t
        if t.dtype in _REDUCIBLE and (reduce or t.dtype is torch.bfloat16):
            self.tmp = t.detach().to(_REDUCIBLE[t.dtype]).contiguous()
        elif not t.is_contiguous():
            self.tmp = t.detach().contiguous()
        else:
            self.tmp = None
        src = self.tmp if self.tmp is not None else t.detach()
        self.a = src.numpy().reshape(-1)
        if self.a.dtype == np.bool_:
            self.a = self.a.view(np.uint8)
        self.write = write

    def bytes(self):
        return self.a.view(np.uint8)

    def back(self):
        if self.tmp is not None and self.write:
            with torch.no_grad():
                self.t.copy_(self.tmp)


def _op(op, dtype, name):
    MPI = _mpi()
    if isinstance(op, str):
        op = ReduceOp(op.lower())
    if op is ReduceOp.MIN or op is ReduceOp.MAX:
        if dtype.is_complex:
            raise RuntimeError(f"{name}: {op.name} is not defined for complex tensors")
    if op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR):
        if dtype.is_floating_point or dtype.is_complex:
            raise RuntimeError(f"{name}: {op.name} needs integer or bool tensors, got {dtype}")
    if dtype is torch.bool:  # bools travel as bytes 0/1: sum is "any", product is "all"
        if op in (ReduceOp.SUM, ReduceOp.AVG):
            return MPI.MAX
        if op is ReduceOp.PRODUCT:
            return MPI.MIN
    return {
        ReduceOp.SUM: MPI.SUM,
        ReduceOp.AVG: MPI.SUM,
        ReduceOp.PRODUCT: MPI.PROD,
        ReduceOp.MIN: MPI.MIN,
        ReduceOp.MAX: MPI.MAX,
        ReduceOp.BAND: MPI.BAND,
        ReduceOp.BOR: MPI.BOR,
        ReduceOp.BXOR: MPI.BXOR,
    }[op]


def _average(buf, op, n):
    if op is ReduceOp.AVG or op == "avg":
        if buf.t.dtype is torch.bool:
            return
        if np.issubdtype(buf.a.dtype, np.integer):
            np.floor_divide(buf.a, n, out=buf.a)
        else:
            np.divide(buf.a, n, out=buf.a)


def _debug():
    return os.environ.get("TORCH_DISTRIBUTED_DEBUG", "").upper() == "DETAIL"


def _check_same(pg, name, signature):
    """TORCH_DISTRIBUTED_DEBUG=DETAIL: compare the collective's signature across ranks."""
    if not _debug():
        return
    every = _allgather_pickled(pg, signature, name, check=False)
    if any(s != every[0] for s in every):
        lines = ", ".join(f"rank {pg.ranks[i]}: {s}" for i, s in enumerate(every))
        raise RuntimeError(f"{name}: the ranks called it with different tensors ({lines})")


def _peer(pg, rank, name, what):
    """The group rank of global ``rank``."""
    try:
        return pg.ranks.index(rank)
    except ValueError:
        raise ValueError(f"{name}: {what} {rank} is not in the group {pg.ranks}") from None


def _member(group, name):
    pg = _group(group)
    if pg is None:
        return None
    return pg


# ------------------------------------------------------------------ collectives


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``tensor`` across the group with ``op``, in place on every rank."""
    pg = _member(group, "all_reduce")
    if pg is None:
        return None
    _check_tensor(tensor, "all_reduce")
    _check_same(pg, "all_reduce", (tuple(tensor.shape), str(tensor.dtype)))
    mop = _op(op, tensor.dtype, "all_reduce")
    buf = _Buf(tensor, reduce=True)
    req = pg.comm.Iallreduce(_mpi().IN_PLACE, buf.a, mop)

    def finish():
        _average(buf, op, pg.size())
        buf.back()

    return _run(pg, "all_reduce", [req], finish, async_op, [tensor])


def broadcast(tensor, src, group=None, async_op=False, group_src=None):
    """Copy ``tensor`` of rank ``src`` (a global rank) into ``tensor`` on every rank."""
    pg = _member(group, "broadcast")
    if pg is None:
        return None
    _check_tensor(tensor, "broadcast")
    root = group_src if group_src is not None else _peer(pg, src, "broadcast", "src")
    _check_same(pg, "broadcast", (tuple(tensor.shape), str(tensor.dtype)))
    buf = _Buf(tensor)
    req = pg.comm.Ibcast(buf.bytes(), root=root)
    return _run(pg, "broadcast", [req], buf.back, async_op, [tensor])


def reduce(tensor, dst, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    """Reduce ``tensor`` across the group into ``tensor`` of rank ``dst`` (the others' are
    left as they were)."""
    pg = _member(group, "reduce")
    if pg is None:
        return None
    _check_tensor(tensor, "reduce")
    root = group_dst if group_dst is not None else _peer(pg, dst, "reduce", "dst")
    _check_same(pg, "reduce", (tuple(tensor.shape), str(tensor.dtype)))
    mop = _op(op, tensor.dtype, "reduce")
    is_root = pg.rank() == root
    buf = _Buf(tensor, reduce=True, write=is_root)
    MPI = _mpi()
    if is_root:
        req = pg.comm.Ireduce(MPI.IN_PLACE, buf.a, mop, root=root)
    else:
        req = pg.comm.Ireduce(buf.a, None, mop, root=root)

    def finish():
        if is_root:
            _average(buf, op, pg.size())
            buf.back()

    return _run(pg, "reduce", [req], finish, async_op, [tensor])


def _same_shape(name, ref, tensors):
    for t in tensors:
        _check_tensor(t, name)
        if t.dtype != ref.dtype or t.numel() != ref.numel():
            raise ValueError(
                f"{name}: every tensor must match the input ({tuple(ref.shape)}, {ref.dtype}); "
                f"got {tuple(t.shape)}, {t.dtype}"
            )


def _unpack(stage, tensors):
    """Copy the rows of a (size * numel) staging array into ``tensors``."""
    n = stage.size // len(tensors)
    for i, t in enumerate(tensors):
        b = _Buf(t)
        b.a[...] = stage[i * n : (i + 1) * n].view(b.a.dtype)
        b.back()


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """``tensor_list[i]`` receives ``tensor`` of group rank ``i``."""
    pg = _member(group, "all_gather")
    if pg is None:
        return None
    _check_tensor(tensor, "all_gather")
    if len(tensor_list) != pg.size():
        raise ValueError(
            f"all_gather: tensor_list has {len(tensor_list)} tensors, the group has {pg.size()}"
        )
    _same_shape("all_gather", tensor, tensor_list)
    _check_same(pg, "all_gather", (tuple(tensor.shape), str(tensor.dtype)))
    src = _Buf(tensor, write=False)
    stage = np.empty(pg.size() * src.bytes().size, dtype=np.uint8)
    req = pg.comm.Iallgather(src.bytes(), stage)
    return _run(pg, "all_gather", [req], lambda: _unpack(stage, tensor_list), async_op, tensor_list)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """``output_tensor`` (``size`` times the input's elements, stacked or concatenated along
    dim 0) receives every rank's ``input_tensor`` in rank order."""
    pg = _member(group, "all_gather_into_tensor")
    if pg is None:
        return None
    _check_tensor(output_tensor, "all_gather_into_tensor")
    if output_tensor.numel() != pg.size() * input_tensor.numel() or (
        output_tensor.dtype != input_tensor.dtype
    ):
        raise ValueError(
            f"all_gather_into_tensor: the output ({tuple(output_tensor.shape)}, "
            f"{output_tensor.dtype}) must hold {pg.size()} x the input "
            f"({tuple(input_tensor.shape)}, {input_tensor.dtype})"
        )
    _check_same(pg, "all_gather_into_tensor", (tuple(input_tensor.shape), str(input_tensor.dtype)))
    src, out = _Buf(input_tensor, write=False), _Buf(output_tensor)
    req = pg.comm.Iallgather(src.bytes(), out.bytes())
    return _run(pg, "all_gather_into_tensor", [req], out.back, async_op, [output_tensor])


def _reduce_scatter(pg, name, output, stacked, op, async_op):
    _check_same(pg, name, (tuple(output.shape), str(output.dtype)))
    mop = _op(op, output.dtype, name)
    out = _Buf(output, reduce=True)
    req = pg.comm.Ireduce_scatter_block(stacked.a, out.a, mop)

    def finish():
        _average(out, op, pg.size())
        out.back()

    return _run(pg, name, [req], finish, async_op, [output])


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """``output`` on group rank ``i`` receives the reduction of every rank's
    ``input_list[i]``."""
    pg = _member(group, "reduce_scatter")
    if pg is None:
        return None
    _check_tensor(output, "reduce_scatter")
    if len(input_list) != pg.size():
        raise ValueError(
            f"reduce_scatter: input_list has {len(input_list)} tensors, the group has {pg.size()}"
        )
    _same_shape("reduce_scatter", output, input_list)
    flat = torch.cat([t.detach().reshape(-1) for t in input_list])
    return _reduce_scatter(pg, "reduce_scatter", output, _Buf(flat, True, False), op, async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``input`` (``size`` chunks along dim 0) across ranks; group rank ``i``'s
    ``output`` receives chunk ``i``."""
    pg = _member(group, "reduce_scatter_tensor")
    if pg is None:
        return None
    _check_tensor(output, "reduce_scatter_tensor")
    if input.numel() != pg.size() * output.numel() or input.dtype != output.dtype:
        raise ValueError(
            f"reduce_scatter_tensor: the input ({tuple(input.shape)}, {input.dtype}) must hold "
            f"{pg.size()} x the output ({tuple(output.shape)}, {output.dtype})"
        )
    stacked = _Buf(input, reduce=True, write=False)
    return _reduce_scatter(pg, "reduce_scatter_tensor", output, stacked, op, async_op)


def gather(tensor, gather_list=None, dst=0, group=None, async_op=False, group_dst=None):
    """Rank ``dst`` receives every rank's ``tensor`` in ``gather_list`` (which only ``dst``
    gives)."""
    pg = _member(group, "gather")
    if pg is None:
        return None
    _check_tensor(tensor, "gather")
    root = group_dst if group_dst is not None else _peer(pg, dst, "gather", "dst")
    _check_same(pg, "gather", (tuple(tensor.shape), str(tensor.dtype)))
    src = _Buf(tensor, write=False)
    if pg.rank() == root:
        if gather_list is None or len(gather_list) != pg.size():
            raise ValueError(f"gather: rank {dst} needs a gather_list of {pg.size()} tensors")
        _same_shape("gather", tensor, gather_list)
        stage = np.empty(pg.size() * src.bytes().size, dtype=np.uint8)
        req = pg.comm.Igather(src.bytes(), stage, root=root)
        finish = lambda: _unpack(stage, gather_list)  # noqa: E731
    else:
        if gather_list:
            raise ValueError(f"gather: only the destination rank {dst} takes a gather_list")
        req = pg.comm.Igather(src.bytes(), None, root=root)
        finish = None
    return _run(pg, "gather", [req], finish, async_op, gather_list)


def scatter(tensor, scatter_list=None, src=0, group=None, async_op=False, group_src=None):
    """Group rank ``i`` receives ``scatter_list[i]`` of rank ``src`` in ``tensor``."""
    pg = _member(group, "scatter")
    if pg is None:
        return None
    _check_tensor(tensor, "scatter")
    root = group_src if group_src is not None else _peer(pg, src, "scatter", "src")
    _check_same(pg, "scatter", (tuple(tensor.shape), str(tensor.dtype)))
    out = _Buf(tensor)
    if pg.rank() == root:
        if scatter_list is None or len(scatter_list) != pg.size():
            raise ValueError(f"scatter: rank {src} needs a scatter_list of {pg.size()} tensors")
        _same_shape("scatter", tensor, scatter_list)
        flat = torch.cat([t.detach().reshape(-1) for t in scatter_list])
        stage = _Buf(flat, write=False)
        req = pg.comm.Iscatter(stage.bytes(), out.bytes(), root=root)
    else:
        if scatter_list:
            raise ValueError(f"scatter: only the source rank {src} takes a scatter_list")
        stage = None
        req = pg.comm.Iscatter(None, out.bytes(), root=root)
    return _run(pg, "scatter", [req], out.back, async_op, [tensor])


def _alltoallv(pg, name, send, send_counts, recv, recv_counts, finish, async_op, result):
    send_displs = np.concatenate([[0], np.cumsum(send_counts)[:-1]]).astype(np.int64)
    recv_displs = np.concatenate([[0], np.cumsum(recv_counts)[:-1]]).astype(np.int64)
    req = pg.comm.Ialltoallv(
        [send, (list(map(int, send_counts)), list(map(int, send_displs)))],
        [recv, (list(map(int, recv_counts)), list(map(int, recv_displs)))],
    )
    return _run(pg, name, [req], finish, async_op, result)


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """Group rank ``j``'s ``output_tensor_list[i]`` receives rank ``i``'s
    ``input_tensor_list[j]`` (sizes may differ between pairs)."""
    pg = _member(group, "all_to_all")
    if pg is None:
        return None
    n = pg.size()
    if len(output_tensor_list) != n or len(input_tensor_list) != n:
        raise ValueError(f"all_to_all: both lists need {n} tensors (one per rank)")
    dtype = input_tensor_list[0].dtype
    for t in list(output_tensor_list) + list(input_tensor_list):
        _check_tensor(t, "all_to_all")
        if t.dtype != dtype:
            raise ValueError(f"all_to_all: every tensor must be {dtype}, got {t.dtype}")
    flat = torch.cat([t.detach().reshape(-1) for t in input_tensor_list])
    send = _Buf(flat, write=False)
    item = send.bytes().size // max(flat.numel(), 1) if flat.numel() else flat.element_size()
    recv = np.empty(sum(t.numel() for t in output_tensor_list) * item, dtype=np.uint8)
    send_counts = [t.numel() * item for t in input_tensor_list]
    recv_counts = [t.numel() * item for t in output_tensor_list]

    def finish():
        offset = 0
        for t in output_tensor_list:
            b = _Buf(t)
            size = t.numel() * item
            b.bytes()[...] = recv[offset : offset + size]
            b.back()
            offset += size

    return _alltoallv(
        pg, "all_to_all", send.bytes(), send_counts, recv, recv_counts, finish, async_op,
        output_tensor_list,
    )  # fmt: skip


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None,
                      group=None, async_op=False):  # fmt: skip
    """Split ``input`` along dim 0 (evenly, or by ``input_split_sizes``) and send part ``j``
    to group rank ``j``; ``output`` receives the parts from every rank, in rank order."""
    pg = _member(group, "all_to_all_single")
    if pg is None:
        return None
    _check_tensor(output, "all_to_all_single")
    _check_tensor(input, "all_to_all_single")
    n = pg.size()
    send, recv = _Buf(input, write=False), _Buf(output)
    in_row = send.bytes().size // max(input.shape[0], 1) if input.dim() else 0
    out_row = recv.bytes().size // max(output.shape[0], 1) if output.dim() else 0

    def counts(splits, tensor, row, what):
        if not splits:
            if tensor.shape[0] % n:
                raise ValueError(
                    f"all_to_all_single: {what} dim 0 ({tensor.shape[0]}) is not divisible by "
                    f"the group size {n}: give {what}_split_sizes"
                )
            return [tensor.shape[0] // n * row] * n
        if len(splits) != n or sum(splits) != tensor.shape[0]:
            raise ValueError(
                f"all_to_all_single: {what}_split_sizes {list(splits)} must have {n} entries "
                f"summing to {tensor.shape[0]}"
            )
        return [int(s) * row for s in splits]

    send_counts = counts(input_split_sizes, input, in_row, "input")
    recv_counts = counts(output_split_sizes, output, out_row, "output")
    return _alltoallv(
        pg, "all_to_all_single", send.bytes(), send_counts, recv.bytes(), recv_counts,
        recv.back, async_op, [output],
    )  # fmt: skip


def barrier(group=None, async_op=False, device_ids=None):
    """Wait until every rank of the group has reached the barrier."""
    pg = _member(group, "barrier")
    if pg is None:
        return None
    return _run(pg, "barrier", [pg.comm.Ibarrier()], None, async_op)


# ------------------------------------------------------------------ point to point


def _p2p_group(group, peer, name, what):
    pg = _group(group)
    if pg is None:
        return None, None
    if peer == get_rank() and group is None:
        raise ValueError(f"{name}: {what}={peer} is this process's own rank")
    return pg, _peer(pg, peer, name, what)


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Start sending ``tensor`` to rank ``dst``; returns a :class:`Work` (keep ``tensor``
    unchanged until ``wait()``)."""
    _check_tensor(tensor, "isend")
    pg, peer = _p2p_group(group, dst, "isend", "dst")
    if group_dst is not None:
        peer = group_dst
    buf = _Buf(tensor, write=False)
    req = pg.comm.Isend(buf.bytes(), dest=peer, tag=tag)
    work = Work(pg, "isend", [req], None, [tensor])
    work._keep = buf
    return work


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """Start receiving into ``tensor`` from rank ``src`` (any rank when None); returns a
    :class:`Work`."""
    _check_tensor(tensor, "irecv")
    MPI = _mpi()
    pg = _require_init() if group is None else group
    if group_src is not None:
        peer = group_src
    elif src is None:
        peer = MPI.ANY_SOURCE
    else:
        peer = _peer(pg, src, "irecv", "src")
    buf = _Buf(tensor)
    status = MPI.Status()
    req = pg.comm.Irecv(buf.bytes(), source=peer, tag=tag)

    def finish():
        buf.back()
        return status

    work = Work(pg, "irecv", [req], finish, [tensor])
    work._status = status
    return work


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Send ``tensor`` to rank ``dst`` (waits until it has been handed over)."""
    isend(tensor, dst, group, tag, group_dst).wait()


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receive into ``tensor`` from rank ``src`` (any rank when None); returns the sender's
    rank."""
    MPI = _mpi()
    pg = _require_init() if group is None else group
    status = MPI.Status()
    buf = _Buf(tensor)
    if group_src is not None:
        peer = group_src
    elif src is None:
        peer = MPI.ANY_SOURCE
    else:
        peer = _peer(pg, src, "recv", "src")
    req = pg.comm.Irecv(buf.bytes(), source=peer, tag=tag)
    deadline = time.monotonic() + pg.timeout
    pause = 1e-5
    while not req.Test(status):
        if time.monotonic() > deadline:
            raise DistBackendError(_timeout_message(pg, "recv", pg.timeout))
        time.sleep(pause)
        pause = min(pause * 1.5, 0.005)
    buf.back()
    return pg.ranks[status.Get_source()]


# ------------------------------------------------------------------ objects
# Objects travel pickled, and are unpickled with plain pickle, as in PyTorch: the ranks of a
# job trust each other. Never feed these functions objects from an untrusted peer.


def _allgather_pickled(pg, obj, name, check=True):
    """Every rank's ``obj``, in group-rank order."""
    data = np.frombuffer(pickle.dumps(obj), dtype=np.uint8)
    sizes = np.zeros(pg.size(), dtype=np.int64)
    req = pg.comm.Iallgather(np.array([data.size], dtype=np.int64), sizes)
    _poll([req], pg, name, pg.timeout)
    out = np.empty(int(sizes.sum()), dtype=np.uint8)
    displs = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    req = pg.comm.Iallgatherv(data, [out, (list(map(int, sizes)), list(map(int, displs)))])
    _poll([req], pg, name, pg.timeout)
    return [pickle.loads(out[d : d + s].tobytes()) for d, s in zip(displs, sizes)]


def _bcast_pickled(pg, obj, root, name):
    """Rank ``root``'s ``obj`` on every rank (its size first, then its pickle)."""
    data = np.frombuffer(pickle.dumps(obj), dtype=np.uint8) if pg.rank() == root else None
    size = np.array([0 if data is None else data.size], dtype=np.int64)
    _poll([pg.comm.Ibcast(size, root=root)], pg, name, pg.timeout)
    buf = data.copy() if data is not None else np.empty(int(size[0]), dtype=np.uint8)
    _poll([pg.comm.Ibcast(buf, root=root)], pg, name, pg.timeout)
    return pickle.loads(buf.tobytes())


def broadcast_object_list(object_list, src=0, group=None, device=None, group_src=None):
    """Replace ``object_list``'s items on every rank by those of rank ``src`` (pickled)."""
    pg = _group(group)
    if pg is None:
        return
    root = group_src if group_src is not None else _peer(pg, src, "broadcast_object_list", "src")
    got = _bcast_pickled(pg, list(object_list), root, "broadcast_object_list")
    object_list[:] = got


def all_gather_object(object_list, obj, group=None):
    """``object_list[i]`` receives group rank ``i``'s ``obj`` (pickled)."""
    pg = _group(group)
    if pg is None:
        return
    if len(object_list) != pg.size():
        raise ValueError(f"all_gather_object: object_list needs {pg.size()} entries")
    object_list[:] = _allgather_pickled(pg, obj, "all_gather_object")


def gather_object(obj, object_gather_list=None, dst=0, group=None, group_dst=None):
    """Rank ``dst``'s ``object_gather_list[i]`` receives group rank ``i``'s ``obj``."""
    pg = _group(group)
    if pg is None:
        return
    root = group_dst if group_dst is not None else _peer(pg, dst, "gather_object", "dst")
    if pg.rank() == root and (object_gather_list is None or len(object_gather_list) != pg.size()):
        raise ValueError(f"gather_object: rank {dst} needs an object_gather_list of {pg.size()}")
    every = _allgather_pickled(pg, obj, "gather_object")
    if pg.rank() == root:
        object_gather_list[:] = every


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=0,
                        group=None, group_src=None):  # fmt: skip
    """``scatter_object_output_list[0]`` on group rank ``i`` receives item ``i`` of rank
    ``src``'s ``scatter_object_input_list``."""
    pg = _group(group)
    if pg is None:
        return
    root = group_src if group_src is not None else _peer(pg, src, "scatter_object_list", "src")
    if pg.rank() == root and (
        scatter_object_input_list is None or len(scatter_object_input_list) != pg.size()
    ):
        raise ValueError(f"scatter_object_list: rank {src} needs {pg.size()} input objects")
    items = _bcast_pickled(pg, list(scatter_object_input_list or []), root, "scatter_object_list")
    if not scatter_object_output_list:
        raise ValueError("scatter_object_list: the output list needs at least one entry")
    scatter_object_output_list[0] = items[pg.rank()]
