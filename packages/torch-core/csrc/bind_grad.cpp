// bind_grad.cpp — the hook torch-autograd records through, and grad mode.
//
// The core knows nothing of graphs. At module init it puts each op of torch._C and
// torch.Tensor not bound with `nograd` (bind.h) behind a GradGate with an empty formula slot;
// `_C._grad_gates` names them. torch-autograd, when imported, fills each gate's slot with the
// op's formula and registers one recorder (`_C._set_grad_recorder`). A call through a gate
// costs one flag test and a scan of the arguments when nothing requires grad:
//
//   grad mode on and some Tensor argument (or a Tensor inside a list/tuple argument)
//   requires grad   -> recorder(gate, args_tuple, kwargs_dict_or_None), or the gate records
//                      the call itself (Note [Recording in C++])
//                      (NotImplementedError naming the op while its slot is empty)
//   otherwise       -> op(*args, **kwargs), unchanged
//
// A gate placed on the Tensor class binds like a function (it has __get__), so `a + b`
// reaches it with `a` first. A gate made with view=True also tracks views (Note [Views]).
#include "bind.h"

// after Python.h (from bind.h)
#include <structmember.h>

#include <map>
#include <set>

namespace tc {

namespace {

thread_local bool t_grad_enabled = true;  // torch.is_grad_enabled(); per thread, as in PyTorch
PyObject* g_recorder = nullptr;           // set once by torch-autograd; never freed
PyTypeObject* g_tensor_type = nullptr;

struct GradGate {
  PyObject_HEAD PyObject* op;  // the wrapped callable
  PyObject* formula;           // None until torch-autograd fills it; opaque to C++
  PyObject* dict;              // __dict__, so the gate can carry __name__, __doc__, ...
  vectorcallfunc vectorcall;
  int view;  // the op returns a view of its first argument: remember its base (see below)
  // Note [Recording in C++]: the node class and kind of an op the gate records itself
  PyObject* node_type;  // None: every call goes to the recorder
  int record_kind;      // a RecordKind
};

enum RecordKind { kPlainOp = 1, kViewOp = 2, kMaybeViewOp = 3 };

PyObject* g_base_name = nullptr;  // "_base"

// Note [Views]: with grad mode on, a view op records `out._base` (the root tensor whose memory
// it shares) even when nothing requires grad yet, so that a later in-place op that brings in
// a gradient (`zeros(n).diagonal().copy_(x)`) can give the base its history.
PyObject* remember_base(PyObject* out, PyObject* in) {
  if (!out || out == in || !PyObject_TypeCheck(out, g_tensor_type) ||
      !PyObject_TypeCheck(in, g_tensor_type))
    return out;
  if (py::handle(out).cast<const Tensor&>().impl()->storage !=
      py::handle(in).cast<const Tensor&>().impl()->storage)
    return out;  // reshape that had to copy
  PyObject* base = PyObject_GetAttr(in, g_base_name);
  if (!base) {
    Py_DECREF(out);
    return nullptr;
  }
  int rc = PyObject_SetAttr(out, g_base_name, base == Py_None ? in : base);
  Py_DECREF(base);
  if (rc < 0) Py_CLEAR(out);
  return out;
}

// Note [Recording in C++]: the recorder's common case, an op called without keywords whose
// formula takes one Tensor output (a view or not), is done here rather than in
// torch.autograd.graph.record, which keeps the rest (keywords, in-place ops, several outputs,
// anomaly mode). The steps are record()'s, in the same order: run the op, make the node,
// note the user's line, hang the node on the output, let the node save what its backward
// needs (Python: Formula.save), link it to the nodes of those inputs, and for a view note its
// base. The Python parts it calls are torch-autograd's, registered with the recorder.
struct RecorderHelpers {
  PyObject* anomaly = nullptr;      // graph.anomaly, {"enabled": bool, ...}
  PyObject* in_torch = nullptr;     // graph._in_torch, code object -> inside the torch package
  PyObject* user_frame = nullptr;   // graph._user_frame(depth) -> (code, lasti) or None
  PyObject* fresh_view = nullptr;   // graph._fresh_view(view, base)
  PyObject* accumulator = nullptr;  // graph.accumulator(leaf) -> its AccumulateGrad
  PyObject* finish = nullptr;       // graph._finish(formula, out, args, kwargs)
};
RecorderHelpers g_helpers;  // all null until torch-autograd registers them; never freed
PyObject *g_s_where, *g_s_grad_fn, *g_s_real_out, *g_s_save, *g_s_edges, *g_s_rebases,
    *g_s_rebases_seen, *g_s_output_nr, *g_s_accumulator, *g_s_enabled;  // interned names

bool requires_grad(PyObject* o) {
  if (!PyObject_TypeCheck(o, g_tensor_type)) return false;
  return py::handle(o).cast<const Tensor&>().impl()->requires_grad;
}

bool any_requires_grad(PyObject* const* args, Py_ssize_t n) {
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject* a = args[i];
    if (requires_grad(a)) return true;
    if (PyList_Check(a) || PyTuple_Check(a)) {  // cat, stack, ... take sequences of tensors
      PyObject* fast = PySequence_Fast(a, "");
      Py_ssize_t m = PySequence_Fast_GET_SIZE(fast);
      PyObject** items = PySequence_Fast_ITEMS(fast);
      bool found = false;
      for (Py_ssize_t j = 0; j < m && !found; j++) found = requires_grad(items[j]);
      Py_DECREF(fast);
      if (found) return true;
    }
  }
  return false;
}

// (args tuple, kwargs dict or None) of a vectorcall; false with a Python error set
bool pack_call(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames, PyObject*& tuple,
               PyObject*& kwargs) {
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  tuple = PyTuple_New(nargs);
  if (!tuple) return false;
  for (Py_ssize_t i = 0; i < nargs; i++) {
    Py_INCREF(args[i]);
    PyTuple_SET_ITEM(tuple, i, args[i]);
  }
  kwargs = Py_None;
  Py_INCREF(kwargs);
  if (nkw) {
    Py_DECREF(kwargs);
    kwargs = PyDict_New();
    for (Py_ssize_t i = 0; kwargs && i < nkw; i++)
      if (PyDict_SetItem(kwargs, PyTuple_GET_ITEM(kwnames, i), args[nargs + i]) < 0)
        Py_CLEAR(kwargs);
  }
  if (!kwargs) Py_CLEAR(tuple);
  return tuple != nullptr;
}

// Note [Subclass override]: a Tensor subclass whose class defines `_gate_override`
// (torch's sparse layouts) takes over the core functions called with one of its instances:
// torch.add(s, t) calls type(s)._gate_override(torch.add, args, kwargs) before anything
// else; NotImplemented from it lets the op run as usual. Plain tensors and subclasses
// without it (nn.Parameter) cost one type comparison or one cached type lookup.
PyObject* g_override_name = nullptr;  // "_gate_override"

PyTypeObject* override_type(PyObject* const* args, Py_ssize_t n) {  // borrowed, or null
  for (Py_ssize_t i = 0; i < n; i++) {
    PyTypeObject* t = Py_TYPE(args[i]);
    if (t == g_tensor_type || !PyType_IsSubtype(t, g_tensor_type)) continue;
    if (_PyType_Lookup(t, g_override_name)) return t;
  }
  return nullptr;
}

// (fn, output_nr) through which a gradient reaches x's history, or None (new reference)
PyObject* edge_of(PyObject* x) {
  if (!PyObject_TypeCheck(x, g_tensor_type) ||
      !py::handle(x).cast<const Tensor&>().impl()->requires_grad)
    return Py_NewRef(Py_None);
  py::object base = py::reinterpret_steal<py::object>(PyObject_GetAttr(x, g_base_name));
  if (!base) return nullptr;
  if (!base.is_none()) {  // a view whose base's history an in-place op rewrote
    py::object seen = py::reinterpret_steal<py::object>(PyObject_GetAttr(x, g_s_rebases_seen));
    py::object now = py::reinterpret_steal<py::object>(PyObject_GetAttr(base.ptr(), g_s_rebases));
    if (!seen || !now) return nullptr;
    int same = PyObject_RichCompareBool(seen.ptr(), now.ptr(), Py_EQ);
    if (same < 0) return nullptr;
    if (!same) {
      PyObject* argv[] = {x, base.ptr()};
      PyObject* r = PyObject_Vectorcall(g_helpers.fresh_view, argv, 2, nullptr);
      if (!r) return nullptr;
      Py_DECREF(r);
    }
  }
  py::object fn = py::reinterpret_steal<py::object>(PyObject_GetAttr(x, g_s_grad_fn));
  if (!fn) return nullptr;
  py::object nr;
  if (!fn.is_none()) {
    nr = py::reinterpret_steal<py::object>(PyObject_GetAttr(x, g_s_output_nr));
  } else {
    fn = py::reinterpret_steal<py::object>(PyObject_GetAttr(x, g_s_accumulator));
    if (fn && fn.is_none())
      fn = py::reinterpret_steal<py::object>(PyObject_CallOneArg(g_helpers.accumulator, x));
    nr = py::int_(0);
  }
  if (!fn || !nr) return nullptr;
  return PyTuple_Pack(2, fn.ptr(), nr.ptr());
}

// (code, lasti) of the user's line that called the op (None if there is none)
PyObject* user_line() {
  PyFrameObject* frame = PyEval_GetFrame();  // borrowed: the Python code calling the gate
  if (frame) {
    py::object code =
        py::reinterpret_steal<py::object>(reinterpret_cast<PyObject*>(PyFrame_GetCode(frame)));
    PyObject* inside = PyDict_GetItemWithError(g_helpers.in_torch, code.ptr());  // borrowed
    if (inside == Py_False) {
      py::object lasti =
          py::reinterpret_steal<py::object>(PyLong_FromLong(PyFrame_GetLasti(frame)));
      return lasti ? PyTuple_Pack(2, code.ptr(), lasti.ptr()) : nullptr;
    }
    if (!inside && PyErr_Occurred()) return nullptr;
  }
  py::object depth = py::int_(1);  // _user_frame's caller is the code calling the gate
  return PyObject_CallOneArg(g_helpers.user_frame, depth.ptr());
}

bool set_attr(PyObject* o, PyObject* name, PyObject* v) {
  return PyObject_SetAttr(o, name, v) == 0;
}

// The gate's op, recorded (Note [Recording in C++]); a new reference, or null with an error.
PyObject* record_here(GradGate* g, PyObject* const* args, size_t nargsf) {
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  py::object out =
      py::reinterpret_steal<py::object>(PyObject_Vectorcall(g->op, args, nargsf, nullptr));
  if (!out || out.ptr() == Py_NotImplemented) return out.release().ptr();
  if (Py_TYPE(out.ptr()) != g_tensor_type) {  // several outputs
    py::object tuple = py::reinterpret_steal<py::object>(PyTuple_New(nargs));
    if (!tuple) return nullptr;
    for (Py_ssize_t i = 0; i < nargs; i++) PyTuple_SET_ITEM(tuple.ptr(), i, Py_NewRef(args[i]));
    py::dict kwargs;
    PyObject* argv[] = {g->node_type, out.ptr(), tuple.ptr(), kwargs.ptr()};
    return PyObject_Vectorcall(g_helpers.finish, argv, 4, nullptr);
  }
  if (g->record_kind == kPlainOp)  // ops that may return their input unchanged (contiguous)
    for (Py_ssize_t i = 0; i < nargs; i++)
      if (args[i] == out.ptr()) return out.release().ptr();
  py::object node = py::reinterpret_steal<py::object>(PyObject_CallNoArgs(g->node_type));
  if (!node) return nullptr;
  py::object where = py::reinterpret_steal<py::object>(user_line());
  if (!where || !set_attr(node.ptr(), g_s_where, where.ptr())) return nullptr;
  const Tensor& result = out.cast<const Tensor&>();
  result.impl()->requires_grad = true;
  if (!set_attr(out.ptr(), g_s_grad_fn, node.ptr())) return nullptr;
  if (!is_complex(result.dtype()) && !set_attr(node.ptr(), g_s_real_out, Py_True)) return nullptr;
  // node.save(out, *args) -> the inputs backward returns gradients for
  std::vector<PyObject*> argv(size_t(nargs) + 2);
  argv[0] = node.ptr();
  argv[1] = out.ptr();
  std::copy(args, args + nargs, argv.begin() + 2);
  py::object inputs = py::reinterpret_steal<py::object>(
      PyObject_VectorcallMethod(g_s_save, argv.data(), size_t(nargs) + 2, nullptr));
  if (!inputs) return nullptr;
  py::object seq = py::reinterpret_steal<py::object>(
      PySequence_Fast(inputs.ptr(), "save() must return a sequence"));
  if (!seq) return nullptr;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.ptr());
  py::object edges = py::reinterpret_steal<py::object>(PyList_New(n));
  if (!edges) return nullptr;
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject* e = edge_of(PySequence_Fast_GET_ITEM(seq.ptr(), i));
    if (!e) return nullptr;
    PyList_SET_ITEM(edges.ptr(), i, e);
  }
  if (!set_attr(node.ptr(), g_s_edges, edges.ptr())) return nullptr;
  if (g->record_kind != kPlainOp && nargs > 0 && PyObject_TypeCheck(args[0], g_tensor_type) &&
      (g->record_kind == kViewOp ||
       result.impl()->storage == py::handle(args[0]).cast<const Tensor&>().impl()->storage)) {
    py::object root = py::reinterpret_steal<py::object>(PyObject_GetAttr(args[0], g_base_name));
    if (!root) return nullptr;
    if (root.is_none()) root = py::reinterpret_borrow<py::object>(args[0]);
    py::object rebases =
        py::reinterpret_steal<py::object>(PyObject_GetAttr(root.ptr(), g_s_rebases));
    if (!rebases || !set_attr(out.ptr(), g_base_name, root.ptr()) ||
        !set_attr(out.ptr(), g_s_rebases_seen, rebases.ptr()))
      return nullptr;
  }
  return out.release().ptr();
}

