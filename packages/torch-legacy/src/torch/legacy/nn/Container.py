"""The base of modules holding other modules in a ``modules`` list (0-based ``get``)."""

from .Module import Module, _name


class Container(Module):
    """Lua's ``nn.Container``: ``add``/``get``/``size``; parameter, mode and state methods
    recurse into the children."""

    def __init__(self, *args):
        super().__init__(*args)
        self.modules = []

    def add(self, module):
        """Appends ``module``; returns self (so adds chain)."""
        if not isinstance(module, Module):
            raise TypeError(
                f"{_name(self)}.add(): expected a legacy nn module, got {type(module).__name__}"
            )
        self.modules.append(module)
        return self

    def get(self, index):
        """The child at 0-based ``index``."""
        return self.modules[index]

    def size(self):
        return len(self.modules)

    def applyToModules(self, func):
        for module in self.modules:
            func(module)

    def zeroGradParameters(self):
        self.applyToModules(lambda m: m.zeroGradParameters())

    def updateParameters(self, learningRate):
        self.applyToModules(lambda m: m.updateParameters(learningRate))

    def accUpdateGradParameters(self, input, gradOutput, lr):
        raise NotImplementedError(f"{_name(self)} implements accUpdateGradParameters per container")

    def training(self):
        super().training()
        self.applyToModules(lambda m: m.training())
        return self

    def evaluate(self):
        super().evaluate()
        self.applyToModules(lambda m: m.evaluate())
        return self

    def reset(self, stdv=None):
        self.applyToModules(lambda m: m.reset(stdv))
        return self

    def clearState(self):
        super().clearState()
        self.applyToModules(lambda m: m.clearState())
        return self

    def parameters(self):
        """The children's ``(params, gradParams)`` lists concatenated, or None."""
        params, grads = [], []
        for m in self.modules:
            found = m.parameters()
            if found:
                params += found[0]
                grads += found[1]
        return (params, grads) if params else None

    def _repr_children(self, header, arrow):
        """Lua's container printout: ``header {``, the flow line, one child per line. Children
        are numbered from 1, as Lua prints them (``get`` still takes 0-based indices)."""
        line, tab = "\n", "  "
        flow = "".join(f" {arrow} ({i})" for i in range(1, len(self.modules) + 1))
        s = f"{header} {{{line}{tab}[input{flow} {arrow} output]"
        for i, m in enumerate(self.modules, 1):
            s += f"{line}{tab}({i}): " + repr(m).replace(line, line + tab)
        return s + line + "}"
