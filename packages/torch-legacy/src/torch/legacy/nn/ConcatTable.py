from ._tables import add_tables
from .Container import Container


class ConcatTable(Container):
    """Feeds the same input (tensor or table) to every child; ``output`` is the list of
    their outputs and ``gradInput`` the sum of their gradInputs."""

    def updateOutput(self, input):
        self.output = [m.updateOutput(input) for m in self.modules]
        return self.output

    def _sum(self, grads):
        total = grads[0]
        for g in grads[1:]:
            total = add_tables(total, g)
        return total

    def updateGradInput(self, input, gradOutput):
        grads = [m.updateGradInput(input, g) for m, g in zip(self.modules, gradOutput)]
        self.gradInput = self._sum(grads)
        return self.gradInput

    def accGradParameters(self, input, gradOutput, scale=1):
        for m, g in zip(self.modules, gradOutput):
            m.accGradParameters(input, g, scale)

    def backward(self, input, gradOutput, scale=1):
        grads = [m.backward(input, g, scale) for m, g in zip(self.modules, gradOutput)]
        self.gradInput = self._sum(grads)
        return self.gradInput

    def accUpdateGradParameters(self, input, gradOutput, lr):
        for m, g in zip(self.modules, gradOutput):
            m.accUpdateGradParameters(input, g, lr)

    def __repr__(self):
        return _repr_table(self)


def _repr_table(container):
    """Lua's printout of branching containers: one ``|`->`` line per child."""
    tab, line = "  ", "\n"
    s = f"nn.{type(container).__name__} {{{line}{tab}input"
    for i, m in enumerate(container.modules, 1):  # numbered from 1, as Lua prints
        ext = "       " if i == len(container.modules) else "  |    "
        s += f"{line}{tab}  |`-> ({i}): " + repr(m).replace(line, line + tab + ext)
    return s + f"{line}{tab}   ... -> output{line}}}"