// Whether this call can be recorded here: a registered recorder, no keywords, anomaly off
bool records_here(GradGate* g, PyObject* kwnames) {
  if (!g->record_kind || !g->node_type || g->node_type == Py_None || !g_helpers.anomaly)
    return false;
  if (kwnames && PyTuple_GET_SIZE(kwnames)) return false;
  PyObject* on = PyDict_GetItem(g_helpers.anomaly, g_s_enabled);  // borrowed
  return on == Py_False;
}

PyObject* gate_call(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  auto* g = reinterpret_cast<GradGate*>(self);
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  if (PyTypeObject* type = override_type(args, nargs + nkw)) {
    PyObject* handler = PyObject_GetAttr(reinterpret_cast<PyObject*>(type), g_override_name);
    if (!handler) return nullptr;
    PyObject *tuple, *kwargs;
    PyObject* result = nullptr;
    if (pack_call(args, nargs, kwnames, tuple, kwargs)) {
      PyObject* argv[] = {self, tuple, kwargs};
      result = PyObject_Vectorcall(handler, argv, 3, nullptr);
      Py_DECREF(tuple);
      Py_DECREF(kwargs);
    }
    Py_DECREF(handler);
    if (result != Py_NotImplemented) return result;
    Py_DECREF(result);
  }
  bool record = false;
  if (t_grad_enabled && g_recorder) {
    try {
      record = any_requires_grad(args, nargs + nkw);
    } catch (py::error_already_set& e) {
      e.restore();
      return nullptr;
    }
  }
  if (!record) {
    PyObject* out = PyObject_Vectorcall(g->op, args, nargsf, kwnames);
    if (g->view && t_grad_enabled && g_recorder && nargs > 0) out = remember_base(out, args[0]);
    return out;
  }
  if (!g->formula || g->formula == Py_None) {
    PyObject* name = PyDict_GetItemString(g->dict, "__name__");  // borrowed
    PyErr_Format(PyExc_NotImplementedError, "the derivative for '%S' is not implemented",
                 name ? name : Py_None);
    return nullptr;
  }
  if (records_here(g, kwnames)) {
    try {
      return record_here(g, args, nargsf);
    } catch (py::error_already_set& e) {
      e.restore();
      return nullptr;
    }
  }
  PyObject *tuple, *kwargs;
  if (!pack_call(args, nargs, kwnames, tuple, kwargs)) return nullptr;
  PyObject* argv[] = {self, tuple, kwargs};
  PyObject* result = PyObject_Vectorcall(g_recorder, argv, 3, nullptr);
  Py_DECREF(tuple);
  Py_DECREF(kwargs);
  return result;
}

