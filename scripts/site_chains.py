"""Finds each site's PyTorch chain in its folder, kernels/<site>/torch_chain.py.

A chain module declares SITES (the site names it serves: ln_continuous is
ln_modulate's chain under another name) and three functions:
chain(tensors, eps) -> outputs by name, stats(tensors, eps) -> per-row
(mean, rstd) by aux-tensor prefix, inputs(shape, rnd, affine) -> random
inputs by name. scripts/torch_oracle.py and scripts/torch_timing.py use
load(); `python3 scripts/site_chains.py` lists which module serves which
site without importing torch (tests/cli/t061 checks that every registered
site has one).
"""
import ast
import glob
import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def chain_files():
    return sorted(glob.glob(os.path.join(ROOT, "kernels", "*", "torch_chain.py")))


def declared_sites(path):
    """The SITES tuple of a chain module, read without importing it."""
    tree = ast.parse(open(path).read(), path)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "SITES" for t in node.targets):
            return tuple(ast.literal_eval(node.value))
    raise ValueError(f"{path}: no SITES = (...) declaration")


def load():
    """{site name: chain module} for every kernels/*/torch_chain.py."""
    chains = {}
    for path in chain_files():
        name = "torch_chain_" + os.path.basename(os.path.dirname(path))
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        for site in mod.SITES:
            if site in chains:
                raise ValueError(f"site {site} has two chains: {chains[site].__file__} and {path}")
            chains[site] = mod
    return chains


def main():
    for path in chain_files():
        rel = os.path.relpath(path, ROOT)
        for site in declared_sites(path):
            print(f"{site} {rel}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
