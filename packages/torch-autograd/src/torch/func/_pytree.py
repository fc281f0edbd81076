"""Nested Python containers ("pytrees") of tensors, as the torch.func transforms see them.

A container is a tuple, list, dict, ``collections.OrderedDict``, ``collections.defaultdict``
or namedtuple (exact types: a subclass such as ``torch.Size`` is a leaf); anything else,
``None`` included, is a leaf. Dicts keep their insertion order.
"""

from collections import OrderedDict, defaultdict

__all__ = ["TreeSpec", "tree_flatten", "tree_unflatten", "tree_map", "broadcast_prefix"]


def _is_namedtuple(obj):
    return isinstance(obj, tuple) and hasattr(type(obj), "_fields")


def _children(obj):
    """(type, context, children) of a container, or None for a leaf."""
    t = type(obj)
    if t is tuple or t is list or (t is not tuple and _is_namedtuple(obj)):
        return t, None, list(obj)
    if t is dict or t is OrderedDict:
        keys = list(obj)
        return t, keys, [obj[k] for k in keys]
    if t is defaultdict:
        keys = list(obj)
        return t, (obj.default_factory, keys), [obj[k] for k in keys]
    return None


def _rebuild(t, context, children):
    if t is tuple or t is list:
        return t(children)
    if t is dict or t is OrderedDict:
        return t(zip(context, children))
    if t is defaultdict:
        factory, keys = context
        return defaultdict(factory, zip(keys, children))
    return t(*children)  # namedtuple


class TreeSpec:
    """The shape of a pytree without its leaves: a leaf (``type`` None) or a container type,
    its context (dict keys) and one spec per child."""

    __slots__ = ("type", "context", "children", "num_leaves")

    def __init__(self, type_, context, children):
        self.type = type_
        self.context = context
        self.children = children
        self.num_leaves = 1 if type_ is None else sum(c.num_leaves for c in children)

    def is_leaf(self):
        return self.type is None

    def __eq__(self, other):
        return (
            isinstance(other, TreeSpec)
            and self.type is other.type
            and self.context == other.context
            and self.children == other.children
        )

    def __hash__(self):
        return hash((self.type, len(self.children)))

    def __repr__(self):
        if self.type is None:
            return "*"
        context = self.context
        if self.type is defaultdict:
            context = context[1]
        children = ", ".join(repr(c) for c in self.children)
        return f"TreeSpec({self.type.__name__}, {context}, [{children}])"


_LEAF = TreeSpec(None, None, [])


def tree_flatten(tree):
    """(leaves in order, TreeSpec)."""
    leaves = []

    def walk(obj):
        node = _children(obj)
        if node is None:
            leaves.append(obj)
            return _LEAF
        t, context, children = node
        return TreeSpec(t, context, [walk(c) for c in children])

    return leaves, walk(tree)


def tree_unflatten(leaves, spec):
    """The pytree of shape ``spec`` holding ``leaves`` in order."""
    leaves = list(leaves)
    if len(leaves) != spec.num_leaves:
        raise ValueError(
            f"tree_unflatten: got {len(leaves)} leaves for a spec with {spec.num_leaves}"
        )
    it = iter(leaves)

    def build(s):
        if s.type is None:
            return next(it)
        return _rebuild(s.type, s.context, [build(c) for c in s.children])

    return build(spec)


def tree_map(fn, tree):
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(x) for x in leaves], spec)


def broadcast_prefix(prefix, spec):
    """One value of ``prefix`` per leaf of ``spec``: ``prefix`` is a pytree whose structure
    is a prefix of ``spec``'s, and each of its leaves applies to the whole subtree at its
    place. None when the structures do not match."""
    out = []

    def walk(p, s):
        node = _children(p)
        if node is None:
            out.extend([p] * s.num_leaves)
            return True
        t, context, children = node
        if s.type is None or t is not s.type or len(children) != len(s.children):
            return False
        if context is None:
            pairs = zip(children, s.children)
        else:  # dicts match by key, whatever their order
            keys = context[1] if t is defaultdict else context
            spec_keys = s.context[1] if t is defaultdict else s.context
            if set(keys) != set(spec_keys):
                return False
            by_key = dict(zip(keys, children))
            pairs = ((by_key[k], c) for k, c in zip(spec_keys, s.children))
        return all(walk(pc, sc) for pc, sc in pairs)

    return out if walk(prefix, spec) else None