PyTypeObject* g_gate_type = nullptr;

PyObject* make_gate(PyObject* op) {
  auto* g = reinterpret_cast<GradGate*>(g_gate_type->tp_alloc(g_gate_type, 0));
  if (!g) return nullptr;
  Py_INCREF(op);
  Py_INCREF(Py_None);
  g->op = op;
  g->formula = Py_None;
  g->dict = PyDict_New();
  g->vectorcall = gate_call;
  g->view = 0;
  g->node_type = Py_NewRef(Py_None);
  g->record_kind = 0;
  // Look like the op: help(), Sphinx and error messages see its name and docstring.
  for (const char* attr : {"__name__", "__qualname__", "__doc__", "__module__"}) {
    PyObject* v = PyObject_GetAttrString(op, attr);
    if (v) {
      PyDict_SetItemString(g->dict, attr, v);
      Py_DECREF(v);
    } else {
      PyErr_Clear();
    }
  }
  return reinterpret_cast<PyObject*>(g);
}

int gate_traverse(PyObject* self, visitproc visit, void* arg) {
  auto* g = reinterpret_cast<GradGate*>(self);
  Py_VISIT(g->op);
  Py_VISIT(g->formula);
  Py_VISIT(g->node_type);
  Py_VISIT(g->dict);
  return 0;
}

