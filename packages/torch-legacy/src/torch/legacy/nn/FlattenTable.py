import torch

from .Module import Module, _check_table


def _flatten(table, out):
    for x in table:
        if isinstance(x, torch.Tensor):
            out.append(x)
        else:
            _flatten(x, out)
    return out


def _unflatten(like, flat, pos):
    """``flat[pos:]`` re-nested like ``like``; returns (nested, next position)."""
    nested = []
    for x in like:
        if isinstance(x, torch.Tensor):
            nested.append(flat[pos])
            pos += 1
        else:
            inner, pos = _unflatten(x, flat, pos)
            nested.append(inner)
    return nested, pos


class FlattenTable(Module):
    """Flattens a nested list of tensors into one list (depth-first order)."""

    def updateOutput(self, input):
        self.output = _flatten(_check_table(self, input), [])
        return self.output

    def updateGradInput(self, input, gradOutput):
        self.gradInput = _unflatten(input, list(gradOutput), 0)[0]
        return self.gradInput