int gate_clear(PyObject* self) {
  auto* g = reinterpret_cast<GradGate*>(self);
  Py_CLEAR(g->op);
  Py_CLEAR(g->formula);
  Py_CLEAR(g->node_type);
  Py_CLEAR(g->dict);
  return 0;
}

void gate_dealloc(PyObject* self) {
  PyObject_GC_UnTrack(self);
  gate_clear(self);
  PyTypeObject* type = Py_TYPE(self);
  type->tp_free(self);
  Py_DECREF(type);  // instances of heap types own a reference to their type
}

// On a class, `obj.method` binds like a Python function does.
PyObject* gate_get(PyObject* self, PyObject* obj, PyObject*) {
  if (!obj || obj == Py_None) {
    Py_INCREF(self);
    return self;
  }
  return PyMethod_New(self, obj);
}

PyObject* gate_repr(PyObject* self) {
  return PyUnicode_FromFormat("<grad gate of %R>", reinterpret_cast<GradGate*>(self)->op);
}

PyMemberDef gate_members[] = {
    {"__wrapped__", T_OBJECT, offsetof(GradGate, op), READONLY, "the op this gate wraps"},
    {"formula", T_OBJECT, offsetof(GradGate, formula), 0, "what the recorder records"},
    {"view", T_INT, offsetof(GradGate, view), 0, "the op returns a view of its first argument"},
    {"node_type", T_OBJECT, offsetof(GradGate, node_type), 0,
     "the node class the gate records itself (None: the recorder records every call)"},
    {"record_kind", T_INT, offsetof(GradGate, record_kind), 0,
     "1: an op with one output, 2: a view of the first argument, 3: a view or a copy"},
    {"__dictoffset__", T_PYSSIZET, offsetof(GradGate, dict), READONLY, nullptr},
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(GradGate, vectorcall), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr},
};

PyType_Slot gate_slots[] = {
    {Py_tp_dealloc, reinterpret_cast<void*>(gate_dealloc)},
    {Py_tp_traverse, reinterpret_cast<void*>(gate_traverse)},
    {Py_tp_clear, reinterpret_cast<void*>(gate_clear)},
    {Py_tp_call, reinterpret_cast<void*>(PyVectorcall_Call)},
    {Py_tp_descr_get, reinterpret_cast<void*>(gate_get)},
    {Py_tp_repr, reinterpret_cast<void*>(gate_repr)},
    {Py_tp_members, gate_members},
    {0, nullptr},
};

PyType_Spec gate_spec = {"torch._C._GradGate", sizeof(GradGate), 0,
                         Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL |
                             Py_TPFLAGS_METHOD_DESCRIPTOR,
                         gate_slots};

// Ops bound with `nograd`: (is a Tensor method, name). Leaked, like the module's objects.
auto& g_no_grad = *new std::set<std::pair<bool, std::string>>();

// The op behind a module function or a Tensor method, else nullptr.
PyObject* core_op(PyObject* v) {
  if (PyCFunction_Check(v)) return v;
  if (PyInstanceMethod_Check(v) && PyCFunction_Check(PyInstanceMethod_GET_FUNCTION(v)))
    return PyInstanceMethod_GET_FUNCTION(v);
  return nullptr;
}

bool differentiable(PyObject* fn, bool method) {
  std::string name = reinterpret_cast<PyCFunctionObject*>(fn)->m_ml->ml_name;
  // the CUDA runtime's functions (bind_cuda.cpp) take no part in autograd
  return name != "__init__" && name.rfind("_pybind11", 0) != 0 && name.rfind("_cuda_", 0) != 0 &&
         !g_no_grad.count({method, name});
}

}  // namespace

void note_no_grad(const char* name, bool method) { g_no_grad.insert({method, name}); }

bool grad_enabled() { return t_grad_enabled; }

void make_grad_gates(py::module_& m, py::class_<Tensor>& cls) {
  py::dict gates;  // "name" / "Tensor.name" -> gate; aliases (subtract = sub) share one gate
  std::map<PyObject*, py::object> made;  // op -> its gate
  PyObject* module_dict = PyModule_GetDict(m.ptr());
  PyObject* class_dict = reinterpret_cast<PyTypeObject*>(cls.ptr())->tp_dict;
  for (auto [dict, prefix] :
       {std::pair<PyObject*, std::string>(module_dict, ""), {class_dict, "Tensor."}}) {
    bool method = !prefix.empty();
    for (auto [key, value] : py::reinterpret_borrow<py::dict>(dict)) {
      PyObject* fn = core_op(value.ptr());
      if (!fn || !differentiable(fn, method)) continue;
      py::object& gate = made[fn];
      if (!gate) {
        gate = py::reinterpret_steal<py::object>(make_gate(fn));
        if (!gate) throw py::error_already_set();
      }
      gates[py::str(prefix + std::string(py::str(key)))] = gate;
    }
  }
  for (auto [name, gate] : gates) {
    std::string key = py::str(name);
    if (key.rfind("Tensor.", 0) == 0)
      cls.attr(key.substr(7).c_str()) = gate;
    else
      m.attr(key.c_str()) = gate;
  }
  m.attr("_grad_gates") = gates;
}

void bind_grad(py::module_& m, py::class_<Tensor>& cls) {
  g_tensor_type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  g_base_name = PyUnicode_InternFromString("_base");
  g_override_name = PyUnicode_InternFromString("_gate_override");
  cls.attr("_base") = py::none();  // Note [Views]
  PyObject* type = PyType_FromSpec(&gate_spec);
  if (!type) throw py::error_already_set();
  g_gate_type = reinterpret_cast<PyTypeObject*>(type);  // held by the module's attribute
  m.attr("_GradGate") = py::reinterpret_steal<py::object>(type);
  for (auto [var, name] : {std::pair{&g_s_where, "_where"},
                           {&g_s_grad_fn, "grad_fn"},
                           {&g_s_real_out, "_real_out"},
                           {&g_s_save, "save"},
                           {&g_s_edges, "_edges"},
                           {&g_s_rebases, "_rebases"},
                           {&g_s_rebases_seen, "_rebases_seen"},
                           {&g_s_output_nr, "output_nr"},
                           {&g_s_accumulator, "_accumulator"},
                           {&g_s_enabled, "enabled"}})
    *var = PyUnicode_InternFromString(name);
  // recorder(gate, args, kwargs); helpers: what Note [Recording in C++] calls, a dict
  // with anomaly, in_torch, user_frame, fresh_view, accumulator and finish (None: the
  // recorder records every call)
  m.def(
      "_set_grad_recorder",
      [](py::object f, py::object helpers) {
        Py_XDECREF(g_recorder);
        g_recorder = f.is_none() ? nullptr : f.release().ptr();
        g_helpers = RecorderHelpers{};  // (the old ones leak: set once per process)
        if (helpers.is_none()) return;
        auto get = [&](const char* key) { return py::object(helpers[key]).release().ptr(); };
        g_helpers.anomaly = get("anomaly");
        g_helpers.in_torch = get("in_torch");
        g_helpers.user_frame = get("user_frame");
        g_helpers.fresh_view = get("fresh_view");
        g_helpers.accumulator = get("accumulator");
        g_helpers.finish = get("finish");
        TC_CHECK(PyDict_Check(g_helpers.anomaly) && PyDict_Check(g_helpers.in_torch), Type,
                 "_set_grad_recorder: anomaly and in_torch must be dicts");
      },
      py::arg("recorder"), py::arg("helpers") = py::none(), nograd);
  m.def("is_grad_enabled", [] { return t_grad_enabled; }, nograd);
  m.def(
      "_set_inference_mode",
      [](bool on) {  // Note [Inference tensors]
        bool prev = inference_mode();
        set_inference_mode(on);
        return prev;
      },
      nograd);
  cls.def("is_inference", [](const Tensor& t) { return t.impl()->inference; }, nograd);
  m.def(
      "_set_grad_enabled",
      [](bool on) {
        bool prev = t_grad_enabled;
        t_grad_enabled = on;
        return prev;
      },
      nograd);
  // For backward formulas of broadcasting ops: per input, None when it is not a tensor or
  // has the output's shape (nothing to sum), else its shape. One call instead of several.
  m.def(
      "_broadcast_shapes_of",
      [](const Tensor& out, py::args inputs) {
        py::tuple r(inputs.size());
        for (size_t i = 0; i < inputs.size(); i++) {
          py::handle h = inputs[i];
          if (!py::isinstance<Tensor>(h) || h.cast<const Tensor&>().sizes() == out.sizes())
            r[i] = py::none();
          else
            r[i] = size_object(h.cast<const Tensor&>().sizes());
        }
        return r;
      },
      nograd);
  // Output flag of a recorded op; unlike the requires_grad property, allowed on non-leaves.
  m.def("_mark_requires_grad", [](const Tensor& t) { t.impl()->requires_grad = true; }, nograd);
  // Whether t is the only tensor on its storage and covers all of it densely: then a
  // gradient nobody else holds may become a leaf's .grad without a copy.
  m.def(
      "_sole_owner",
      [](const Tensor& t) {
        const auto& st = t.impl()->storage;
        return st.use_count() == 1 && t.is_contiguous() && t.offset() == 0 &&
               size_t(t.numel()) * t.itemsize() == st->nbytes;
      },
      nograd);
  // t.grad_fn = node and the flag, in one call (the recorder's hot path); a real output is
  // noted on the node (node._real_out), whose gradient the engine keeps real
  m.def(
      "_set_grad_fn",
      [](py::handle t, py::handle node) {
        const Tensor& tensor = t.cast<const Tensor&>();
        tensor.impl()->requires_grad = true;
        if (PyObject_SetAttrString(t.ptr(), "grad_fn", node.ptr()) < 0)
          throw py::error_already_set();
        if (!is_complex(tensor.dtype()) &&
            PyObject_SetAttrString(node.ptr(), "_real_out", Py_True) < 0)
          throw py::error_already_set();
      },
      nograd);
}

}  // namespace tc
